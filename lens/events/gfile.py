"""tf.io.gfile and tf.gfile: file access for local paths and fsspec URLs (memory://, s3://, gs://, ...)."""
import glob as _glob
import os
import shutil

from lens.framework import errors
from lens.events.fsio import is_url

__all__ = ["GFile", "FastGFile", "Open", "FileStatistics", "copy", "exists", "get_registered_schemes", "glob",
           "isdir", "join", "listdir", "makedirs", "mkdir", "remove", "rename", "rmtree", "stat", "walk",
           "Copy", "DeleteRecursively", "Exists", "Glob", "IsDirectory", "ListDirectory", "MakeDirs", "MkDir",
           "Remove", "Rename", "Stat", "Walk"]


def _url_fs(path):
    """(fsspec filesystem, path inside it) for a URL other than file://; None for local paths."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode()
    if not is_url(path):
        return None, path
    if path.startswith("file://"):
        return None, path[len("file://"):]
    try:
        import fsspec
    except ImportError:
        raise errors.UnimplementedError(None, None, "File system scheme '%s' needs fsspec, which is not installed; "
                                        "install it with: pip install 'lens[fsspec]'" % path.split("://")[0]) from None
    fs, inner = fsspec.core.url_to_fs(path)
    return fs, inner


def _not_found(path):
    return errors.NotFoundError(None, None, "%s; No such file or directory" % path)


class FileStatistics:
    """What stat() returns: length in bytes, modification time in ns, is_directory."""

    def __init__(self, length=None, mtime_nsec=None, is_directory=None):
        self.length, self.mtime_nsec, self.is_directory = length, mtime_nsec, is_directory

    def __repr__(self):
        return "FileStatistics(length=%r, mtime_nsec=%r, is_directory=%r)" % (
            self.length, self.mtime_nsec, self.is_directory)


class GFile:
    """A file opened lazily (a missing file fails on first read, with NotFoundError); 'r' gives str, 'rb' bytes."""

    def __init__(self, name, mode="r"):
        if mode not in ("r", "rb", "w", "wb", "a", "ab", "r+", "rb+", "w+", "wb+", "a+", "ab+"):
            raise errors.InvalidArgumentError(None, None, "mode is not 'r' or 'w' or 'a' (or with 'b'/'+'): %r" % mode)
        self.__name = os.fspath(name) if not isinstance(name, bytes) else name.decode()
        self.__mode = mode
        self._f = None

    name = property(lambda self: self.__name, doc="The file's path.")
    mode = property(lambda self: self.__mode, doc="The mode it was opened with.")

    def _file(self):
        if self._f is None:
            fs, path = _url_fs(self.__name)
            mode = self.__mode if "b" in self.__mode else self.__mode[0] + "b" + self.__mode[1:]
            try:
                self._f = fs.open(path, mode) if fs is not None else open(path, mode)
            except FileNotFoundError:
                raise _not_found(self.__name) from None
            except IsADirectoryError:
                raise errors.FailedPreconditionError(None, None, "%s; Is a directory" % self.__name) from None
        return self._f

    def _out(self, data):
        return data if "b" in self.__mode else data.decode("utf-8")

    def _check_readable(self):
        if self.__mode[0] != "r" and "+" not in self.__mode:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")

    def _check_writable(self):
        if self.__mode[0] == "r" and "+" not in self.__mode:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")

    def size(self):
        """The file's length in bytes."""
        return stat(self.__name).length

    def read(self, n=-1):
        """n bytes (or characters' worth of bytes in text mode); all the rest when n is -1."""
        self._check_readable()
        return self._out(self._file().read(-1 if n is None else n))

    def readline(self):
        """The next line, with its newline."""
        self._check_readable()
        return self._out(self._file().readline())

    def readlines(self):
        """All remaining lines."""
        self._check_readable()
        return [self._out(line) for line in self._file().readlines()]

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def write(self, file_content):
        """Write str (as UTF-8) or bytes."""
        self._check_writable()
        data = file_content.encode("utf-8") if isinstance(file_content, str) else bytes(file_content)
        self._file().write(data)

    def seek(self, offset=None, whence=0, position=None):
        """Move to offset (from whence: 0 start, 1 current, 2 end)."""
        if position is not None:
            offset = position
        self._file().seek(offset, whence)

    def tell(self):
        """The current offset."""
        return self._file().tell()

    def seekable(self):
        return True

    def flush(self):
        """Push written data to the file."""
        if self._f is not None:
            self._f.flush()

    def close(self):
        """Flush and close."""
        if self._f is not None:
            self._f.close()
            self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


FastGFile = Open = GFile


def exists(path):
    """True when path (a file or directory) exists."""
    fs, p = _url_fs(path)
    return fs.exists(p) if fs is not None else os.path.exists(p)


def isdir(path):
    """True when path is a directory."""
    fs, p = _url_fs(path)
    return fs.isdir(p) if fs is not None else os.path.isdir(p)


def join(path, *paths):
    """Paths joined with '/' for URLs, os.path.join otherwise."""
    if is_url(os.fspath(path)):
        out = os.fspath(path)
        for p in paths:
            out = out.rstrip("/") + "/" + os.fspath(p).lstrip("/") if not is_url(p) else os.fspath(p)
        return out
    return os.path.join(path, *paths)


