"""tf.resource_loader: find files that ship beside the calling module or inside the lens package."""
import inspect as _inspect
import os as _os
import sys as _sys

__all__ = ["get_data_files_path", "get_path_to_datafile", "get_root_dir_with_all_resources", "load_resource",
           "readahead_file_path"]

# The directory holding the lens package: resource paths look like 'lens/board/static/index.html'.
_ROOT = _os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))


def load_resource(path):
    """The bytes of a resource file, given relative to the directory that holds the lens package."""
    with open(_os.path.join(_ROOT, path.replace("/", _os.sep)), "rb") as f:
        return f.read()


def get_data_files_path():
    """The directory of the calling module's file."""
    return _os.path.dirname(_inspect.getfile(_sys._getframe(1)))


def get_root_dir_with_all_resources():
    """The calling module's directory (a plain install has no separate runfiles tree)."""
    return _os.path.dirname(_inspect.getfile(_sys._getframe(1)))


def get_path_to_datafile(path):
    """path joined to the calling module's directory."""
    data_files_path = _os.path.dirname(_inspect.getfile(_sys._getframe(1)))
    return _os.path.join(data_files_path, path)


def readahead_file_path(path, readahead="128M"):
    """path itself (TF1 also returns it unchanged: readahead caching is not implemented)."""
    return path
