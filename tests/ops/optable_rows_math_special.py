"""Op-table rows: inverse and hyperbolic trigonometry, expm1, erf/erfc, rint, atan2, truncating
division, xlogy/xdivy. References are written from other formulas than the kernels use."""
import numpy as np

import lens as tf
from optable_lib import AWAY0, FIX, F, Row


def _unary(op, fn, ref, lo=-2.0, hi=2.0, away=None, **kw):
    return Row(op, fn, ref, [[F(3, 4, lo=lo, hi=hi, away=away)], [F(5, lo=lo, hi=hi, away=away)]], **kw)


def _erf(x):
    """2/sqrt(pi) * the integral of exp(-t^2) from 0 to x, by Simpson's rule on 2,001 points."""
    t = np.linspace(0.0, 1.0, 2001)[:, None] * np.asarray(x, np.float64).reshape(1, -1)
    w = np.ones(2001)
    w[1:-1:2], w[2:-1:2] = 4, 2
    integral = (w[:, None] * np.exp(-t * t)).sum(axis=0) * (x.reshape(-1) / 6000.0)
    return (2 / np.sqrt(np.pi) * integral).reshape(np.shape(x))


def _trunc_div(a, b):
    return np.array([int(p / q) for p, q in zip(a.ravel().tolist(), b.ravel().tolist())]).reshape(a.shape)


_INTS = [[FIX([[7, -7, 9, -9], [5, -5, 0, 3]], np.int32), FIX([[2, 2, -4, -4], [-3, 3, 5, -2]], np.int32)]]
_XS = [[FIX([[0.0, 1.5, -2.0], [0.0, 0.0, 3.0]]), F(2, 3, lo=0.5, hi=2.0)],
       [F(2, 3, lo=0.5, hi=2.0), F(3, lo=0.5, hi=2.0)]]

ROWS = [
    _unary("Tan", tf.tan, lambda x: np.sin(x) / np.cos(x), lo=-1.2, hi=1.2),
    _unary("Asin", tf.asin, lambda x: np.arctan(x / np.sqrt(1 - x * x)), lo=-0.9, hi=0.9),
    _unary("Acos", tf.acos, lambda x: np.pi / 2 - np.arctan(x / np.sqrt(1 - x * x)), lo=-0.9, hi=0.9),
    _unary("Atan", tf.atan, lambda x: np.angle(1 + 1j * x)),
    _unary("Sinh", tf.sinh, lambda x: (np.exp(x) - np.exp(-x)) / 2),
    _unary("Cosh", tf.cosh, lambda x: (np.exp(x) + np.exp(-x)) / 2),
    _unary("Asinh", tf.asinh, lambda x: np.sign(x) * np.log(np.abs(x) + np.sqrt(x * x + 1)), away=AWAY0),
    _unary("Acosh", tf.acosh, lambda x: np.log(x + np.sqrt(x * x - 1)), lo=1.1, hi=3.0),
    _unary("Atanh", tf.atanh, lambda x: 0.5 * np.log((1 + x) / (1 - x)), lo=-0.9, hi=0.9),
    _unary("Expm1", tf.expm1, lambda x: np.exp(x) - 1),
    _unary("Erf", tf.erf, _erf),
    _unary("Erfc", tf.erfc, lambda x: 1 - _erf(x)),
    _unary("Rint", tf.rint, lambda x: np.round(x), grad=False),
    Row("Rint", tf.rint, lambda x: np.array([-2.0, -2.0, -0.0, 0.0, 2.0, 2.0]),
        [[FIX([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])]], grad=False, label="Rint halves"),
    Row("Atan2", tf.atan2, lambda y, x: np.angle(x + 1j * y),
        [[F(3, 4), F(3, 4, lo=0.5, hi=2.0)], [F(2, 3), F(3, lo=-2.0, hi=-0.5)]]),
    Row("TruncateDiv", tf.truncatediv, _trunc_div, _INTS, grad=False),
    Row("TruncateDiv", tf.truncatediv, lambda a, b: np.trunc(a / b),
        [[F(3, 4), F(3, 4, lo=0.5, hi=2.0)]], grad=False, label="TruncateDiv floats"),
    Row("TruncateMod", tf.truncatemod, lambda a, b: a - b * _trunc_div(a, b), _INTS, grad=False),
    Row("TruncateMod", tf.truncatemod, lambda a, b: a - b * np.trunc(a / b),
        # x / y stays within (1, 2) and (-2, -1): no jump of the quotient inside the range
        [[F(3, 4, lo=4.1, hi=4.5), F(3, 4, lo=2.3, hi=2.6)], [F(3, 4, lo=-4.5, hi=-4.1), F(4, lo=2.3, hi=2.6)]],
        label="TruncateMod floats"),
    Row("Xlogy", tf.math.xlogy, lambda x, y: np.where(x == 0, 0.0, x * np.log(y)), _XS,
        dtypes=("float64",)),
    Row("Xdivy", tf.math.xdivy, lambda x, y: np.where(x == 0, 0.0, x / y), _XS, dtypes=("float64",)),
]
