"""TF's checkpoint ops (SaveV2, RestoreV2, MergeV2Checkpoints, ShardedFilename) with kernels on the bundle.

A Saver's graph is TensorFlow's: these ops read and write the tensor bundle, so a MetaGraphDef lens
exports restores in TensorFlow and one TensorFlow exports restores in lens.
"""
import os
import re
import shutil

import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape
from lens.ops.variables import hand_over
from lens.training import bundle
from lens.training.checkpoint_reader import open_checkpoint


def _text(value):
    v = np.asarray(value, dtype=object).item() if np.ndim(value) == 0 else value
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def _texts(values):
    return [x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in np.asarray(values, dtype=object).ravel()]


def _check_whole(op, names, slices):
    for n, s in zip(names, slices):
        if s:
            raise errors.UnimplementedError(None, op, "%s: tensor %s has slice spec %r; lens saves and restores "
                                            "whole tensors only (no partitioned variables)" % (op.name, n, s))


# ------------------------------------------------------------------ SaveV2
def _save_make(op, ctx):
    def run(prefix, tensor_names, shape_and_slices, *tensors):
        names, slices = _texts(tensor_names), _texts(shape_and_slices)
        if len(names) != len(tensors) or len(slices) != len(tensors):
            raise errors.InvalidArgumentError(None, op, "%s: got %d tensor names and %d slice specs for %d "
                                              "tensors" % (op.name, len(names), len(slices), len(tensors)))
        _check_whole(op, names, slices)
        path = _text(prefix)
        parent = os.path.dirname(path) or "."
        if not os.path.isdir(parent) and os.path.isdir(os.path.dirname(parent) or "."):
            os.makedirs(parent, exist_ok=True)      # as TF's bundle writer: a sharded save's temp dir
        if not os.path.isdir(parent):
            raise errors.NotFoundError(None, op, "Failed to create a NewWriteableFile: %s.data-00000-of-00001: "
                                       "the directory %s does not exist" % (path, parent))
        bundle.write_bundle(path, list(zip(names, tensors)))
    return run


register_op("SaveV2", make=_save_make, not_differentiable=True, stateful=True)


def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """The SaveV2 op: write tensors under tensor_names to the bundle at prefix."""
    g = get_default_graph()
    with name_scope(name, "SaveV2") as scope:
        inputs = [convert_to_tensor(prefix, _dt.string, name="prefix"),
                  convert_to_tensor(tensor_names, _dt.string, name="tensor_names"),
                  convert_to_tensor(shape_and_slices, _dt.string, name="shape_and_slices")]
        values = [convert_to_tensor(t) for t in tensors]
        return g._create_op("SaveV2", inputs + values, [], {"dtypes": [v.dtype.base_dtype for v in values]},
                            scope, frames_skip=3)


# ------------------------------------------------------------------ RestoreV2
def _restore_make(op, ctx):
    dtypes = op._attrs["dtypes"]

    def run(prefix, tensor_names, shape_and_slices):
        names, slices = _texts(tensor_names), _texts(shape_and_slices)
        if len(names) != len(dtypes):
            raise errors.InvalidArgumentError(None, op, "%s: %d tensor names for %d dtypes"
                                              % (op.name, len(names), len(dtypes)))
        _check_whole(op, names, slices)
        reader = open_checkpoint(_text(prefix))
        for n, dt in zip(names, dtypes):
            if n not in reader.entries:
                raise errors.NotFoundError(None, op, "Key %s not found in checkpoint %s" % (n, reader.prefix))
            if reader.dtype(n) != dt.base_dtype:
                raise errors.InvalidArgumentError(None, op, "tensor_name = %s; expected dtype %s does not equal "
                                                  "original dtype %s" % (n, dt.base_dtype.name, reader.dtype(n).name))
        values = reader.read(names)
        out = tuple(hand_over(values[n]) for n in names)
        return out[0] if len(out) == 1 else out   # one output: the plan expects the value itself
    return run


def _restore_shape(op):
    return [unknown_shape()] * len(op._attrs["dtypes"])


