"""lens: `import lens as tf` runs TF1 graph-mode programs; lens.board and lens.dbg visualize them.

The TF1 names (tf.Session, tf.layers, tf.train, ...) live in lens.tf1.facade, which imports the whole engine
(every op family, the client, the libraries). This module loads it on first use of such a name (PEP 562), so
`lens board` and the lens.events readers start without paying for the engine.
"""
import sys as _sys
import threading as _threading
import types as _types

from lens.framework import registry as _registry
from lens.tf1 import contrib_import as _contrib_import  # noqa: F401 - `from lens.contrib.x import y` as a first import

# The TF1 namespaces named like a lens subpackage: tf.layers is the facade's namespace even when lens.layers was
# imported before the facade loaded (tests/test_lazy_facade.py checks this list against the facade).
_SHADOWED = frozenset({"client", "data", "estimator", "feature_column", "layers", "losses", "metrics"})
_facade = None
_loading = set()    # the threads inside _load_facade: the facade's own `from lens import x` must not recurse


def _load_facade():
    """Import lens.tf1.facade once and copy its TF1 names here; False while this thread is loading it."""
    global _facade
    if _facade is not None:
        return True
    me = _threading.get_ident()
    if me in _loading:
        return False
    # No lock of our own: the import system's module locks serialize threads (and detect deadlocks with
    # an import in progress, which a lock held across this import could not).
    _loading.add(me)
    try:
        from lens.tf1 import facade
    finally:
        _loading.discard(me)
    # After the facade finished importing: its names replace the submodules its imports set here.
    names = globals()
    for name in facade.__all__:
        names[name] = getattr(facade, name)
    names["__all__"] = list(facade.__all__)
    _sys.modules[__name__].__class__ = _types.ModuleType   # no more per-attribute check
    _facade = facade
    return True


class _LazyLens(_types.ModuleType):
    """lens before the facade loads: reading a shadowed name (tf.layers, ...) loads it first."""

    def __getattribute__(self, name):
        if name in _SHADOWED:
            _load_facade()
        return _types.ModuleType.__getattribute__(self, name)   # the class may just have changed


def __getattr__(name):
    """A TF1 name (or `__all__`) not defined yet: load the facade, then look again."""
    if (name == "__all__" or not name.startswith("_")) and _load_facade() and name in globals():
        return globals()[name]
    raise AttributeError("module 'lens' has no attribute %r" % name)


def __dir__():
    """Every TF1 name, as `dir(tf)` lists it in TensorFlow."""
    _load_facade()
    return sorted(globals())


def load_ipython_extension(ipython):
    """`%load_ext lens`: registers the `%lens` magic (lens.notebook, needs lens[notebook]); no engine needed."""
    from lens.notebook import load_ipython_extension as load

    load(ipython)


_sys.modules[__name__].__class__ = _LazyLens
# Graph import, Ray tasks, the debugger, scripts using lower layers only: an op type not registered yet loads the
# facade, as every `import lens.x` did when this module imported the whole engine.
_registry.add_op_loader(_load_facade)
