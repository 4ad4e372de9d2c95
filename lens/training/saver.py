"""tf.train.Saver (save / restore / max_to_keep), write_graph and export_meta_graph.

Checkpoints use the lens checkpoint format documented in lens/training/saver_format.py: `P.npz`
(values), `P.index` (JSON: names, dtypes, shapes), `P.meta` (MetaGraphDef), plus TensorFlow's
text-format `checkpoint` state file next to them.
"""
import numbers
import os
import time

import numpy as np

from lens.framework import errors
from lens.framework.graph import Tensor, get_default_graph, name_scope
from lens.training import saver_format as fmt
from lens.training.saver_format import (CheckpointState, checkpoint_exists, get_checkpoint_mtimes,  # noqa: F401
                                            get_checkpoint_state, latest_checkpoint, list_variables,
                                            load_checkpoint, load_variable, remove_checkpoint,
                                            update_checkpoint_state)

__all__ = ["Saver", "write_graph", "export_meta_graph"] + fmt.__all__


def _saveable_items(var_list):
    """[(checkpoint name, ref tensor)] from a list or dict of variables, sorted by name."""
    from lens.ops.variables import Variable, global_variables

    def ref_of(v, what):
        if isinstance(v, Variable):
            return v._ref()
        if isinstance(v, Tensor) and v.dtype.is_ref_dtype:
            return v
        raise TypeError("Saver var_list %s must be a Variable (or a variable reference), got %r" % (what, v))
    if var_list is None:
        var_list = global_variables()
    if isinstance(var_list, dict):
        items = [(str(k), ref_of(v, "entry %r" % k)) for k, v in var_list.items()]
    else:
        items, seen = [], {}
        for v in var_list:
            ref = ref_of(v, "element")
            name = ref.op.name
            if name in seen:
                if seen[name] is ref:
                    continue
                raise ValueError("At least two variables have the same name: %s" % name)
            seen[name] = ref
            items.append((name, ref))
    return sorted(items, key=lambda it: it[0])


