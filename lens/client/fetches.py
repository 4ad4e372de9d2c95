"""Fetch structures as cache keys."""
from lens.framework.graph import Operation, Tensor


def fetch_key(f):
    """A hashable key for a fetch structure (plans are cached per fetch/feed signature)."""
    t = type(f)
    if t is Tensor or t is Operation or t is str:
        return f
    if t is list or t is tuple:
        return (t, tuple(map(fetch_key, f)))
    if isinstance(f, dict):
        return (t, tuple((k, fetch_key(v)) for k, v in f.items()))
    if isinstance(f, tuple):
        return (t, tuple(fetch_key(x) for x in f))
    if f is None:
        raise TypeError("Fetch argument None has invalid type <class 'NoneType'>")
    return f
