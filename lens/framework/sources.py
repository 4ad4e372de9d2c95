"""Tells lens's own source files from user code, for "defined at" lines and tracebacks."""

import functools
import os

# The installed package directory, resolved once: a user's folder that merely happens to be
# called "lens" (e.g. a git clone, ~/lens/train.py) must never count as lens's own.
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


@functools.lru_cache(maxsize=4096)
def is_lens_file(path):
    """True when path is a file inside the installed lens package."""
    if not path or path.startswith("<"):  # "<string>", "<stdin>", notebook cells: user code
        return False
    real = os.path.realpath(path)
    return real == PACKAGE_DIR or real.startswith(PACKAGE_DIR + os.sep)


def user_frames(frames):
    """The (filename, line, ...) frames that are not inside the lens package."""
    return [f for f in frames if not is_lens_file(f[0])]
