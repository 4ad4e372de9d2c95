"""tf.Assert, the tf.assert_* family and tf.check_numerics."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor, graph_of
from lens.framework.graph import Tensor, name_scope
from lens.framework.registry import register_op


def _summarize(v, n):
    """TF's summary of a value inside 'assertion failed' messages: first n items, space separated."""
    a = np.asarray(v)
    if a.dtype.kind in "OSU":
        items = [x.decode(errors="replace") if isinstance(x, bytes) else str(x) for x in a.ravel()[:n]]
    else:
        items = [np.format_float_positional(x, trim="-") if a.dtype.kind == "f" else str(x)
                 for x in a.ravel()[:n].tolist()]
    return " ".join(items) + ("..." if a.size > n else "")


def _assert_make(op, ctx):
    summarize = op._attrs.get("summarize", 3)

    def run(condition, *data):
        if not np.all(condition):
            text = " ".join("[%s]" % _summarize(d, summarize) for d in data)
            raise errors.InvalidArgumentError(None, op, "assertion failed: " + text)
    return run


register_op("Assert", make=_assert_make, not_differentiable=True, stateful=True)


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """An op raising InvalidArgumentError with data printed when condition is false."""
    data = list(data)
    g = graph_of([condition] + data)
    with g.as_default(), name_scope(name, "Assert", [condition] + data):
        cond_t = convert_to_tensor(condition, name="Condition")
        if cond_t.dtype.base_dtype is not _dt.bool:
            raise TypeError("Assert: condition must be a bool tensor, got %s" % cond_t.dtype.name)
        xs = [convert_to_tensor(d) for d in data]
        return g._create_op("Assert", [cond_t] + xs, [], {"summarize": 3 if summarize is None else summarize,
                                                         "T": [x.dtype.base_dtype for x in xs]},
                            "Assert", frames_skip=3)


def _static(t):
    from lens.ops.shapes import const_value
    try:
        return const_value(t)
    except Exception:  # noqa: BLE001 - not statically known
        return None


def _binary_assert(x, y, data, summarize, message, name, default_name, np_cmp, op_text, tf_cmp):
    with name_scope(name, default_name, [x, y] + list(data or [])):
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        if data is None:
            data = ["Condition x %s y did not hold element-wise:" % op_text,
                    "x (%s) = " % x.name, x, "y (%s) = " % y.name, y]
        if message is not None:
            data = [message] + list(data)
        xs, ys = _static(x), _static(y)
        if xs is not None and ys is not None and not np.all(np_cmp(xs, ys)):
            texts = [d if isinstance(d, str) else _summarize(_static(d), summarize or 3)
                     if isinstance(d, Tensor) and _static(d) is not None else str(d) for d in data]
            raise errors.InvalidArgumentError(None, None, "\n".join(texts))
        from lens.ops.reduce import reduce_all
        condition = reduce_all(tf_cmp(x, y))
        return Assert(condition, data, summarize=summarize)


def _cmp(name):
    from lens.ops import logic
    return getattr(logic, name)


def assert_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Assert x == y element-wise."""
    return _binary_assert(x, y, data, summarize, message, name, "assert_equal", np.equal, "==",
                          _cmp("equal"))


def assert_none_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Assert x != y element-wise."""
    return _binary_assert(x, y, data, summarize, message, name, "assert_none_equal", np.not_equal, "!=",
                          _cmp("not_equal"))


def assert_less(x, y, data=None, summarize=None, message=None, name=None):
    """Assert x < y element-wise."""
    return _binary_assert(x, y, data, summarize, message, name, "assert_less", np.less, "<",
                          _cmp("less"))


