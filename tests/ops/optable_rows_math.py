"""Op-table rows: elementwise math, logic, reductions, matmul (NumPy references written here)."""
import numpy as np

import lens as tf
from lens.ops import cwise_grad_ops as CG
from lens.ops.init_ops import diag, diag_part
from optable_lib import AWAY0, FIX, F, Row

BCAST = [[F(3, 4), F(3, 4)], [F(2, 3, 1), F(3, 4)], [F(4), F()]]
NZ = [(0.0, 0.5)]   # divisors kept away from zero


def _binary(op, fn, ref, variants=BCAST, **kw):
    return Row(op, fn, ref, variants, **kw)


def _unary(op, fn, ref, lo=-2.0, hi=2.0, away=None, **kw):
    return Row(op, fn, ref, [[F(3, 4, lo=lo, hi=hi, away=away)], [F(5, lo=lo, hi=hi, away=away)]], **kw)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


ROWS = [
    _binary("Add", tf.add, np.add),
    _binary("AddV2", lambda a, b: a + b, np.add),
    _binary("Sub", tf.subtract, np.subtract),
    _binary("Mul", tf.multiply, np.multiply),
    _binary("RealDiv", tf.truediv, np.divide, [[F(3, 4), F(3, 4, away=NZ)], [F(2, 3), F(3, away=NZ)]]),
    _binary("Div", tf.div, np.divide, [[F(3, 4), F(3, 4, away=NZ)]]),
    _binary("DivNoNan", tf.div_no_nan, lambda a, b: np.where(b == 0, 0, a / np.where(b == 0, 1, b)),
            [[F(3, 4), F(3, 4, away=NZ)], [F(3), FIX([0.0, 2.0, -4.0])]], dtypes=("float64",)),
    _binary("FloorDiv", tf.floordiv, np.floor_divide,
            [[FIX([[7, -7, 3], [0, 9, -2]], np.int32), FIX([2, 3, -2], np.int32)]], grad=False),
    _binary("FloorMod", tf.floormod, np.mod, [[F(3, 4, lo=0.2, hi=0.8), F(3, 4, lo=1.0, hi=2.0)]]),
    _binary("Pow", tf.pow, np.power, [[F(3, 4, lo=0.5, hi=2.0), F(3, 4)], [F(2, 3, lo=0.5, hi=2.0), F(3)]]),
    _binary("Maximum", tf.maximum, np.maximum),
    _binary("Minimum", tf.minimum, np.minimum),
    _binary("SquaredDifference", tf.squared_difference, lambda a, b: (a - b) ** 2),
    _unary("Neg", tf.negative, np.negative),
    _unary("Abs", tf.abs, np.abs, away=AWAY0),
    _unary("Sign", tf.sign, np.sign, away=AWAY0),
    _unary("Square", tf.square, np.square),
    _unary("Sqrt", tf.sqrt, np.sqrt, lo=0.5),
    _unary("Rsqrt", tf.rsqrt, lambda x: 1 / np.sqrt(x), lo=0.5),
    _unary("Exp", tf.exp, np.exp),
    _unary("Log", tf.log, np.log, lo=0.5),
    _unary("Log1p", tf.log1p, np.log1p, lo=-0.5),
    _unary("Sin", tf.sin, np.sin),
    _unary("Cos", tf.cos, np.cos),
    _unary("Tanh", tf.tanh, np.tanh),
    _unary("Sigmoid", tf.sigmoid, _sigmoid),
    _unary("Reciprocal", tf.reciprocal, lambda x: 1 / x, away=NZ),
    # ---- fused gradient ops (y = the forward output, dy = the incoming gradient), as TF1.15 builds them
    *[Row(op, fn, ref, [[F(3, 4, lo=lo, hi=hi), F(3, 4)], [F(5, lo=lo, hi=hi), F(5)]]) for op, fn, ref, lo, hi in [
        ("SigmoidGrad", CG.sigmoid_grad, lambda y, dy: dy * y * (1 - y), 0.1, 0.9),
        ("TanhGrad", CG.tanh_grad, lambda y, dy: dy * (1 - y ** 2), -0.9, 0.9),
        ("SqrtGrad", CG.sqrt_grad, lambda y, dy: dy / (2 * y), 0.5, 2.0),
        ("RsqrtGrad", CG.rsqrt_grad, lambda y, dy: -0.5 * dy * y ** 3, 0.5, 2.0),
        ("ReciprocalGrad", CG.reciprocal_grad, lambda y, dy: -dy * y ** 2, 0.5, 2.0)]],
    _unary("Floor", tf.floor, np.floor, grad=False),
    _unary("Ceil", tf.ceil, np.ceil, grad=False),
    _unary("Round", tf.round, np.round, grad=False),
    Row("AddN", lambda a, b, c: tf.add_n([a, b, c]), lambda a, b, c: a + b + c, [[F(3, 4), F(3, 4), F(3, 4)]]),
    # ---- comparisons and logic (not differentiable)
    *[Row(op, fn, ref, [[FIX([[1, 2, 3], [3, 2, 1]], np.int32), FIX([2, 2, 2], np.int32)],
                        [FIX([0.5, -1.0, 2.0]), FIX([0.5, 1.0, -2.0])]], grad=False)
      for op, fn, ref in [("Equal", tf.equal, np.equal), ("NotEqual", tf.not_equal, np.not_equal),
                          ("Less", tf.less, np.less), ("LessEqual", tf.less_equal, np.less_equal),
                          ("Greater", tf.greater, np.greater),
                          ("GreaterEqual", tf.greater_equal, np.greater_equal)]],
    *[Row(op, fn, ref, [[FIX([[True, False], [True, True]]), FIX([False, True])]], grad=False)
      for op, fn, ref in [("LogicalAnd", tf.logical_and, np.logical_and),
                          ("LogicalOr", tf.logical_or, np.logical_or)]],
    Row("LogicalNot", tf.logical_not, np.logical_not, [[FIX([True, False, True])]], grad=False),
    *[Row(op, fn, ref, [[FIX([1.0, np.nan, np.inf, -np.inf, 0.0])]], grad=False)
      for op, fn, ref in [("IsNan", tf.is_nan, np.isnan), ("IsInf", tf.is_inf, np.isinf),
                          ("IsFinite", tf.is_finite, np.isfinite)]],
    Row("Select", tf.where, np.where, [[FIX([[True, False, True], [False, False, True]]), F(2, 3), F(2, 3)]]),
    Row("Select", tf.where, lambda c, x, y: np.where(c[:, None], x, y), [[FIX([True, False]), F(2, 3), F(2, 3)]],
        label="Select-rank1-condition"),
    Row("SelectV2", tf.where_v2, np.where, [[FIX([True, False, True]), F(2, 3), F(1, 3)]]),
    Row("Where", tf.where, lambda c: np.argwhere(c).astype(np.int64),
        [[FIX([[True, False], [False, True], [True, True]])]], grad=False),
    # ---- reductions
    *[Row(op, lambda x, fn=fn, kw=kw: fn(x, **kw), lambda x, r=ref, kw=kw: r(x, axis=_np_axis(kw),
                                                                              keepdims=kw.get("keepdims", False)),
          [[F(2, 3, 4, lo=lo)]], label="%s%s" % (op, kw))
      for op, fn, ref, lo in [("Sum", tf.reduce_sum, np.sum, -2.0), ("Mean", tf.reduce_mean, np.mean, -2.0),
                              ("Max", tf.reduce_max, np.max, -2.0), ("Min", tf.reduce_min, np.min, -2.0),
                              ("Prod", tf.reduce_prod, np.prod, 0.5)]
      for kw in ({}, {"axis": 1}, {"axis": [0, 2], "keepdims": True}, {"axis": -1})],
    *[Row(op, lambda x, fn=fn: fn(x, axis=1), lambda x, r=ref: r(x, axis=1),
          [[FIX([[True, False, True], [True, True, True]])]], grad=False)
      for op, fn, ref in [("Any", tf.reduce_any, np.any), ("All", tf.reduce_all, np.all)]],
    Row("ArgMax", lambda x: tf.argmax(x, 1), lambda x: np.argmax(x, 1), [[F(3, 4)]], grad=False),
    Row("ArgMin", lambda x: tf.argmin(x, 0, output_type=tf.int32), lambda x: np.argmin(x, 0).astype(np.int32),
        [[F(3, 4)]], grad=False),
    # ---- linear algebra
    *[Row("MatMul", lambda a, b, kw=kw: tf.matmul(a, b, **kw), lambda a, b, kw=kw: _np_matmul(a, b, **kw),
          [[F(*sa), F(*sb)]], label="MatMul%s" % kw)
      for kw, sa, sb in [({}, (2, 3), (3, 4)), ({"transpose_a": True}, (3, 2), (3, 4)),
                         ({"transpose_b": True}, (2, 3), (4, 3)),
                         ({"transpose_a": True, "transpose_b": True}, (3, 2), (4, 3))]],
    Row("BatchMatMulV2", tf.matmul, np.matmul, [[F(2, 2, 3), F(2, 3, 2)], [F(2, 2, 3), F(3, 2)]]),
    Row("Diag", diag, np.diag, [[F(3)]]),
    Row("DiagPart", diag_part, np.diag, [[F(3, 3)]]),
]


def _np_axis(kw):
    a = kw.get("axis")
    return tuple(a) if isinstance(a, list) else a


def _np_matmul(a, b, transpose_a=False, transpose_b=False):
    return (a.T if transpose_a else a) @ (b.T if transpose_b else b)
