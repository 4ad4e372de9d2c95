"""Elementwise math and cast: binary and unary ops with NumPy kernels (gradients needing array ops: math_grad.py)."""
import numpy as np

from lens.framework import dtypes as _dt, errors
from lens.framework.convert import apply_op, convert_to_tensor, graph_of
from lens.framework.graph import Tensor, name_scope
from lens.framework.registry import register_op
from lens.ops.conv_np import Recycler
from lens.ops.core import identity
from lens.ops.cwise_grad_ops import reciprocal_grad, rsqrt_grad, sigmoid_grad, sqrt_grad, tanh_grad
from lens.ops.shapes import broadcast_shapes


def _bcast_shape(op):
    return [broadcast_shapes(op._inputs[0].shape, op._inputs[1].shape)]


def _same_shape(op):
    return [op._inputs[0].shape]


def _bool_bcast_shape(op):
    return _bcast_shape(op)


def _int_div(a, b):
    return np.floor_divide(a, b) if np.asarray(a).dtype.kind in "iu" else np.true_divide(a, b)


def checked_int_division(fn):
    """fn(a, b), failing as TF's kernels do where an integer divisor is 0 (NumPy gives 0 silently)."""
    def run(a, b):
        kind = b.dtype.kind if hasattr(b, "dtype") else np.asarray(b).dtype.kind
        if kind in "iu" and not np.all(b):
            raise errors.InvalidArgumentError(None, None, "Integer division by zero")
        return fn(a, b)
    return run


_BINARY = [
    # op type, numpy kernel; the gradients need array and reduce ops (above math), so math_grad.py has them
    ("Add", np.add),
    ("AddV2", np.add),
    ("Sub", np.subtract),
    ("Mul", np.multiply),
    ("RealDiv", np.true_divide),
    ("Div", checked_int_division(_int_div)),
    ("DivNoNan", lambda a, b: np.where(b == 0, np.zeros_like(a), np.true_divide(a, np.where(b == 0, 1, b)))),
    ("FloorDiv", checked_int_division(np.floor_divide)),
    ("FloorMod", checked_int_division(np.mod)),
    ("Pow", np.power),
    ("Maximum", np.maximum),
    ("Minimum", np.minimum),
    ("SquaredDifference", lambda a, b: np.square(np.subtract(a, b))),
]

# Sums from this size up (a layer's `x @ w + b`) are written into the op's previous output once
# nothing holds it any more: a fresh big block may come as new pages, each faulted in and zeroed.
RECYCLE_MIN_BYTES = 1 << 16
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _add_make(op, ctx):
    shape = op._outputs[0].shape
    if shape.is_fully_defined() and shape.num_elements() * 8 < RECYCLE_MIN_BYTES:
        return np.add       # small for sure: the plain ufunc, no wrapper on tiny graphs
    recycler = Recycler(RECYCLE_MIN_BYTES)
    ndarray, add = np.ndarray, np.add

    def run(a, b):
        if type(a) is ndarray and type(b) is ndarray and a.dtype == b.dtype and a.dtype in _FLOATS \
                and a.nbytes >= RECYCLE_MIN_BYTES and a.ndim >= 1 \
                and (b.shape == a.shape or (b.ndim == 1 and b.shape[0] == a.shape[-1])):
            return recycler.give(add(a, b, out=recycler.take(a.shape, a.dtype)))
        return add(a, b)
    return run


def _add_inplace(op, ctx, donated):
    """Add writing into a donated input that already has the sum's shape and dtype (a layer's
    `x @ w + b` into the product), as TF forwards a buffer nobody else holds."""
    plain = _add_make(op, ctx)
    if plain is np.add:     # small for sure: a fresh result costs less than the checks
        return plain
    ndarray, add = np.ndarray, np.add
    first, second = 0 in donated, 1 in donated

    def run(a, b):
        # Only when the other operand's shape is a suffix of the donated one's (same shape, or
        # a bias row): then the sum has exactly the donated buffer's shape.
        if type(a) is ndarray and type(b) is ndarray and a.dtype == b.dtype and a.dtype in _FLOATS:
            sa, sb = a.shape, b.shape
            if first and len(sb) <= len(sa) and sa[len(sa) - len(sb):] == sb and a.flags.writeable:
                return add(a, b, out=a)
            if second and len(sa) <= len(sb) and sb[len(sb) - len(sa):] == sa and b.flags.writeable:
                return add(a, b, out=b)
        return plain(a, b)
    return run


