"""Op-table rows: tf.math.special, erfinv/ndtri, incomplete gamma/beta, zeta, xlog1py, nextafter.

References use other formulas than the kernels (power series, Simpson's rule, bisection);
tests/ops/test_special_fns.py compares the kernels with TensorFlow's recorded values."""
import math

import numpy as np

import lens as tf
from lens.ops.special_fns import igamma_grad_a
from optable_lib import FIX, F, Row

GAMMA = 0.5772156649015329


def _fact(k):
    return math.factorial(k)


def _power_bessel(nu, x, sign):
    """sum sign^k (x/2)^(2k+nu) / (k! (k+nu)!)."""
    return sum(sign ** k * (x / 2) ** (2 * k + nu) / (_fact(k) * _fact(k + nu)) for k in range(40))


def _harmonic_sum(x, sign):
    return sum(sign ** (k + 1) * sum(1.0 / j for j in range(1, k + 1)) * (x * x / 4) ** k / _fact(k) ** 2
               for k in range(1, 40))


def _k0(x):
    return -(np.log(x / 2) + GAMMA) * _power_bessel(0, x, 1) + _harmonic_sum(x, 1)


def _y0(x):
    return 2 / np.pi * ((np.log(x / 2) + GAMMA) * _power_bessel(0, x, -1) + _harmonic_sum(x, -1))


def _k1(x):  # Wronskian I0 K1 + I1 K0 = 1/x
    return (1 / x - _power_bessel(1, x, 1) * _k0(x)) / _power_bessel(0, x, 1)


def _y1(x):  # Wronskian J1 Y0 - J0 Y1 = 2 / (pi x)
    return (_power_bessel(1, x, -1) * _y0(x) - 2 / (np.pi * x)) / _power_bessel(0, x, -1)


def _simpson(f, a, b, n=4000):
    """Elementwise integral of f(t) over [a, b] (arrays) by Simpson's rule on n + 1 points."""
    a, b = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64))
    u = np.linspace(0.0, 1.0, n + 1)
    t = a[..., None] + (b - a)[..., None] * u
    w = np.ones(n + 1)
    w[1:-1:2], w[2:-1:2] = 4, 2
    return (f(t) * w).sum(axis=-1) * (b - a) / (3 * n)


def _dawsn(x):
    term, total = x.copy(), x.copy()
    for k in range(1, 80):
        term = term * (-2 * x * x) / (2 * k + 1)
        total = total + term
    return total


def _ei(x):
    return GAMMA + np.log(x) + _simpson(lambda t: np.expm1(t) / np.where(t == 0, 1, t) + (t == 0), 0, x)


def _spence(x):
    return _simpson(lambda t: np.where(t == 1, -1.0, np.log(t) / np.where(t == 1, 2.0, 1 - t)), 1.0, x)


def _bisect(f, target, lo, hi):
    lo, hi = np.full(target.shape, lo), np.full(target.shape, hi)
    for _ in range(200):
        mid = (lo + hi) / 2
        up = f(mid) < target
        lo, hi = np.where(up, mid, lo), np.where(up, hi, mid)
    return (lo + hi) / 2


_ERF = np.vectorize(math.erf)
_LGAMMA = np.vectorize(math.lgamma)


def _igamma(a, x):
    return _simpson(lambda t: np.exp((a[..., None] - 1) * np.log(t) - t - _LGAMMA(a)[..., None]), 0, x, 20000)


def _betainc(a, b, x):
    dens = lambda t: np.exp((a[..., None] - 1) * np.log(t) + (b[..., None] - 1) * np.log1p(-t)  # noqa: E731
                            - (_LGAMMA(a) + _LGAMMA(b) - _LGAMMA(a + b))[..., None])
    return _simpson(dens, 0, x, 20000)


def _zeta(s, q):
    n = 2000
    k = np.arange(n)
    head = ((q[..., None] + k) ** -s[..., None]).sum(axis=-1)
    tail_q = q + n
    return head + tail_q ** (1 - s) / (s - 1) + 0.5 * tail_q ** -s + s * tail_q ** (-s - 1) / 12


def _unary(op, fn, ref, lo, hi, rtol=None):
    return Row(op, fn, ref, [[F(2, 3, lo=lo, hi=hi)]], rtol=rtol)


