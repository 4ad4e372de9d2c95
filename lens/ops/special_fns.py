"""tf.math.special (Bessel, Dawson, Ei, Fresnel, Spence), erfinv/erfcinv/ndtri, the incomplete gamma
and beta functions, zeta, lbeta, xlog1py and nextafter: TF's op types, dtypes and gradients."""
import math as _math

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.ops import math as M
from lens.ops import special_kernels as K
from lens.ops.logic import equal, where
from lens.ops.math_grad import binary_grad_pair
from lens.ops.reduce import reduce_sum, reduce_to
from lens.ops.shapes import broadcast_shapes
from lens.ops.special_ops import _check_float, _hurwitz_zeta, _in_float64, lgamma

_FLOATS = (_dt.float16, _dt.float32, _dt.float64)


def _c(x, v):
    return convert_to_tensor(v, dtype=x.dtype.base_dtype)


def _safe_ratio(y, x, at_zero):
    """y / x, with at_zero where x == 0 (the limit of J1(x)/x-like terms)."""
    zero = equal(x, _c(x, 0))
    return where(zero, M.multiply(_c(x, at_zero), M.add(M.multiply(x, _c(x, 0)), _c(x, 1))),
                 M.div_no_nan(y, x))


# op type, public name, kernel, gradient d(op)/dx from (x, y) as lens ops
_UNARY = [
    ("BesselI0", "bessel_i0", lambda x: K.bessel_i(0, x), lambda x, y: bessel_i1(x)),
    ("BesselI0e", "bessel_i0e", lambda x: K.bessel_ie(0, x),
     lambda x, y: M.subtract(bessel_i1e(x), M.multiply(M.sign(x), y))),
    ("BesselI1", "bessel_i1", lambda x: K.bessel_i(1, x),
     lambda x, y: M.subtract(bessel_i0(x), _safe_ratio(y, x, 0.5))),
    ("BesselI1e", "bessel_i1e", lambda x: K.bessel_ie(1, x),
     lambda x, y: M.subtract(bessel_i0e(x), M.add(M.multiply(M.sign(x), y), _safe_ratio(y, x, 0.5)))),
    ("BesselJ0", "bessel_j0", lambda x: K.bessel_j(0, x), lambda x, y: M.negative(bessel_j1(x))),
    ("BesselJ1", "bessel_j1", lambda x: K.bessel_j(1, x),
     lambda x, y: M.subtract(bessel_j0(x), _safe_ratio(y, x, 0.5))),
    ("BesselY0", "bessel_y0", lambda x: K.bessel_y(0, x), lambda x, y: M.negative(bessel_y1(x))),
    ("BesselY1", "bessel_y1", lambda x: K.bessel_y(1, x), lambda x, y: M.subtract(bessel_y0(x), M.divide(y, x))),
    ("BesselK0", "bessel_k0", lambda x: K.bessel_k(0, x), lambda x, y: M.negative(bessel_k1(x))),
    ("BesselK0e", "bessel_k0e", lambda x: K.bessel_ke(0, x), lambda x, y: M.subtract(y, bessel_k1e(x))),
    ("BesselK1", "bessel_k1", lambda x: K.bessel_k(1, x),
     lambda x, y: M.negative(M.add(bessel_k0(x), M.divide(y, x)))),
    ("BesselK1e", "bessel_k1e", lambda x: K.bessel_ke(1, x),
     lambda x, y: M.subtract(M.subtract(y, bessel_k0e(x)), M.divide(y, x))),
    ("Dawsn", "dawsn", K.dawsn, lambda x, y: M.subtract(_c(x, 1), M.multiply(_c(x, 2), M.multiply(x, y)))),
    ("Expint", "expint", K.expint, lambda x, y: M.divide(M.exp(x), x)),
    ("FresnelCos", "fresnel_cos", K.fresnel_cos, lambda x, y: M.cos(M.multiply(_c(x, _math.pi / 2), M.square(x)))),
    ("FresnelSin", "fresnel_sin", K.fresnel_sin, lambda x, y: M.sin(M.multiply(_c(x, _math.pi / 2), M.square(x)))),
    ("Spence", "spence", K.spence,
     lambda x, y: where(equal(x, _c(x, 1)), M.negative(M.divide(x, x)),
                        M.divide(M.log(x), M.subtract(_c(x, 1), x)))),
    ("Erfinv", "erfinv", K.erfinv, lambda x, y: M.multiply(_c(x, _math.sqrt(_math.pi) / 2), M.exp(M.square(y)))),
    ("Ndtri", "ndtri", K.ndtri,
     lambda x, y: M.multiply(_c(x, _math.sqrt(2 * _math.pi)), M.exp(M.multiply(_c(x, 0.5), M.square(y))))),
]