for _t, _fn in _BINARY:
    if _t in ("Add", "AddV2"):
        register_op(_t, make=_add_make, shape=_bcast_shape, inplace=_add_inplace)
    else:
        register_op(_t, fn=_fn, shape=_bcast_shape, not_differentiable=_t == "FloorDiv")


def _binary(op_type, x, y, name, default_name=None):
    return apply_op(op_type, [(x, "x"), (y, "y")], name=name or default_name or op_type)


def add(x, y, name=None):
    """x + y elementwise (op type Add)."""
    return _binary("Add", x, y, name)


def add_v2(x, y, name=None):
    """x + y (op type AddV2, what `+` builds)."""
    return _binary("AddV2", x, y, name)


def subtract(x, y, name=None):
    """x - y."""
    return _binary("Sub", x, y, name)


def multiply(x, y, name=None):
    """x * y."""
    return _binary("Mul", x, y, name)


def real_div(x, y, name=None):
    """x / y for floats (op RealDiv)."""
    return _binary("RealDiv", x, y, name)


def div_no_nan(x, y, name=None):
    """x / y, 0 where y == 0."""
    return _binary("DivNoNan", x, y, name)


# ------------------------------------------------------------------ Cast
# Cast lives here rather than in array (which re-exports it), as in TF's math_ops: truediv and range need it,
# and array, which sits above math and sequence, uses them.
def _cast_make(op, ctx):
    src, dst = op._attrs["SrcT"], op._attrs["DstT"]
    if (src.base_dtype == _dt.string) != (dst.base_dtype == _dt.string):
        def unsupported(x):
            raise errors.UnimplementedError(
                None, op, "Cast %s to %s is not supported (use tf.strings.to_number / "
                "tf.as_string to convert between strings and numbers)" % (src.name, dst.name))
        return unsupported
    np_dst = dst.as_numpy_dtype
    return lambda x: np.asarray(x).astype(np_dst)


def _cast_grad(op, grad):
    src = op._attrs["SrcT"]
    if (src.is_floating or src.is_complex) and (op._attrs["DstT"].is_floating or op._attrs["DstT"].is_complex):
        return [cast(grad, src)]
    return [None]


register_op("Cast", make=_cast_make, shape=lambda op: [op._inputs[0].shape], grad=_cast_grad)