register_op("RestoreV2", make=_restore_make, shape=_restore_shape, not_differentiable=True, stateful=True)


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes, name=None):
    """The RestoreV2 op: one output per name, read from the bundle at prefix."""
    g = get_default_graph()
    dtypes = [_dt.as_dtype(d).base_dtype for d in dtypes]
    with name_scope(name, "RestoreV2") as scope:
        inputs = [convert_to_tensor(prefix, _dt.string, name="prefix"),
                  convert_to_tensor(tensor_names, _dt.string, name="tensor_names"),
                  convert_to_tensor(shape_and_slices, _dt.string, name="shape_and_slices")]
        op = g._create_op("RestoreV2", inputs, dtypes, {"dtypes": dtypes}, scope, frames_skip=3)
    return list(op._outputs)


# ------------------------------------------------------------------ sharded saves
def _sharded_filename(basename, shard, num_shards):
    b = np.asarray(basename, dtype=object)
    return np.asarray(_text(b).encode("utf-8") + b"-%05d-of-%05d" % (int(shard), int(num_shards)), dtype=object)


register_op("ShardedFilename", fn=_sharded_filename, shape=lambda op: [TensorShape([])], not_differentiable=True)


def sharded_filename(basename, shard, num_shards, name=None):
    """`basename-00000-of-00001`."""
    g = get_default_graph()
    with name_scope(name, "ShardedFilename") as scope:
        inputs = [convert_to_tensor(basename, _dt.string, name="basename"),
                  convert_to_tensor(shard, _dt.int32, name="shard"),
                  convert_to_tensor(num_shards, _dt.int32, name="num_shards")]
        return g._create_op("ShardedFilename", inputs, [_dt.string], {}, scope, frames_skip=3)._outputs[0]


def _merge_make(op, ctx):
    delete_old_dirs = op._attrs.get("delete_old_dirs", True)

    def run(checkpoint_prefixes, destination_prefix):
        sources, dest = _texts(checkpoint_prefixes), _text(destination_prefix)
        merge_bundles(sources, dest)
        if delete_old_dirs:
            for src in sources:
                parent = os.path.dirname(src)
                if parent and os.path.isdir(parent) and not os.listdir(parent):
                    shutil.rmtree(parent, ignore_errors=True)
    return run


def merge_bundles(sources, dest):
    """Merge single-shard bundles into one bundle at dest (shard i comes from sources[i]); sources are removed."""
    readers = [bundle.BundleReader(s) for s in sources]
    n = len(readers)
    for r in readers:
        if r.header.num_shards != 1:
            raise errors.UnimplementedError(None, None, "MergeV2Checkpoints: %s has %d shards; lens merges "
                                            "single-shard parts" % (r.prefix, r.header.num_shards))
    for i, r in enumerate(readers):
        os.replace(bundle.data_path(r.prefix), bundle.data_path(dest, i, n))
    bundle.write_merged_index(dest, readers)      # the index lands last
    for r in readers:
        os.remove(r.prefix + ".index")
    return dest


register_op("MergeV2Checkpoints", make=_merge_make, not_differentiable=True, stateful=True)


def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, delete_old_dirs=True, name=None):
    """The MergeV2Checkpoints op."""
    g = get_default_graph()
    with name_scope(name, "MergeV2Checkpoints") as scope:
        inputs = [convert_to_tensor(checkpoint_prefixes, _dt.string, name="checkpoint_prefixes"),
                  convert_to_tensor(destination_prefix, _dt.string, name="destination_prefix")]
        return g._create_op("MergeV2Checkpoints", inputs, [], {"delete_old_dirs": bool(delete_old_dirs)}, scope,
                            frames_skip=3)


# ------------------------------------------------------------------ StaticRegexFullMatch
def _static_regex_make(op, ctx):
    # TensorFlow's sharded savers test the prefix against "^s3://.*" (RE2; Python's re agrees on it).
    pattern = re.compile(op._attrs["pattern"].encode("utf-8") if isinstance(op._attrs["pattern"], str)
                         else op._attrs["pattern"])

    def run(x):
        arr = np.asarray(x, dtype=object)
        flat = [bool(pattern.fullmatch(s if isinstance(s, bytes) else str(s).encode("utf-8"))) for s in arr.ravel()]
        return np.array(flat, dtype=bool).reshape(arr.shape)
    return run


register_op("StaticRegexFullMatch", make=_static_regex_make, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True)
