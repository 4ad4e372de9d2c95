"""tf.train.Saver (save / restore / max_to_keep) in TensorFlow's graph layout and checkpoint format.

The graph holds TF1.15's save ops (`save/Const` the filename, `save/SaveV2`, `save/control_dependency`,
`save/RestoreV2`, `save/Assign*`, `save/restore_all`) and the SaverDef names them, so TensorFlow restores
a lens MetaGraphDef and lens restores TensorFlow's. Checkpoints are tensor bundles (`P.index` +
`P.data-00000-of-00001`, lens/training/bundle.py); lens's earlier `.npz` checkpoints
(lens/training/saver_format.py) still restore. `P.meta` is the MetaGraphDef; TensorFlow's text-format
`checkpoint` file sits next to them.
"""
import numbers
import os
import time
import uuid

import numpy as np

from lens.framework import errors
from lens.framework.eager import executing_eagerly
from lens.framework.graph import Tensor, control_dependencies, get_default_graph, name_scope
from lens.proto import saver_pb2
from lens.training import io_ops
from lens.training.checkpoint_reader import NewCheckpointReader, open_checkpoint  # noqa: F401
from lens.training.checkpoint_utils import (init_from_checkpoint, list_variables, load_checkpoint,  # noqa: F401
                                            load_variable)
from lens.training.meta_graph import export_meta_graph
from lens.training.saver_format import (CheckpointState, _atomic_write, checkpoint_exists, get_checkpoint_mtimes,  # noqa: F401
                                        generate_checkpoint_state_proto, get_checkpoint_state, latest_checkpoint,
                                        remove_checkpoint, update_checkpoint_state)

__all__ = ["Saver", "write_graph", "export_meta_graph", "NewCheckpointReader",
           "init_from_checkpoint", "list_variables", "load_checkpoint", "load_variable", "CheckpointState",
           "checkpoint_exists", "get_checkpoint_mtimes", "get_checkpoint_state", "latest_checkpoint",
           "remove_checkpoint", "update_checkpoint_state", "generate_checkpoint_state_proto", "SaverDef"]