def _unary_grad(derivative):
    def grad(op, g):
        return [M.multiply(g, derivative(op._inputs[0], op._outputs[0]))]
    return grad


def _unary_wrapper(op_type, name, doc):
    def fn(x, name=None):
        x = _check_float(x, op_type, "x", _FLOATS)
        return apply_op(op_type, [(x, "x")], {"T": x.dtype}, name=name or op_type)
    fn.__name__ = name
    fn.__doc__ = doc
    return fn


for _type, _name, _kernel, _deriv in _UNARY:
    register_op(_type, fn=_in_float64(_kernel), shape=M._same_shape, grad=_unary_grad(_deriv))
    globals()[_name] = _unary_wrapper(_type, _name, "%s elementwise (TF's %s)." % (_name, _type))


def erfcinv(x, name=None):
    """The inverse of erfc: -ndtri(x / 2) / sqrt(2), as TF composes it."""
    with name_scope(name, "erfcinv", [x]):
        x = _check_float(x, "Ndtri", "x", _FLOATS)
        return M.multiply(M.negative(ndtri(M.multiply(x, _c(x, 0.5)))), _c(x, _math.sqrt(0.5)))


# ---- binary and ternary ------------------------------------------------------------------------
def _igamma_grad_x(a, x):
    return M.exp(M.subtract(M.subtract(M.multiply(M.subtract(a, _c(a, 1)), M.log(x)), x), lgamma(a)))


def _igamma_grad(sign):
    def grad(op, g):
        a, x = op._inputs
        da = M.multiply(g, igamma_grad_a(a, x))
        dx = M.multiply(g, _igamma_grad_x(a, x))
        if sign < 0:
            da, dx = M.negative(da), M.negative(dx)
        return binary_grad_pair(op, da, dx, smart=False)
    return grad


def _grad_a_kernel(a, x):
    """d P(a, x) / d a by Richardson-extrapolated central differences of the series/fraction kernel."""
    h = 1e-3 * np.maximum(np.abs(a), 1.0)
    d1 = (K.igamma(a + h, x) - K.igamma(a - h, x)) / (2 * h)
    d2 = (K.igamma(a + h / 2, x) - K.igamma(a - h / 2, x)) / h
    return (4 * d2 - d1) / 3


def _zeta_kernel(s, q):
    s, q = np.broadcast_arrays(s, q)
    with np.errstate(all="ignore"):
        out = np.where((s > 1) & (q > 0), _hurwitz_zeta(np.where(s > 1, s, 2.0), np.where(q > 0, q, 1.0)), np.nan)
    out = np.where(s == 1, np.inf, out)
    return np.where((q <= 0) & (np.floor(q) == q) & (s > 1), np.inf, out)


def _zeta_grad(op, g):
    s, q = op._inputs
    dq = M.multiply(g, M.multiply(M.negative(s), zeta(M.add(s, _c(s, 1)), q)))
    return binary_grad_pair(op, None, dq, smart=False)


def _betainc_shape(op):
    s = broadcast_shapes(op._inputs[0].shape, op._inputs[1].shape)
    return [broadcast_shapes(s, op._inputs[2].shape)]


def _betainc_grad(op, g):
    """Only x has a gradient, as TF: x^(a-1) (1-x)^(b-1) / B(a, b)."""
    a, b, x = op._inputs
    log_beta = M.subtract(M.add(lgamma(a), lgamma(b)), lgamma(M.add(a, b)))
    dens = M.exp(M.subtract(M.add(M.multiply(M.subtract(a, _c(a, 1)), M.log(x)),
                                  M.multiply(M.subtract(b, _c(b, 1)), M.log1p(M.negative(x)))), log_beta))
    gx = M.multiply(g, dens)
    return [None, None, reduce_to((gx, gx), x, op._outputs[0])[0]]


