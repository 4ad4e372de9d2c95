"""`import lens.contrib.<path>` and `from lens.contrib.<path> import name`: TF1's import statements
for tf.contrib modules (e.g. `from tensorflow.contrib.tensorboard.plugins import projector`).

`lens.contrib` is a lazy namespace, not a package, so the import system cannot find its
submodules; this finder answers for any `lens.contrib.*` name whose attribute path resolves to a
module, with a stand-in module that forwards attribute reads to it (the real module's own spec
and name are left alone).
"""

import importlib.abc
import importlib.util
import sys
import types

PREFIX = "lens.contrib"


def _resolve(fullname):
    """The module at attribute path fullname from the imported lens package, or None."""
    obj = sys.modules.get("lens")
    for part in fullname.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError:
            return None
    return obj if isinstance(obj, types.ModuleType) else None


class ContribFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `lens.contrib.*` by attribute lookup through tf.contrib's lazy namespaces."""

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith(PREFIX + ".") and fullname != PREFIX:
            return None
        if _resolve(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=True)

    def create_module(self, spec):
        target = _resolve(spec.name)
        stand_in = types.ModuleType(spec.name, getattr(target, "__doc__", None))
        stand_in.__getattr__ = lambda name: getattr(target, name)
        stand_in.__dir__ = lambda: dir(target)
        return stand_in

    def exec_module(self, module):
        """Nothing to run: attributes come from the target on demand."""


def install():
    """Put the finder on sys.meta_path once."""
    if not any(isinstance(f, ContribFinder) for f in sys.meta_path):
        sys.meta_path.append(ContribFinder())


install()