SaverDef = saver_pb2.SaverDef


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
    """Saves and restores variables as TensorFlow's tensor-bundle checkpoints."""

    def __new__(cls, *args, **kwargs):
        # While executing eagerly a Saver writes and reads the variables' values at once.
        if cls is Saver and executing_eagerly():
            from lens.training.saver_eager import EagerSaver
            return EagerSaver(*args, **kwargs)
        return object.__new__(cls)

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False, saver_def=None,
                 builder=None, defer_build=False, allow_empty=False, write_version=2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
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
        self._items = None
        self.saver_def = None
        if saver_def is not None:
            # A SaverDef from an imported MetaGraphDef: its ops are already in the graph.
            self._graph = get_default_graph()
            self.saver_def = saver_def
            self._max_to_keep = saver_def.max_to_keep
            self._keep_hours = saver_def.keep_checkpoint_every_n_hours or keep_checkpoint_every_n_hours
            self._built = True
        elif not defer_build:
            self.build()

    def build(self):
        """Add TF1.15's save and restore ops for the variables (under `save/`) and fill saver_def."""
        if self._built:
            return
        self._graph = get_default_graph()
        self._items = _saveable_items(self._var_list)
        if not self._items:
            if not self._allow_empty:
                raise ValueError("No variables to save")
            self._built = True
            return
        from lens.ops.core import placeholder_with_default
        with self._graph.as_default(), name_scope(self._name, "save") as scope:
            filename = placeholder_with_default(self._filename or "model", shape=(), name="filename")
            filename = placeholder_with_default(filename, shape=(), name="Const")
            if self._sharded:
                save_tensor = self._sharded_save(filename)
                restore_op = self._restore(filename, "restore_shard")
                from lens.ops.core import group
                restore_op = group(restore_op, name="restore_all")
            else:
                save_tensor = self._save(filename)
                restore_op = self._restore(filename, "restore_all")
        self._scope = scope
        self.saver_def = saver_pb2.SaverDef(
            filename_tensor_name=filename.name, save_tensor_name=save_tensor.name,
            restore_op_name=restore_op.name, max_to_keep=self._max_to_keep or 0, sharded=bool(self._sharded),
            keep_checkpoint_every_n_hours=self._keep_hours, version=saver_pb2.SaverDef.V2)
        self._built = True

    def _save(self, filename):
        from lens.ops.core import identity
        names = [n for n, _ in self._items]
        save = io_ops.save_v2(filename, names, [""] * len(names), [ref for _, ref in self._items])
        with name_scope(None, "control_dependency") as dep_name, control_dependencies([save]):
            return identity(filename, name=dep_name)

    def _sharded_save(self, filename):
        # TF1.15's layout: save into `<prefix>_temp_<uuid>/part-00000-of-00001`, then merge into <prefix>.
        from lens.framework.convert import constant
        from lens.ops.array import stack
        from lens.ops.core import identity
        from lens.ops.string_ops import string_join
        tmp_prefix = string_join([filename, "_temp_%s/part" % uuid.uuid4().hex])
        num_shards = constant(1, name="num_shards")
        part = io_ops.sharded_filename(tmp_prefix, 0, num_shards)
        saved = self._save(part)
        with control_dependencies([saved.op]):
            merge = io_ops.merge_v2_checkpoints(stack([part]), filename, delete_old_dirs=True)
            with control_dependencies([merge]):
                return identity(filename)

    def _restore(self, filename, name):
        from lens.ops.array import reshape
        from lens.ops.core import group
        from lens.ops.variables import assign
        names = [n for n, _ in self._items]
        restored = io_ops.restore_v2(filename, names, [""] * len(names),
                                     [ref.dtype.base_dtype for _, ref in self._items])
        assigns = []
        for (_, ref), value in zip(self._items, restored):
            if self._reshape and ref.shape.is_fully_defined():
                value = reshape(value, ref.shape.as_list())
            assigns.append(assign(ref, value, validate_shape=not self._reshape and ref.shape.is_fully_defined(),
                                  use_locking=True, name="Assign"))
        return group(*assigns, name=name)

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

    def _record(self, prefix, meta_graph_suffix):
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
                remove_checkpoint(p, meta_graph_suffix=meta_graph_suffix)
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
        if self.saver_def is None:
            return None
        # Fed as bytes: a string tensor's value in lens (TensorFlow converts a str feed the same way).
        sess.run(self.saver_def.save_tensor_name, {self.saver_def.filename_tensor_name: prefix.encode("utf-8")})
        self._record(prefix, meta_graph_suffix)
        if write_state:
            kept = self.last_checkpoints
            stamps = [t for _, t in self._last_checkpoints if t is not None] if self._max_to_keep else []
            update_checkpoint_state(save_dir, prefix, kept, latest_filename,
                                    all_model_checkpoint_timestamps=stamps if len(stamps) == len(kept) else None,
                                    last_preserved_timestamp=self._last_preserved,
                                    save_relative_paths=self._save_relative_paths)
        if write_meta_graph:
            export_meta_graph(prefix + "." + meta_graph_suffix, graph=self._graph, saver_def=self.saver_def)
        return prefix

    def restore(self, sess, save_path):
        """Set the variables from the checkpoint save_path; nothing changes when any check fails."""
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        if not self._built:
            raise RuntimeError("`build()` should be called before restore if defer_build==True")
        save_path = os.fspath(save_path)
        if not checkpoint_exists(save_path):
            hint = ""
            if os.path.exists(save_path + ".data-00000-of-00001"):
                hint = " (its .data file is there but its .index is missing: an incomplete checkpoint)"
            raise ValueError("The passed save_path is not a valid checkpoint: %s%s. Pass the prefix given to "
                             "Saver.save (e.g. tf.train.latest_checkpoint(dir)), without .index/.data." %
                             (save_path, hint))
        if self._items:
            self._check(open_checkpoint(save_path), save_path)
        if self.saver_def is not None:
            sess.run(self.saver_def.restore_op_name,
                     {self.saver_def.filename_tensor_name: save_path.encode("utf-8")})

    def _check(self, reader, save_path):
        """Raise before any variable changes when a name is missing or a dtype or shape differs."""
        missing, mismatched = [], []
        for (name, ref) in self._items:
            if name not in reader.entries:
                missing.append("Key %s not found in checkpoint (variable %s)" % (name, ref.name))
                continue
            dtype, shape = reader.dtype(name), reader.shape(name)
            if dtype != ref.dtype.base_dtype:
                mismatched.append("variable %s: the checkpoint holds %s, the graph has %s"
                                  % (name, dtype.name, ref.dtype.base_dtype.name))
            if not ref.shape.is_compatible_with(shape):
                same_size = ref.shape.is_fully_defined() and \
                    int(np.prod(ref.shape.as_list())) == int(np.prod(shape))
                if not (self._reshape and same_size):
                    mismatched.append("variable %s: shape %s in the graph but %s in the checkpoint (Assign requires "
                                      "shapes of both tensors to match)" % (name, ref.shape.as_list(), shape))
        if missing:
            raise errors.NotFoundError(None, None, "Restoring from checkpoint %s failed: %s. The checkpoint holds: "
                                       "%s. Restore a subset with Saver(var_list=[...]) or map names with "
                                       "Saver(var_list={'name in checkpoint': variable})."
                                       % (save_path, "; ".join(missing + mismatched), ", ".join(reader.names())))
        if mismatched:
            raise errors.InvalidArgumentError(None, None, "Restoring from checkpoint %s failed: %s. Build the model "
                                              "with the checkpoint's shapes and dtypes, or leave these variables "
                                              "out of var_list." % (save_path, "; ".join(mismatched)))

    def as_saver_def(self):
        """The SaverDef naming this saver's filename tensor, save tensor and restore op."""
        return self.saver_def if self.saver_def is not None else saver_pb2.SaverDef(
            max_to_keep=self._max_to_keep or 0, keep_checkpoint_every_n_hours=self._keep_hours,
            version=saver_pb2.SaverDef.V2)

    def to_proto(self, export_scope=None):
        """The SaverDef."""
        return self.as_saver_def()

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False, export_scope=None,
                          clear_devices=False, clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """The MetaGraphDef of this saver's graph (written to filename when given)."""
        # An empty saver (no variables) exports no SaverDef, as TF1's: TensorFlow rejects one naming no ops.
        return export_meta_graph(filename, graph=self._graph, saver_def=self.saver_def, as_text=as_text,
                                 collection_list=collection_list, clear_devices=clear_devices)


def write_graph(graph_or_graph_def, logdir, name, as_text=True):
    """Write a GraphDef to logdir/name (text format when as_text); returns the path."""
    from google.protobuf import text_format
    graph_def = graph_or_graph_def.as_graph_def() if hasattr(graph_or_graph_def, "as_graph_def") \
        else graph_or_graph_def
    if not hasattr(graph_def, "SerializeToString"):
        raise TypeError("write_graph needs a Graph or a GraphDef, got %s" % type(graph_or_graph_def).__name__)
    os.makedirs(logdir, exist_ok=True)
    path = os.path.join(logdir, name)
    _atomic_write(path, text_format.MessageToString(graph_def) if as_text else graph_def.SerializeToString())
    return path