S = tf.math.special
ROWS = [
    _unary("BesselI0", S.bessel_i0, np.i0, -3, 3),
    _unary("BesselI0e", S.bessel_i0e, lambda x: np.exp(-np.abs(x)) * np.i0(x), -3, 3),
    _unary("BesselI1", S.bessel_i1, lambda x: _power_bessel(1, x, 1), -3, 3),
    _unary("BesselI1e", S.bessel_i1e, lambda x: np.exp(-np.abs(x)) * _power_bessel(1, x, 1), 0.2, 3),
    _unary("BesselJ0", S.bessel_j0, lambda x: _power_bessel(0, x, -1), -4, 4),
    _unary("BesselJ1", S.bessel_j1, lambda x: _power_bessel(1, x, -1), -4, 4),
    _unary("BesselY0", S.bessel_y0, _y0, 0.3, 2),
    _unary("BesselY1", S.bessel_y1, _y1, 0.3, 2),
    _unary("BesselK0", S.bessel_k0, _k0, 0.2, 3),
    _unary("BesselK0e", S.bessel_k0e, lambda x: np.exp(x) * _k0(x), 0.2, 3),
    _unary("BesselK1", S.bessel_k1, _k1, 0.2, 3),
    _unary("BesselK1e", S.bessel_k1e, lambda x: np.exp(x) * _k1(x), 0.2, 3),
    _unary("Dawsn", S.dawsn, _dawsn, -2, 2),
    _unary("Expint", S.expint, _ei, 0.2, 3),
    _unary("FresnelCos", S.fresnel_cos, lambda x: _simpson(lambda t: np.cos(np.pi * t * t / 2), 0, x), -3, 3),
    _unary("FresnelSin", S.fresnel_sin, lambda x: _simpson(lambda t: np.sin(np.pi * t * t / 2), 0, x), -3, 3),
    _unary("Spence", S.spence, _spence, 0.1, 3),
    _unary("Erfinv", tf.math.erfinv, lambda p: _bisect(_ERF, p, -10, 10), -0.95, 0.95),
    _unary("Ndtri", tf.math.ndtri, lambda p: _bisect(lambda v: 0.5 * (1 + _ERF(v / np.sqrt(2))), p, -40, 40),
           0.02, 0.98),
    Row("Ndtri", tf.math.erfcinv, lambda q: _bisect(_ERF, 1 - q, -10, 10),
        [[F(2, 3, lo=0.05, hi=1.95)]], label="erfcinv"),
    Row("Igamma", tf.math.igamma, _igamma, [[F(3, lo=1.5, hi=4), F(3, lo=0.5, hi=6)]], rtol=1e-5),
    Row("Igammac", tf.math.igammac, lambda a, x: 1 - _igamma(a, x), [[F(3, lo=1.5, hi=4), F(3, lo=0.5, hi=6)]],
        rtol=1e-5),
    Row("IgammaGradA", igamma_grad_a,
        lambda a, x: (_igamma(a + 1e-4, x) - _igamma(a - 1e-4, x)) / 2e-4,
        [[F(3, lo=1.5, hi=4), F(3, lo=0.5, hi=6)]], rtol=1e-4, grad=False),
    Row("Betainc", tf.math.betainc, _betainc,
        [[FIX([1.5, 2.5, 4.0]), FIX([3.5, 2.0, 1.7]), F(3, lo=0.1, hi=0.9)]], rtol=1e-5, dtypes=("float64",)),  # a, b: no gradient
    Row("Zeta", tf.math.zeta, _zeta, [[FIX([2.0, 3.5, 5.0]), F(3, lo=0.5, hi=3)]], rtol=1e-6, dtypes=("float64",)),  # x: no gradient
    Row("Xlog1py", tf.math.xlog1py, lambda x, y: np.where(x == 0, 0.0, x * np.log(1 + y)),
        [[FIX([[0.0, 1.5, -2.0], [0.0, 0.5, 3.0]]), F(2, 3, lo=0.5, hi=2.0)],
         [F(2, 3, lo=0.5, hi=2.0), F(3, lo=-0.5, hi=2.0)]], dtypes=("float64",)),
    Row("NextAfter", tf.math.nextafter, lambda a, b: np.where(b > a, a + np.spacing(a), a - np.spacing(a)),
        [[F(2, 3, lo=0.5, hi=2), FIX([[9.0, -9.0, 9.0], [-9.0, 9.0, -9.0]])]], dtypes=("float64",), grad=False),
]