class Saver:
    """Saves and restores variables in the lens checkpoint format."""

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False, write_version=2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        self._var_list = var_list
        self._reshape = reshape
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._allow_empty = allow_empty
        self._pad_step_number = pad_step_number
        self._save_relative_paths = save_relative_paths
        self._filename = filename
        self._last_checkpoints = []          # [(prefix, timestamp)], oldest first
        self._to_delete = []
        self._next_keep_time = time.time() + keep_checkpoint_every_n_hours * 3600
        self._last_preserved = time.time()
        self._built = False
        if not defer_build:
            self.build()

    def build(self):
        """Create the restore ops: one placeholder and Assign per variable, grouped as `save/restore_all`."""
        if self._built:
            return
        self._graph = get_default_graph()
        self._items = _saveable_items(self._var_list)
        if not self._items:
            if not self._allow_empty:
                raise ValueError("No variables to save")
            self._built, self._placeholders, self._restore_op = True, [], None
            return
        from lens.ops.core import group, placeholder
        from lens.ops.variables import assign
        with self._graph.as_default(), name_scope(self._name, "save") as scope:
            self._scope = scope
            self._placeholders, assigns = [], []
            for ckpt_name, ref in self._items:
                ph = placeholder(ref.dtype.base_dtype, ref.shape, name="restore_value")
                self._placeholders.append(ph)
                assigns.append(assign(ref, ph, name="Assign"))
            self._restore_op = group(*assigns, name="restore_all")
        self._built = True

    # -- bookkeeping of the checkpoints this saver wrote
    @property
    def last_checkpoints(self):
        """Prefixes of the checkpoints kept by this saver, oldest first."""
        return [p for p, _ in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        """Forget the list and use last_checkpoints (deprecated in TF1; kept for old scripts)."""
        self._last_checkpoints = [(p, None) for p in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        """Use [(prefix, timestamp)] as the kept checkpoints."""
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths):
        """Adopt the existing checkpoints among checkpoint_paths (e.g. after a restart)."""
        found = [p for p in checkpoint_paths if checkpoint_exists(p)]
        self.set_last_checkpoints_with_time(list(zip(found, get_checkpoint_mtimes(found))))

    def _record(self, prefix):
        if not self._max_to_keep:
            return
        self._last_checkpoints = [(p, t) for p, t in self._last_checkpoints if p != prefix]
        self._last_checkpoints.append((prefix, time.time()))
        while len(self._last_checkpoints) > self._max_to_keep:
            self._to_delete.append(self._last_checkpoints.pop(0))
        for p, t in self._to_delete:
            # keep_checkpoint_every_n_hours: one checkpoint per period survives the rotation.
            if t is not None and t > self._next_keep_time:
                self._next_keep_time += self._keep_hours * 3600
                self._last_preserved = t
            else:
                remove_checkpoint(p)
        self._to_delete = []

    # -- save / restore
    def save(self, sess, save_path, global_step=None, latest_filename=None, meta_graph_suffix="meta",
             write_meta_graph=True, write_state=True, strip_default_attrs=False, save_debug_info=False):
        """Write a checkpoint of the variables at save_path[-global_step]; returns its prefix."""
        if not hasattr(sess, "run"):
            raise TypeError("'sess' must be a Session; %r" % (sess,))
        if not self._built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components: %r" % latest_filename)
        save_path = os.fspath(save_path)
        if global_step is not None:
            if not isinstance(global_step, numbers.Integral):
                from lens.training.training_util import global_step as read_step
                global_step = read_step(sess, global_step)
            prefix = ("%s-%08d" if self._pad_step_number else "%s-%d") % (save_path, int(global_step))
        else:
            prefix = save_path
        save_dir = os.path.dirname(prefix) or "."
        if not os.path.isdir(save_dir):
            raise ValueError("Parent directory of %s doesn't exist, can't save. Create it first (os.makedirs)."
                             % save_path)
        if not self._items:
            return None
        values = sess.run([ref for _, ref in self._items])
        fmt._write_data(prefix, [(n, v) for (n, _), v in zip(self._items, values)])
        self._record(prefix)
        if write_state:
            kept = self.last_checkpoints
            stamps = [t for _, t in self._last_checkpoints if t is not None] if self._max_to_keep else []
            update_checkpoint_state(save_dir, prefix, kept, latest_filename,
                                    all_model_checkpoint_timestamps=stamps if len(stamps) == len(kept) else None,
                                    last_preserved_timestamp=self._last_preserved,
                                    save_relative_paths=self._save_relative_paths)
        if write_meta_graph:
            export_meta_graph(prefix + "." + meta_graph_suffix, graph=self._graph, saver_def=self.as_saver_def())
        return prefix

    def restore(self, sess, save_path):
        """Set the variables from the checkpoint save_path; nothing changes when any check fails."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not self._built:
            raise RuntimeError("`build()` should be called before restore if defer_build==True")
        save_path = os.fspath(save_path)
        index = fmt._read_index(save_path)
        entries = {e["name"]: e for e in index["tensors"]}
        missing, mismatched = [], []
        for (name, ref) in self._items:
            e = entries.get(name)
            if e is None:
                missing.append("Key %s not found in checkpoint (variable %s)" % (name, ref.name))
                continue
            if e["dtype"] != ref.dtype.base_dtype.name:
                mismatched.append("variable %s: the checkpoint holds %s, the graph has %s"
                                  % (name, e["dtype"], ref.dtype.base_dtype.name))
            if not ref.shape.is_compatible_with(e["shape"]):
                same_size = ref.shape.is_fully_defined() and \
                    int(np.prod(ref.shape.as_list())) == int(np.prod(e["shape"]))
                if not (self._reshape and same_size):
                    mismatched.append("variable %s: shape %s in the graph but %s in the checkpoint (Assign requires "
                                      "shapes of both tensors to match)" % (name, ref.shape.as_list(), e["shape"]))
        if missing:
            raise errors.NotFoundError(None, None, "Restoring from checkpoint %s failed: %s. The checkpoint holds: "
                                       "%s. Restore a subset with Saver(var_list=[...]) or map names with "
                                       "Saver(var_list={'name in checkpoint': variable})."
                                       % (save_path, "; ".join(missing + mismatched), ", ".join(sorted(entries))))
        if mismatched:
            raise errors.InvalidArgumentError(None, None, "Restoring from checkpoint %s failed: %s. Build the model "
                                              "with the checkpoint's shapes and dtypes, or leave these variables "
                                              "out of var_list." % (save_path, "; ".join(mismatched)))
        values = fmt._read_values(save_path, index, [n for n, _ in self._items])
        feed = {ph: np.reshape(values[n], ph.shape.as_list()) if self._reshape and ph.shape.is_fully_defined()
                else values[n] for ph, (n, _) in zip(self._placeholders, self._items)}
        if self._restore_op is not None:
            sess.run(self._restore_op, feed)

    def as_saver_def(self):
        """A SaverDef naming the restore op (lens saves from Python, so no save tensor is named)."""
        from lens.proto import saver_pb2
        sd = saver_pb2.SaverDef(max_to_keep=self._max_to_keep or 0,
                                keep_checkpoint_every_n_hours=self._keep_hours)
        if getattr(self, "_restore_op", None) is not None:
            sd.restore_op_name = self._restore_op.name
        return sd

    def to_proto(self, export_scope=None):
        """The SaverDef."""
        return self.as_saver_def()

    def export_meta_graph(self, filename=None, as_text=False, **kwargs):
        """The MetaGraphDef of this saver's graph (written to filename when given)."""
        return export_meta_graph(filename, graph=self._graph, saver_def=self.as_saver_def(), as_text=as_text)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Write a GraphDef to logdir/name (text format when as_text); returns the path."""
    from google.protobuf import text_format
    graph_def = graph_or_graph_def.as_graph_def() if hasattr(graph_or_graph_def, "as_graph_def") \
        else graph_or_graph_def
    if not hasattr(graph_def, "SerializeToString"):
        raise TypeError("write_graph needs a Graph or a GraphDef, got %s" % type(graph_or_graph_def).__name__)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    fmt._atomic_write(path, text_format.MessageToString(graph_def) if as_text else graph_def.SerializeToString())
    return path


def export_meta_graph(filename=None, graph=None, saver_def=None, as_text=False, **kwargs):
    """A MetaGraphDef of graph (GraphDef + SaverDef), written to filename when given."""
    from google.protobuf import text_format
    from lens.proto import meta_graph_pb2
    g = graph or get_default_graph()
    meta = meta_graph_pb2.MetaGraphDef()
    meta.meta_info_def.meta_graph_version = "lens"
    meta.graph_def.CopyFrom(g.as_graph_def())
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    if filename:
        fmt._atomic_write(filename, text_format.MessageToString(meta) if as_text else meta.SerializeToString())
    return meta
