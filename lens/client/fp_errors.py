"""Floating-point error state for a run: TF kernels give inf/nan silently, so runs ignore NumPy's
warnings; this sets that state in a fraction of `np.errstate(all="ignore")`'s cost per run."""
import numpy as np

try:    # NumPy 2 keeps the state in a context variable; set it directly when that is there
    from numpy._core._ufunc_config import _extobj_contextvar, _make_extobj
except ImportError:     # pragma: no cover - older NumPy: the public context manager
    _extobj_contextvar = _make_extobj = None

_last = (None, None)    # (the state we replaced last time, its all-ignore version)


def ignore():
    """Switch warnings off for this context; returns what restore() needs."""
    if _extobj_contextvar is None:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state
    global _last
    current = _extobj_contextvar.get()
    seen, quiet = _last
    if current is not seen:
        # The all-ignore version keeps the rest of the caller's state (buffer size, errcall).
        quiet = _make_extobj(all="ignore")
        _last = (current, quiet)
    return _extobj_contextvar.set(quiet)


def restore(token):
    """Put back the state ignore() replaced."""
    if _extobj_contextvar is None:
        token.__exit__(None, None, None)
    else:
        _extobj_contextvar.reset(token)