def assert_less_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Assert x <= y element-wise."""
    return _binary_assert(x, y, data, summarize, message, name, "assert_less_equal", np.less_equal, "<=",
                          _cmp("less_equal"))


def assert_greater(x, y, data=None, summarize=None, message=None, name=None):
    """Assert x > y element-wise."""
    return _binary_assert(x, y, data, summarize, message, name, "assert_greater", np.greater, ">",
                          _cmp("greater"))


def assert_greater_equal(x, y, data=None, summarize=None, message=None, name=None):
    """Assert x >= y element-wise."""
    return _binary_assert(x, y, data, summarize, message, name, "assert_greater_equal", np.greater_equal,
                          ">=", _cmp("greater_equal"))


def _sign_assert(x, data, summarize, message, name, default_name, text, zero_first, fn):
    with name_scope(name, default_name, [x] + list(data or [])):
        x = convert_to_tensor(x, name="x")
        if data is None:
            data = ["Condition x %s did not hold element-wise:" % text, "x (%s) = " % x.name, x]
        if message is not None:
            data = [message] + list(data)
        zero = convert_to_tensor(0, dtype=x.dtype.base_dtype)
        return fn(zero, x, data=data, summarize=summarize) if zero_first else \
            fn(x, zero, data=data, summarize=summarize)


def assert_positive(x, data=None, summarize=None, message=None, name=None):
    """Assert x > 0 element-wise."""
    return _sign_assert(x, data, summarize, message, name, "assert_positive", "> 0", True, assert_less)


def assert_negative(x, data=None, summarize=None, message=None, name=None):
    """Assert x < 0 element-wise."""
    return _sign_assert(x, data, summarize, message, name, "assert_negative", "< 0", False, assert_less)


def assert_non_negative(x, data=None, summarize=None, message=None, name=None):
    """Assert x >= 0 element-wise."""
    return _sign_assert(x, data, summarize, message, name, "assert_non_negative", ">= 0", True,
                        assert_less_equal)


def assert_non_positive(x, data=None, summarize=None, message=None, name=None):
    """Assert x <= 0 element-wise."""
    return _sign_assert(x, data, summarize, message, name, "assert_non_positive", "<= 0", False,
                        assert_less_equal)


def _rank_assert(x, rank, message, name, default_name, ok, relation):
    from lens.ops import array as A
    from lens.ops.core import no_op
    with name_scope(name, default_name, [x, rank]):
        x = convert_to_tensor(x, name="x")
        rank_t = convert_to_tensor(rank, name="rank")
        want = _static(rank_t)
        prefix = "%s.  " % message if message else ""
        if want is not None and x.shape.ndims is not None:
            if not ok(x.shape.ndims, int(want)):
                raise ValueError("%sTensor %s must have rank %s%d.  Received rank %d, shape %s"
                                 % (prefix, x.name, relation, int(want), x.shape.ndims, x.shape))
            return no_op(name="static_checks_determined_all_ok")
        from lens.ops import logic
        cmp = logic.equal if relation == "" else logic.greater_equal
        return Assert(cmp(A.rank(x), rank_t), [prefix + "Tensor %s must have rank %s" % (x.name, relation),
                                                rank_t, "Received shape: ", A.shape(x)])


def assert_rank(x, rank, data=None, summarize=None, message=None, name=None):
    """Assert x has the given rank (static check when the rank is known)."""
    return _rank_assert(x, rank, message, name, "assert_rank", lambda a, b: a == b, "")


def assert_rank_at_least(x, rank, data=None, summarize=None, message=None, name=None):
    """Assert x has at least the given rank."""
    return _rank_assert(x, rank, message, name, "assert_rank_at_least", lambda a, b: a >= b, "at least ")


def assert_type(tensor, tf_type, message=None, name=None):
    """Statically assert tensor has dtype tf_type (TypeError otherwise)."""
    from lens.ops.core import no_op
    tensor = convert_to_tensor(tensor)
    want = _dt.as_dtype(tf_type).base_dtype
    if tensor.dtype.base_dtype is not want:
        raise TypeError("%s%s must be of type %s; got %s" % ("%s  " % message if message else "",
                                                           tensor.name, want.name, tensor.dtype.name))
    return no_op(name=name or "statically_determined_correct_type")


# ------------------------------------------------------------------ check_numerics
def _check_numerics_make(op, ctx):
    message = op._attrs.get("message", "")

    def run(x):
        a = np.asarray(x)
        if a.dtype.kind in "fc":
            nan, inf = bool(np.isnan(a).any()), bool(np.isinf(a).any())
            if nan or inf:
                what = "Inf and NaN" if nan and inf else ("NaN" if nan else "Inf")
                raise errors.InvalidArgumentError(None, op, "%s : Tensor had %s values" % (message, what))
        return x
    return run


def _check_numerics_grad(op, grad):
    return [check_numerics(grad, "Not a number (NaN) or infinity (Inf) values detected in gradient. %s"
                           % op._attrs.get("message", ""))]


register_op("CheckNumerics", make=_check_numerics_make, grad=_check_numerics_grad, stateful=True,
            shape=lambda op: [op._inputs[0].shape])


def check_numerics(tensor, message, name=None):
    """tensor unchanged, or InvalidArgumentError '<message> : Tensor had NaN values' (or Inf)."""
    from lens.framework.convert import apply_op
    x = convert_to_tensor(tensor)
    if not (x.dtype.base_dtype.is_floating or x.dtype.base_dtype.is_complex):
        raise TypeError("Value passed to parameter 'tensor' has DataType %s not in list of allowed "
                        "values: float16, float32, float64" % x.dtype.name)
    return apply_op("CheckNumerics", [(x, "tensor")], {"message": message, "T": x.dtype.base_dtype},
                    name=name or "CheckNumerics")


def verify_tensor_all_finite(t, msg, name=None):
    """t after checking it has no NaN or Inf (TF1's tf.verify_tensor_all_finite)."""
    return check_numerics(t, msg, name=name or "VerifyFinite")


__all__ = ["Assert", "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_rank", "assert_rank_at_least",
           "assert_type", "check_numerics", "verify_tensor_all_finite"]