def _xlog1py_kernel(x, y):
    with np.errstate(all="ignore"):
        return np.where(x == 0, np.zeros_like(x), x * np.log1p(y))


def _xlog1py_grad(op, g):
    x, y = op._inputs
    zero = equal(x, _c(x, 0))
    gx = M.multiply(g, where(zero, M.multiply(x, _c(x, 0)), M.log1p(y)))
    gy = M.multiply(g, where(zero, M.multiply(x, _c(x, 0)), M.divide(x, M.add(_c(y, 1), y))))
    return binary_grad_pair(op, gx, gy, smart=False)


register_op("Igamma", fn=_in_float64(K.igamma), shape=M._bcast_shape, grad=_igamma_grad(1))
register_op("Igammac", fn=_in_float64(K.igammac), shape=M._bcast_shape, grad=_igamma_grad(-1))
register_op("IgammaGradA", fn=_in_float64(_grad_a_kernel), shape=M._bcast_shape, not_differentiable=True)
register_op("Zeta", fn=_in_float64(_zeta_kernel), shape=M._bcast_shape, grad=_zeta_grad)
register_op("Betainc", fn=_in_float64(K.betainc), shape=_betainc_shape, grad=_betainc_grad)
register_op("Xlog1py", fn=_in_float64(_xlog1py_kernel), shape=M._bcast_shape, grad=_xlog1py_grad)
register_op("NextAfter", fn=lambda a, b: np.nextafter(a, b).astype(np.result_type(a, b)),
            shape=M._bcast_shape, not_differentiable=True)


def _binary(op_type, names, floats=(_dt.float32, _dt.float64)):
    def fn(x, y, name=None):
        x = _check_float(x, op_type, names[0], floats)
        y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name=names[1])
        return apply_op(op_type, [(x, names[0]), (y, names[1])], {"T": x.dtype}, name=name or op_type)
    return fn


igamma = _binary("Igamma", ("a", "x"))
igamma.__doc__ = "The regularized lower incomplete gamma function P(a, x)."
igammac = _binary("Igammac", ("a", "x"))
igammac.__doc__ = "The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."
igamma_grad_a = _binary("IgammaGradA", ("a", "x"))
zeta = _binary("Zeta", ("x", "q"))
zeta.__doc__ = "The Hurwitz zeta function sum_k (q + k)^-x."
xlog1py = _binary("Xlog1py", ("x", "y"), _FLOATS)
xlog1py.__doc__ = "x * log1p(y), 0 where x is 0."
nextafter = _binary("NextAfter", ("x1", "x2"))
nextafter.__doc__ = "The next representable value after x1 in the direction of x2."


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function I_x(a, b)."""
    x = _check_float(x, "Betainc", "x", (_dt.float32, _dt.float64))
    a = convert_to_tensor(a, dtype=x.dtype.base_dtype, name="a")
    b = convert_to_tensor(b, dtype=x.dtype.base_dtype, name="b")
    return apply_op("Betainc", [(a, "a"), (b, "b"), (x, "x")], {"T": x.dtype}, name=name or "Betainc")


def lbeta(x, name=None):
    """log |B(x)| over the last axis: sum lgamma(x_i) - lgamma(sum x_i), as TF composes it."""
    with name_scope(name, "lbeta", [x]):
        x = convert_to_tensor(x, name="x")
        return M.subtract(reduce_sum(lgamma(x), axis=[-1]), lgamma(reduce_sum(x, axis=[-1])))


_SPECIAL = ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_y0",
            "bessel_y1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "dawsn", "expint", "fresnel_cos",
            "fresnel_sin", "spence"]
__all__ = _SPECIAL + ["erfinv", "erfcinv", "ndtri", "igamma", "igammac", "zeta", "xlog1py", "nextafter",
                      "betainc", "lbeta"]