def cast(x, dtype, name=None):
    """x converted elementwise to dtype."""
    dtype = _dt.as_dtype(dtype).base_dtype
    with name_scope(name, "Cast", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.base_dtype is dtype:
            return x
        return apply_op("Cast", [(x, "x")], {"SrcT": x.dtype.base_dtype, "DstT": dtype, "Truncate": False},
                        name=scope, dtypes=[dtype])


def _int_to_float(t):
    return {"int8": _dt.float32, "uint8": _dt.float32, "int16": _dt.float32, "uint16": _dt.float32,
            "int32": _dt.float64, "int64": _dt.float64}.get(t.dtype.base_dtype.name)


def truediv(x, y, name=None):
    """x / y; integers are cast to floats first (int32 -> float64), as TF1."""
    with name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
        target = _int_to_float(x)
        if target is not None:
            x, y = cast(x, target), cast(y, target)
        return apply_op("RealDiv", [(x, "x"), (y, "y")], name=scope)


def divide(x, y, name=None):
    """x / y (Python 3 semantics)."""
    return truediv(x, y, name=name)


def div(x, y, name=None):
    """TF1's tf.div: floor division for integers, true division for floats."""
    return _binary("Div", x, y, name)


def floordiv(x, y, name=None):
    """floor(x / y)."""
    x = convert_to_tensor(x) if not isinstance(x, Tensor) else x
    if x.dtype.is_floating:
        with name_scope(name, "floordiv", [x, y]) as scope:
            return floor(real_div(x, y), name=scope)
    return _binary("FloorDiv", x, y, name, "floordiv")


floor_div = floordiv


def floormod(x, y, name=None):
    """x mod y with the sign of y (Python semantics)."""
    return _binary("FloorMod", x, y, name)


mod = floormod


def pow(x, y, name=None):  # noqa: A001 - TF's name
    """x ** y."""
    return _binary("Pow", x, y, name)


def maximum(x, y, name=None):
    """Elementwise max."""
    return _binary("Maximum", x, y, name)


def minimum(x, y, name=None):
    """Elementwise min."""
    return _binary("Minimum", x, y, name)


def squared_difference(x, y, name=None):
    """(x - y) ** 2."""
    return _binary("SquaredDifference", x, y, name)


# ------------------------------------------------------------------ unary

def _u(name):
    return lambda x, name=None: apply_op(_UNARY_TYPES[name], [(x, "x")], name=name)


def _neg_grad(op, g):
    return [negative(g)]


def _abs_grad(op, g):
    return [g * sign(op._inputs[0])]


def _square_grad(op, g):
    x = op._inputs[0]
    return [multiply(g, multiply(x, convert_to_tensor(2, dtype=x.dtype.base_dtype)))]


# Sqrt, Rsqrt, Tanh, Sigmoid and Reciprocal backprop through TF's fused gradient ops, as TF1.15's do;
# the other unary gradients use operators, so their nodes are named as TF's (Log_grad/mul).
def _sqrt_grad(op, g):
    return [sqrt_grad(op._outputs[0], g)]


def _rsqrt_grad(op, g):
    return [rsqrt_grad(op._outputs[0], g)]


def _exp_grad(op, g):
    return [g * op._outputs[0]]


def _log_grad(op, g):
    return [g * reciprocal(op._inputs[0])]


def _log1p_grad(op, g):
    x = op._inputs[0]
    return [g * reciprocal(1 + x)]


def _sin_grad(op, g):
    return [g * cos(op._inputs[0])]


def _cos_grad(op, g):
    return [-g * sin(op._inputs[0])]


def _tanh_grad(op, g):
    return [tanh_grad(op._outputs[0], g)]


def _sigmoid_grad(op, g):
    return [sigmoid_grad(op._outputs[0], g)]


def _reciprocal_grad(op, g):
    return [reciprocal_grad(op._outputs[0], g)]


# Marks a unary op whose gradient needs array ops (above math): math_grad.py registers it.
_IN_MATH_GRAD = object()


def _sigmoid(x):
    # Stable for large |x|: exp of a non-positive number only.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(np.result_type(x), copy=False)


def _rsqrt(x):
    return 1 / np.sqrt(x)


def _reciprocal(x):
    return 1 / x if np.asarray(x).dtype.kind == "f" else np.reciprocal(x)


_UNARY = [
    ("Neg", "negative", np.negative, _neg_grad),
    ("Abs", "abs", np.abs, _abs_grad),
    ("Sign", "sign", np.sign, _IN_MATH_GRAD),
    ("Square", "square", np.square, _square_grad),
    ("Sqrt", "sqrt", np.sqrt, _sqrt_grad),
    ("Rsqrt", "rsqrt", _rsqrt, _rsqrt_grad),
    ("Exp", "exp", np.exp, _exp_grad),
    ("Log", "log", np.log, _log_grad),
    ("Log1p", "log1p", np.log1p, _log1p_grad),
    ("Sin", "sin", np.sin, _sin_grad),
    ("Cos", "cos", np.cos, _cos_grad),
    ("Tanh", "tanh", np.tanh, _tanh_grad),
    ("Sigmoid", "sigmoid", _sigmoid, _sigmoid_grad),
    ("Reciprocal", "reciprocal", _reciprocal, _reciprocal_grad),
    ("Floor", "floor", np.floor, None),
    ("Ceil", "ceil", np.ceil, None),
    ("Round", "round", np.round, None),
]
_UNARY_TYPES = {}
for _t, _n, _fn, _g in _UNARY:
    _UNARY_TYPES[_n] = _t
    if _g is None:
        register_op(_t, fn=_fn, shape=_same_shape, not_differentiable=True)
    elif _g is _IN_MATH_GRAD:
        register_op(_t, fn=_fn, shape=_same_shape)
    else:
        register_op(_t, fn=_fn, shape=_same_shape, grad=_g)


def negative(x, name=None):
    """-x."""
    return apply_op("Neg", [(x, "x")], name=name or "Neg")


def abs(x, name=None):  # noqa: A001
    """|x|."""
    return apply_op("Abs", [(x, "x")], name=name or "Abs")


def sign(x, name=None):
    """-1, 0 or 1."""
    return apply_op("Sign", [(x, "x")], name=name or "Sign")


def square(x, name=None):
    """x * x."""
    return apply_op("Square", [(x, "x")], name=name or "Square")


def sqrt(x, name=None):
    """Square root."""
    return apply_op("Sqrt", [(x, "x")], name=name or "Sqrt")


def rsqrt(x, name=None):
    """1 / sqrt(x)."""
    return apply_op("Rsqrt", [(x, "x")], name=name or "Rsqrt")


def exp(x, name=None):
    """e ** x."""
    return apply_op("Exp", [(x, "x")], name=name or "Exp")


def log(x, name=None):
    """Natural logarithm."""
    return apply_op("Log", [(x, "x")], name=name or "Log")


def log1p(x, name=None):
    """log(1 + x)."""
    return apply_op("Log1p", [(x, "x")], name=name or "Log1p")


def sin(x, name=None):
    """Sine."""
    return apply_op("Sin", [(x, "x")], name=name or "Sin")


def cos(x, name=None):
    """Cosine."""
    return apply_op("Cos", [(x, "x")], name=name or "Cos")


def tanh(x, name=None):
    """Hyperbolic tangent."""
    return apply_op("Tanh", [(x, "x")], name=name or "Tanh")


def sigmoid(x, name=None):
    """1 / (1 + exp(-x)), computed stably."""
    return apply_op("Sigmoid", [(x, "x")], name=name or "Sigmoid")


def reciprocal(x, name=None):
    """1 / x."""
    return apply_op("Reciprocal", [(x, "x")], name=name or "Reciprocal")


def floor(x, name=None):
    """Round down."""
    return apply_op("Floor", [(x, "x")], name=name or "Floor")


def ceil(x, name=None):
    """Round up."""
    return apply_op("Ceil", [(x, "x")], name=name or "Ceil")


def round(x, name=None):  # noqa: A001
    """Round half to even."""
    return apply_op("Round", [(x, "x")], name=name or "Round")


def add_n(inputs, name=None):
    """Sum of a list of same-shaped tensors (op AddN)."""
    if not inputs or not isinstance(inputs, (list, tuple)):
        raise ValueError("inputs must be a non-empty list of tensors of the same shape and type.")
    tensors = [convert_to_tensor(x) for x in inputs]
    if len(tensors) == 1:
        return identity(tensors[0], name=name)
    g = graph_of(tensors)
    op = g._create_op("AddN", tensors, [tensors[0].dtype.base_dtype], {"N": len(tensors)},
                      name or "AddN", frames_skip=3)
    return op._outputs[0]


def _add_n_kernel(*xs):
    out = np.add(xs[0], xs[1])
    for x in xs[2:]:
        out += x
    return out


def _add_n_shape(op):
    s = op._inputs[0].shape
    for t in op._inputs[1:]:
        s = s.merge_with(t.shape)
    return [s]


register_op("AddN", fn=_add_n_kernel, shape=_add_n_shape,
            grad=lambda op, g: [g] * len(op._inputs))
