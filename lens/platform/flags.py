"""tf.flags / tf.app.flags: absl.flags, with TF1's old keyword names and implicit parsing on first read."""
import functools
import logging as _logging
import sys as _sys

import absl.flags as _absl_flags
from absl.flags import *  # noqa: F401,F403 - tf.flags re-exports absl.flags, as TF1 does

__all__ = [n for n in dir(_absl_flags) if not n.startswith("_")]

# Flags defined through the wrappers below belong to the caller's module, not to this one (absl looks
# for the first module on the stack that did not disclaim key flags).
disclaim_key_flags()  # noqa: F405

_OLD_NAMES = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _accept_old_names(define):
    """A DEFINE_* that also takes TF1's keyword names flag_name, default_value and docstring."""
    @functools.wraps(define)
    def wrapper(*args, **kwargs):
        renamed = [old for old in _OLD_NAMES if old in kwargs]
        for old in renamed:
            kwargs[_OLD_NAMES[old]] = kwargs.pop(old)
        if renamed:
            _logging.getLogger("tensorflow").warning(
                "Use of the keyword argument names (flag_name, default_value, docstring) is deprecated, please "
                "use (name, default, help) instead.")
        return define(*args, **kwargs)
    return wrapper


for _name in __all__:
    if _name.startswith("DEFINE"):
        globals()[_name] = _accept_old_names(getattr(_absl_flags, _name))


class _FlagValuesWrapper:
    """absl's FLAGS, except that reading a flag before parsing parses sys.argv first (as tf.flags.FLAGS)."""

    def __init__(self, flag_values):
        self.__dict__["_wrapped"] = flag_values

    def __getattr__(self, name):
        wrapped = self.__dict__["_wrapped"]
        if not wrapped.is_parsed() and not name.startswith("__"):   # dunders are Python's probes, not flags
            wrapped(_sys.argv)
        return getattr(wrapped, name)

    def __setattr__(self, name, value):
        setattr(self.__dict__["_wrapped"], name, value)

    def __delattr__(self, name):
        delattr(self.__dict__["_wrapped"], name)

    def __dir__(self):
        return dir(self.__dict__["_wrapped"])

    def __getitem__(self, name):
        return self.__dict__["_wrapped"][name]

    def __setitem__(self, name, flag):
        self.__dict__["_wrapped"][name] = flag

    def __len__(self):
        return len(self.__dict__["_wrapped"])

    def __iter__(self):
        return iter(self.__dict__["_wrapped"])

    def __str__(self):
        return str(self.__dict__["_wrapped"])

    def __call__(self, *args, **kwargs):
        return self.__dict__["_wrapped"](*args, **kwargs)


FLAGS = _FlagValuesWrapper(_absl_flags.FLAGS)
