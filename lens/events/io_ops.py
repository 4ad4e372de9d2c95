"""File ops: MatchingFiles (tf.matching_files), ReadFile (tf.read_file), WriteFile (tf.write_file)."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.events import gfile

__all__ = ["matching_files", "read_file", "write_file"]


def _str(v):
    v = v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v
    return v.decode() if isinstance(v, bytes) else str(v)


def _matching_files(op, ctx):
    def run(pattern):
        patterns = np.asarray(pattern, dtype=object).reshape(-1)
        found = sorted({m for p in patterns for m in gfile.glob(_str(p))})
        return np.array([m.encode() for m in found], dtype=object).reshape(-1)
    return run


def _read_file(op, ctx):
    def run(filename):
        name = _str(filename)
        try:
            with gfile.GFile(name, "rb") as f:
                return np.array(f.read(), dtype=object)
        except errors.OpError as e:
            raise type(e)(None, op, e.message) from None
    return run


def _write_file(op, ctx):
    def run(filename, contents):
        name = _str(filename)
        parent = name.rsplit("/", 1)[0] if "/" in name else ""
        if parent and not gfile.exists(parent):
            gfile.makedirs(parent)     # TF's WriteFile creates missing directories
        with gfile.GFile(name, "wb") as f:
            f.write(np.asarray(contents, dtype=object)[()])
    return run


register_op("MatchingFiles", make=_matching_files, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([None])])
register_op("ReadFile", make=_read_file, not_differentiable=True, stateful=True, shape=lambda op: [TensorShape([])])
register_op("WriteFile", make=_write_file, not_differentiable=True, stateful=True)


def matching_files(pattern, name=None):
    """A 1-D string tensor of the files matching a glob pattern (or a vector of patterns), sorted."""
    out = apply_op("MatchingFiles", [(pattern, "pattern")], name=name or "MatchingFiles", dtypes=[_dt.string],
                   input_dtype=_dt.string)
    rank = out.op.inputs[0].shape.ndims
    if rank not in (None, 0, 1):
        raise ValueError("Shape must be at most rank 1 but is rank %d for 'MatchingFiles' (pattern)" % rank)
    return out


def read_file(filename, name=None):
    """The whole contents of a file as a scalar string."""
    return apply_op("ReadFile", [(filename, "filename")], name=name or "ReadFile", dtypes=[_dt.string],
                    input_dtype=_dt.string)


def write_file(filename, contents, name=None):
    """An op writing the scalar string contents to filename (replacing it)."""
    return apply_op("WriteFile", [(filename, "filename"), (contents, "contents")], name=name or "WriteFile",
                    dtypes=[], input_dtype=_dt.string)
