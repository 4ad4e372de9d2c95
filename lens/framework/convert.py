"""convert_to_tensor, constant and the op-application helper every wrapper uses."""
import numbers

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.graph import Tensor, get_default_graph
from lens.framework.tensor_shape import TensorShape

_CONVERSIONS = []  # (type, fn(value, dtype, name, as_ref) -> Tensor)


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Teach convert_to_tensor about a new type (e.g. Variable); conversion_func may return NotImplemented."""
    _CONVERSIONS.append((base_type, conversion_func))


def _infer_numpy(value, dtype):
    """A numpy array for value with TF1's dtype inference (float -> float32, int -> int32)."""
    if dtype is not None:
        np_t = dtype.as_numpy_dtype
        if dtype is _dt.string:
            arr = np.array(value, dtype=object)
            return np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(arr) if arr.size else arr
        arr = np.asarray(value)
        if arr.dtype.kind == "O":
            arr = np.array(value.tolist() if hasattr(value, "tolist") else value)
        if dtype.is_integer and arr.dtype.kind == "f":
            if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)) or arr.dtype != np.float64 or isinstance(value, np.ndarray):
                raise TypeError("Expected %s, got %r of type '%s' instead."
                                % (dtype.name, value, type(value).__name__))
        if dtype.is_integer and arr.dtype.kind == "b":
            raise TypeError("Expected %s, got %r of type '%s' instead." % (dtype.name, value, type(value).__name__))
        if dtype is _dt.bool and arr.dtype.kind not in "b":
            raise TypeError("Expected bool, got %r of type '%s' instead." % (value, type(value).__name__))
        if arr.dtype.kind == "c" and not dtype.is_complex:
            raise TypeError("Expected %s, got %r instead." % (dtype.name, value))
        if arr.dtype.kind in "SUO" and dtype is not _dt.string:
            raise TypeError("Expected %s, got %r of type '%s' instead."
                            % (dtype.name, value, type(value).__name__))
        return arr.astype(np_t, copy=False)
    if isinstance(value, np.ndarray):
        arr = value
    elif isinstance(value, np.generic):
        arr = np.asarray(value)
    else:
        arr = np.array(value)
        if arr.dtype == np.float64:
            arr = arr.astype(np.float32)
        elif arr.dtype.kind == "i" and arr.dtype != np.int32:
            if arr.size == 0 or (arr.min() >= -2**31 and arr.max() < 2**31):
                arr = arr.astype(np.int32)
        elif arr.dtype == np.complex128:
            arr = arr.astype(np.complex128)
    if arr.dtype.kind in "SU" and not isinstance(value, (np.ndarray, np.generic)):
        # NumPy's fixed-width S/U arrays drop trailing NUL bytes: keep each Python string whole.
        arr = np.array(value, dtype=object)
    if arr.dtype.kind in "SUO" and arr.size and any(isinstance(s, str) for s in arr.ravel()):
        arr = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(arr)
    elif arr.dtype.kind in "SU":
        arr = np.vectorize(lambda s: s.encode() if isinstance(s, str) else s, otypes=[object])(arr) if arr.size else arr.astype(object)
    elif arr.dtype.kind == "O":
        if any(isinstance(x, Tensor) for x in arr.ravel()):
            raise TypeError("Cannot build a constant from a list containing Tensors; use tf.stack.")
        if any(x is not None and not isinstance(x, (bytes, str, numbers.Number)) for x in arr.ravel()):
            raise TypeError("Failed to convert elements of %r to Tensor: a tensor holds numbers, bools "
                            "or strings. Consider casting elements to a supported type." % (value,))
    return arr


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A Const op holding value (TF1 dtype inference; shape= reshapes or fills)."""
    if dtype is not None:
        dtype = _dt.as_dtype(dtype).base_dtype
    arr = _infer_numpy(value, dtype)
    if shape is not None:
        shape = [int(d) for d in (shape.as_list() if isinstance(shape, TensorShape) else
                                  ([shape] if isinstance(shape, numbers.Integral) else shape))]
        n = int(np.prod(shape)) if shape else 1
        if verify_shape and list(arr.shape) != shape:
            raise TypeError("Expected Tensor's shape: %s, got %s." % (tuple(shape), arr.shape))
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == n:
            arr = arr.reshape(shape)
        else:
            raise ValueError("Too many elements provided. Needed at most %d, but received %d"
                             % (n, arr.size) if arr.size > n else
                             "Expected %d elements for shape %s, got %d" % (n, shape, arr.size))
    out_dtype = _dt.as_dtype(arr.dtype) if dtype is None else dtype
    arr.setflags(write=False)
    g = get_default_graph()
    op = g._create_op("Const", [], [out_dtype], {"value": arr, "dtype": out_dtype}, name,
                      shapes=[arr.shape], frames_skip=3)
    return op._outputs[0]


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, as_ref=False,
                      dtype_hint=None):
    """A Tensor for value: Tensors pass through (dtype checked), others become constants."""
    if dtype is not None:
        dtype = _dt.as_dtype(dtype)
    preferred_dtype = preferred_dtype or dtype_hint
    if isinstance(value, Tensor):
        if dtype is not None and not dtype.is_compatible_with(value.dtype):
            raise ValueError("Tensor conversion requested dtype %s for Tensor with dtype %s: %r"
                             % (dtype.name, value.dtype.name, value))
        return value
    for base_type, fn in _CONVERSIONS:
        if isinstance(value, base_type):
            # A function may decline with NotImplemented (lists without tensors become constants).
            result = fn(value, dtype=dtype, name=name, as_ref=as_ref)
            if result is not NotImplemented:
                return result
    if dtype is None and preferred_dtype is not None:
        try:
            return constant(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return constant(value, dtype=dtype, name=name or "Const")


convert_to_tensor_v2 = convert_to_tensor


def convert_n_to_tensor(values, dtype=None, name=None):
    """convert_to_tensor over a list."""
    return [convert_to_tensor(v, dtype=dtype, name=None if name is None else "%s_%d" % (name, i))
            for i, v in enumerate(values)]


def graph_of(values):
    """The graph of the first Tensor-like among values, else the default graph."""
    for v in values:
        if isinstance(v, Tensor):
            return v.graph
        g = getattr(v, "graph", None)
        if g is not None and hasattr(g, "_create_op"):
            return g
    return get_default_graph()


def apply_op(op_type, inputs, attrs=None, name=None, dtypes=None, shapes=None,
             input_dtype=None, same_dtype=True):
    """Create op_type in a name scope (non-tensor inputs become '<name>/<arg>' consts).

    inputs: list of values or (value, arg_name); dtypes: output dtypes (default: dtype of the
    first input); returns the single output Tensor, or the Operation when there are no
    outputs, or the list of outputs."""
    pairs = [x if isinstance(x, tuple) and len(x) == 2 and isinstance(x[1], str) else (x, None)
             for x in inputs]
    values = [v for v, _ in pairs]
    g = graph_of(values)
    with g.as_default(), g.name_scope(name or op_type) as scope:
        if input_dtype is None and same_dtype:
            for v in values:
                if isinstance(v, Tensor) or hasattr(v, "_as_graph_element"):
                    input_dtype = v.dtype.base_dtype
                    break
        tensors = []
        for i, (v, arg) in enumerate(pairs):
            arg = arg or ("x" if i == 0 else "y" if i == 1 else "input_%d" % i)
            tensors.append(convert_to_tensor(v, dtype=input_dtype if same_dtype else None, name=arg))
        if same_dtype and tensors:
            base = tensors[0].dtype.base_dtype
            for t in tensors[1:]:
                if t.dtype.base_dtype is not base:
                    raise TypeError("Input 'y' of '%s' Op has type %s that does not match type %s "
                                    "of argument 'x'." % (op_type, t.dtype.name, base.name))
        if dtypes is None:
            dtypes = [tensors[0].dtype.base_dtype]
        op = g._create_op(op_type, tensors, dtypes, attrs, scope, shapes, frames_skip=3)
    outs = op._outputs
    if len(outs) == 1:
        return outs[0]
    if not outs:
        return op
    return outs
