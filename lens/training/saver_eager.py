"""tf.train.Saver while executing eagerly: variables' values written to / read from a tensor bundle
at once (TF1's eager Saver: `saver.save(None, prefix)`, `saver.restore(None, prefix)`)."""
import os

import numpy as np

from lens.framework import errors
from lens.training.bundle import write_bundle
from lens.training.checkpoint_reader import NewCheckpointReader
from lens.training.saver_format import checkpoint_exists, update_checkpoint_state


def _named(var_list):
    if var_list is None:
        raise RuntimeError("When eager execution is enabled, `var_list` must specify a list or dict of "
                           "variables to save")
    if isinstance(var_list, dict):
        return sorted(var_list.items())
    named = {}
    for v in var_list:
        name = v.name[:-2] if v.name.endswith(":0") else v.name
        if name in named:
            raise ValueError("At least two variables have the same name: %s" % name)
        named[name] = v
    return sorted(named.items())


class EagerSaver:
    """Saves and restores eager variables under their names (or a dict's keys)."""

    def __init__(self, var_list=None, reshape=False, max_to_keep=5, **unused):
        self._items = _named(var_list)
        self._max_to_keep = max_to_keep
        self._kept = []

    @property
    def last_checkpoints(self):
        """Prefixes of the checkpoints still kept, oldest first."""
        return list(self._kept)

    def save(self, sess, save_path, global_step=None, latest_filename=None, write_state=True, **unused):
        """Write the variables' current values at save_path[-global_step]; returns the prefix."""
        save_path = os.fspath(save_path)
        prefix = save_path if global_step is None else "%s-%d" % (save_path, int(np.asarray(global_step)))
        save_dir = os.path.dirname(prefix) or "."
        if not os.path.isdir(save_dir):
            raise ValueError("Parent directory of %s doesn't exist, can't save. Create it first (os.makedirs)."
                             % save_path)
        write_bundle(prefix, [(name, v.numpy()) for name, v in self._items])
        if prefix in self._kept:
            self._kept.remove(prefix)
        self._kept.append(prefix)
        while self._max_to_keep and len(self._kept) > self._max_to_keep:
            old = self._kept.pop(0)
            for suffix in (".index", ".data-00000-of-00001"):
                if os.path.exists(old + suffix):
                    os.remove(old + suffix)
        if write_state:
            update_checkpoint_state(save_dir, prefix, self._kept, latest_filename or "checkpoint")
        return prefix

    def restore(self, sess, save_path):
        """Set the variables from the checkpoint; nothing changes when a name, dtype or shape differs."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        save_path = os.fspath(save_path)
        if not checkpoint_exists(save_path):
            raise ValueError("The passed save_path is not a valid checkpoint: %s" % save_path)
        reader = NewCheckpointReader(save_path)
        dtypes = reader.get_variable_to_dtype_map()
        values = []
        for name, v in self._items:
            if not reader.has_tensor(name):
                raise errors.NotFoundError(None, None, "Key %s not found in checkpoint %s (it holds: %s)"
                                           % (name, save_path, ", ".join(sorted(dtypes))))
            value = np.asarray(reader.get_tensor(name))
            if value.shape != tuple(np.shape(v.numpy())) or dtypes[name] != v.dtype.base_dtype:
                raise errors.InvalidArgumentError(
                    None, None, "Restoring %s from %s failed: the checkpoint holds %s %s, the variable is %s %s"
                    % (name, save_path, dtypes[name].name, list(value.shape), v.dtype.base_dtype.name,
                       list(np.shape(v.numpy()))))
            values.append((v, value))
        for v, value in values:
            v.assign(value)