def glob(pattern):
    """The paths matching a shell pattern (* ? [..]), as TF's Glob (URLs keep their scheme)."""
    if isinstance(pattern, (list, tuple)):
        return [m for p in pattern for m in glob(p)]
    raw = os.fspath(pattern) if not isinstance(pattern, bytes) else pattern.decode()
    fs, p = _url_fs(raw)
    if fs is None:
        return sorted(_glob.glob(p))
    # Matches come back in the filesystem's own spelling: give them the pattern's (URL) prefix again.
    wild = min([i for i in (raw.find(c) for c in "*?[") if i >= 0] or [len(raw)])
    user_dir = raw[:raw.rfind("/", 0, wild) + 1]
    fs_dir = fs._strip_protocol(user_dir).rstrip("/") + "/"
    return sorted(user_dir + m[len(fs_dir):] if m.startswith(fs_dir) else m for m in fs.glob(p))


def listdir(path):
    """The names (not paths) in directory path; NotFoundError when it is not a directory."""
    fs, p = _url_fs(path)
    if not isdir(path):
        raise _not_found(path)
    if fs is None:
        return os.listdir(p)
    return [e.rstrip("/").rsplit("/", 1)[-1] for e in fs.ls(p, detail=False)]


def makedirs(path):
    """Create path and its missing parents (no error when it exists)."""
    fs, p = _url_fs(path)
    if fs is not None:
        fs.makedirs(p, exist_ok=True)
    else:
        os.makedirs(p, exist_ok=True)


def mkdir(path):
    """Create one directory (its parent must exist); nothing happens when the path exists (as TF 2.21)."""
    fs, p = _url_fs(path)
    if exists(path):
        return
    try:
        fs.mkdir(p, create_parents=False) if fs is not None else os.mkdir(p)
    except FileNotFoundError:
        raise _not_found(path) from None


def remove(path):
    """Delete one file; NotFoundError when it is missing."""
    fs, p = _url_fs(path)
    if not exists(path):
        raise _not_found(path)
    fs.rm(p) if fs is not None else os.remove(p)


def rmtree(path):
    """Delete a directory and everything under it; NotFoundError when it is missing."""
    fs, p = _url_fs(path)
    if not exists(path):
        raise _not_found(path)
    fs.rm(p, recursive=True) if fs is not None else shutil.rmtree(p)


def rename(src, dst, overwrite=False):
    """Move src to dst; AlreadyExistsError when dst exists and overwrite is False."""
    if not exists(src):
        raise _not_found(src)
    if exists(dst) and not overwrite:
        raise errors.AlreadyExistsError(None, None, "file already exists: %s" % dst)
    fs, s = _url_fs(src)
    fs2, d = _url_fs(dst)
    if fs is None and fs2 is None:
        os.replace(s, d)
    else:
        copy(src, dst, overwrite=True)
        remove(src)


def copy(src, dst, overwrite=False):
    """Copy the file src to dst; AlreadyExistsError when dst exists and overwrite is False."""
    if not exists(src):
        raise _not_found(src)
    if exists(dst) and not overwrite:
        raise errors.AlreadyExistsError(None, None, "file already exists: %s" % dst)
    with GFile(src, "rb") as fin, GFile(dst, "wb") as fout:
        fout.write(fin.read())


def stat(path):
    """FileStatistics of path; NotFoundError when it is missing."""
    fs, p = _url_fs(path)
    if not exists(path):
        raise _not_found(path)
    if fs is None:
        st = os.stat(p)
        return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(p))
    info = fs.info(p)
    mtime = info.get("mtime") or info.get("created") or 0
    mtime = int(mtime.timestamp() * 1e9) if hasattr(mtime, "timestamp") else int(float(mtime) * 1e9)
    return FileStatistics(int(info.get("size") or 0), mtime, info.get("type") == "directory")


def walk(top, topdown=True, onerror=None):
    """(dirname, subdirectory names, file names) for top and every directory under it."""
    if not isdir(top):
        if onerror is not None:
            onerror(_not_found(top))
        return
    names = listdir(top)
    subdirs = sorted(n for n in names if isdir(join(top, n)))
    files = sorted(n for n in names if n not in subdirs)
    if topdown:
        yield top, subdirs, files
    for d in subdirs:
        yield from walk(join(top, d), topdown, onerror)
    if not topdown:
        yield top, subdirs, files


def get_registered_schemes():
    """The URL schemes usable here: local files plus every protocol fsspec knows (when installed)."""
    try:
        import fsspec
        return sorted(set(["", "file"]) | set(fsspec.available_protocols()))
    except ImportError:
        return ["", "file"]


# tf.gfile's TF1 names.
Copy, Exists, Glob, IsDirectory, ListDirectory, MakeDirs = copy, exists, glob, isdir, listdir, makedirs
MkDir, Remove, Rename, Stat, DeleteRecursively = mkdir, remove, rename, stat, rmtree


def Walk(top, in_order=True):  # noqa: N802 - TF's name
    """tf.gfile.Walk: walk(top, topdown=in_order)."""
    return walk(top, topdown=in_order)
