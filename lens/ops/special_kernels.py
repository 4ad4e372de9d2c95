"""NumPy kernels (float64 in, float64 out) for tf.math.special and the incomplete gamma/beta functions.

No SciPy: the Bessel functions come from their integral representations (Gauss-Legendre quadrature)
below 25 and from Hankel's asymptotic series above; the rest from series, continued fractions and
functional equations. Each function takes and returns float64 arrays.
"""
import math as _math

import numpy as np

_GL_T, _GL_W = np.polynomial.legendre.leggauss(48)
_EULER = 0.5772156649015329
_BIG = 25.0     # where the asymptotic series of the Bessel functions are exact to double precision
_CHUNK = 4096


def quad(f, a, b, panels):
    """The integral of f(t, x) over t in [a, b] for each element: composite Gauss-Legendre.

    a, b: arrays like x (flattened), panels: an int; f gets t of shape (n, m) and x of shape (n, 1)."""
    def integrate(x, lo, hi):
        k = np.arange(panels)[:, None]
        u = ((k + (_GL_T[None, :] + 1) / 2) / panels).reshape(-1)          # nodes in [0, 1]
        w = np.tile(_GL_W, panels) / (2 * panels)
        t = lo[:, None] + (hi - lo)[:, None] * u[None, :]
        return (f(t, x[:, None]) * w[None, :]).sum(axis=1) * (hi - lo)
    return _chunked(integrate, a, b)


def _chunked(fn, a, b):
    """fn(x, a, b) over blocks of at most _CHUNK elements (quadrature grids stay small)."""
    def run(x):
        x = np.asarray(x, np.float64).reshape(-1)
        lo = np.broadcast_to(np.asarray(a(x) if callable(a) else a, np.float64), x.shape)
        hi = np.broadcast_to(np.asarray(b(x) if callable(b) else b, np.float64), x.shape)
        out = np.empty_like(x)
        for s in range(0, x.size, _CHUNK):
            out[s:s + _CHUNK] = fn(x[s:s + _CHUNK], lo[s:s + _CHUNK], hi[s:s + _CHUNK])
        return out
    return run


def _where_apply(x, cond, fn):
    """fn evaluated only on x[cond] (a flat float64 result, zeros elsewhere)."""
    out = np.zeros(x.shape)
    if cond.any():
        out[cond] = fn(x[cond])
    return out


def _hankel(nu, x):
    """P, Q of Hankel's expansion and the series S(x) = sum a_k(nu) / x^k (K, I use it with signs)."""
    mu = 4.0 * nu * nu
    terms = [np.ones_like(x)]
    for k in range(1, 30):
        terms.append(terms[-1] * (mu - (2 * k - 1) ** 2) / (k * 8.0 * x))
    p = sum(((-1) ** (k // 2)) * terms[k] for k in range(0, 30, 2))
    q = sum(((-1) ** (k // 2)) * terms[k] for k in range(1, 30, 2))
    plus = sum(terms)
    alt = sum(((-1) ** k) * terms[k] for k in range(30))
    return p, q, plus, alt


def _jy_big(nu, x):
    p, q, _, _ = _hankel(nu, x)
    chi = x - (nu / 2 + 0.25) * np.pi
    amp = np.sqrt(2 / (np.pi * x))
    return amp * (p * np.cos(chi) - q * np.sin(chi)), amp * (p * np.sin(chi) + q * np.cos(chi))


def _i_small_scaled(nu, x):
    """exp(-|x|) I_nu(|x|) = 1/pi * integral_0^pi exp(|x| (cos t - 1)) cos(nu t) dt."""
    return quad(lambda t, v: np.exp(v * (np.cos(t) - 1)) * np.cos(nu * t), 0.0, np.pi, 6)(x) / np.pi


def bessel_ie(nu, x):
    """exp(-|x|) I_nu(x) for nu = 0, 1 (odd in x for nu = 1)."""
    ax = np.abs(x).reshape(-1)
    big = ax >= _BIG
    out = _where_apply(ax, ~big, lambda v: _i_small_scaled(nu, v))
    out = np.where(big, _where_apply(ax, big, lambda v: _hankel(nu, v)[3] / np.sqrt(2 * np.pi * v)), out)
    out = out.reshape(np.shape(x))
    return np.sign(x) * out if nu == 1 else out


def bessel_i(nu, x):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.exp(np.abs(x)) * bessel_ie(nu, x)


def _k_small_scaled(nu, x):
    """exp(x) K_nu(x) = integral_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt, cut where the integrand < e^-45."""
    upper = lambda v: np.arccosh(1 + 45.0 / v) + nu * 0.0  # noqa: E731
    return quad(lambda t, v: np.exp(-v * (np.cosh(t) - 1)) * np.cosh(nu * t), 0.0, upper, 12)(x)


def bessel_ke(nu, x):
    """exp(x) K_nu(x) for x > 0; +inf at 0, nan below (as TF)."""
    flat = np.asarray(x, np.float64).reshape(-1)
    pos = flat > 0
    big = flat >= _BIG
    out = _where_apply(flat, pos & ~big, lambda v: _k_small_scaled(nu, v))
    out = np.where(big, _where_apply(flat, big, lambda v: _hankel(nu, v)[2] * np.sqrt(np.pi / (2 * v))), out)
    out = np.where(flat <= 0, np.inf, out)    # TF: +inf at 0 and below
    return out.reshape(np.shape(x))


def bessel_k(nu, x):
    with np.errstate(under="ignore", invalid="ignore"):
        return np.exp(-np.asarray(x, np.float64)) * bessel_ke(nu, x)


def bessel_j(nu, x):
    """J_nu(x) = 1/pi * integral_0^pi cos(nu t - x sin t) dt (J_1 is odd)."""
    ax = np.abs(np.asarray(x, np.float64)).reshape(-1)
    big = ax >= _BIG
    small = quad(lambda t, v: np.cos(nu * t - v * np.sin(t)), 0.0, np.pi, 12)
    out = _where_apply(ax, ~big, lambda v: small(v) / np.pi)
    out = np.where(big, _where_apply(ax, big, lambda v: _jy_big(nu, v)[0]), out).reshape(np.shape(x))
    return np.sign(x) * out if nu == 1 else out


def bessel_y(nu, x):
    """Y_nu(x) for x > 0 from Schlafli's integrals; -inf at 0, nan below (as TF)."""
    flat = np.asarray(x, np.float64).reshape(-1)
    pos = flat > 0
    big = flat >= _BIG
    sign = (-1.0) ** nu

    def small(v):
        first = quad(lambda t, u: np.sin(u * np.sin(t) - nu * t), 0.0, np.pi, 12)(v)
        second = quad(lambda t, u: (np.exp(nu * t) + sign * np.exp(-nu * t)) * np.exp(-u * np.sinh(t)),
                      0.0, lambda u: np.arcsinh(45.0 / u), 24)(v)
        return (first - second) / np.pi
    out = _where_apply(flat, pos & ~big, small)
    out = np.where(big, _where_apply(flat, big, lambda v: _jy_big(nu, v)[1]), out)
    out = np.where(flat <= 0, -np.inf, out)   # TF: -inf at 0 and below
    return out.reshape(np.shape(x))


def dawsn(x):
    """Dawson's integral exp(-x^2) integral_0^x exp(t^2) dt = integral_0^x exp(-u (2x - u)) du (odd)."""
    ax = np.abs(np.asarray(x, np.float64)).reshape(-1)
    big = ax >= _BIG

    def small(v):
        upper = np.where(v * v > 46.0, v - np.sqrt(np.maximum(v * v - 46.0, 0.0)), v)
        return quad(lambda u, w: np.exp(-u * (2 * w - u)), 0.0, upper, 8)(v)

    def asym(v):  # 1/(2x) * sum (2k-1)!! / (2 x^2)^k
        term, total = np.ones_like(v), np.ones_like(v)
        for k in range(1, 12):
            term = term * (2 * k - 1) / (2 * v * v)
            total = total + term
        return total / (2 * v)
    out = np.where(big, _where_apply(ax, big, asym), _where_apply(ax, ~big, small)).reshape(np.shape(x))
    return np.sign(x) * out


def expint(x):
    """The exponential integral Ei(x) for x >= 0 (nan below, as TF): power series, asymptotic above 40."""
    flat = np.asarray(x, np.float64).reshape(-1)
    pos, big = (flat > 0) & (flat <= 40), flat > 40
    out = np.where(flat == 0, -np.inf, np.nan)
    if pos.any():
        v = flat[pos]
        term, total = np.ones_like(v), np.zeros_like(v)
        for k in range(1, 150):
            term = term * v / k
            total = total + term / k
        out[pos] = _EULER + np.log(v) + total
    if big.any():   # Ei(x) ~ e^x / x * sum k! / x^k, summed up to its smallest term
        v = flat[big]
        term, total = np.ones_like(v), np.ones_like(v)
        for k in range(1, 40):
            term = term * k / v
            total = total + term
        with np.errstate(over="ignore"):
            out[big] = np.exp(v) / v * total
    return out.reshape(np.shape(x))


def _fresnel(x):
    """(S(x), C(x)) with S = integral_0^x sin(pi t^2 / 2) dt, C likewise with cos (both odd)."""
    ax = np.abs(np.asarray(x, np.float64)).reshape(-1)
    big = ax >= 6.0
    s = _where_apply(ax, ~big, quad(lambda t, v: np.sin(np.pi * t * t / 2), 0.0, lambda v: v, 40))
    c = _where_apply(ax, ~big, quad(lambda t, v: np.cos(np.pi * t * t / 2), 0.0, lambda v: v, 40))
    if big.any():
        v = ax[big]
        r = 1.0 / (np.pi * v * v) ** 2
        f = (1 - 3 * r + 105 * r ** 2 - 10395 * r ** 3 + 2027025 * r ** 4) / (np.pi * v)
        g = (1 - 15 * r + 945 * r ** 2 - 135135 * r ** 3 + 34459425 * r ** 4) / (np.pi ** 2 * v ** 3)
        ph = np.pi * v * v / 2
        s[big] = 0.5 - f * np.cos(ph) - g * np.sin(ph)
        c[big] = 0.5 + f * np.sin(ph) - g * np.cos(ph)
    sign = np.sign(np.asarray(x, np.float64))
    return sign * s.reshape(np.shape(x)), sign * c.reshape(np.shape(x))


def fresnel_sin(x):
    return _fresnel(x)[0]


def fresnel_cos(x):
    return _fresnel(x)[1]


def _li2_series(z):
    k = np.arange(1, 80, dtype=np.float64)
    return (z[:, None] ** k[None, :] / (k * k)[None, :]).sum(axis=1)


def _li2(z):
    """The dilogarithm Li2(z) for real z <= 1, reduced to |z| <= 1/2 by its functional equations."""
    out = np.empty_like(z)
    zeta2 = np.pi ** 2 / 6
    a = np.abs(z) <= 0.5
    out[a] = _li2_series(z[a])
    b = z > 0.5                       # Li2(z) = zeta(2) - ln z ln(1-z) - Li2(1-z)
    if b.any():
        v = z[b]
        with np.errstate(divide="ignore", invalid="ignore"):
            lg = np.where(v == 1, 0.0, np.log(v) * np.log1p(-v))
        out[b] = zeta2 - lg - _li2_series(1 - v)
    c = (z < -0.5) & (z >= -1.0)      # Li2(z) = -Li2(z / (z - 1)) - ln^2(1 - z) / 2, z/(z-1) in [1/3, 1/2]
    if c.any():
        v = z[c]
        out[c] = -_li2_series(v / (v - 1)) - 0.5 * np.log1p(-v) ** 2
    d = z < -1.0                      # Li2(z) = -zeta(2) - ln^2(-z) / 2 - Li2(1/z)
    if d.any():
        v = z[d]
        out[d] = -zeta2 - 0.5 * np.log(-v) ** 2 - _li2(1.0 / v)
    return out


def spence(x):
    """Spence's function integral_1^x ln t / (1 - t) dt = Li2(1 - x) for x >= 0 (nan below, as TF)."""
    flat = np.asarray(x, np.float64).reshape(-1)
    ok = flat >= 0
    out = np.full(flat.shape, np.nan)
    fin = ok & np.isfinite(flat)
    out[fin] = _li2(1.0 - flat[fin])
    out[flat == np.inf] = -np.inf
    return out.reshape(np.shape(x))


_ERFC = np.frompyfunc(_math.erfc, 1, 1)


def _erfcinv_low(q):
    """y with erfc(y) = q for q in (0, 1]: Newton's method on log erfc (concave, so it converges)."""
    with np.errstate(divide="ignore"):
        y = np.sqrt(np.maximum(-np.log(q) - 0.5 * np.log(np.maximum(-np.log(q), 1e-300) * np.pi), 0.0))
    for _ in range(30):
        e = _ERFC(y).astype(np.float64)
        step = (np.log(e) - np.log(q)) * e / (-2 / np.sqrt(np.pi) * np.exp(-y * y))
        y = y - step
        if np.all(np.abs(step) <= 1e-15 * np.maximum(np.abs(y), 1e-300)):
            break
    return y


def erfcinv(q):
    """The inverse of erfc on (0, 2); +inf at 0, -inf at 2, nan outside."""
    q = np.asarray(q, np.float64)
    flat = q.reshape(-1)
    out = np.full(flat.shape, np.nan)
    low = (flat > 0) & (flat <= 1)
    high = (flat > 1) & (flat < 2)
    out[low] = _erfcinv_low(flat[low])
    out[flat == 1] = 0.0
    out[high] = -_erfcinv_low(2.0 - flat[high])
    out[flat == 0] = np.inf
    out[flat == 2] = -np.inf
    return out.reshape(q.shape)


def erfinv(p):
    return erfcinv(1.0 - np.asarray(p, np.float64))


def ndtri(p):
    """The inverse of the standard normal CDF: -sqrt(2) erfcinv(2 p)."""
    return -np.sqrt(2.0) * erfcinv(2.0 * np.asarray(p, np.float64))


def _lgamma(x):
    return np.vectorize(_math.lgamma, otypes=[np.float64])(x)


def igamma(a, x):
    """The regularized lower incomplete gamma P(a, x): series below a + 1, continued fraction above."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x >= 0) & ~np.isnan(a) & ~np.isnan(x)
    fin = ok & np.isfinite(x) & np.isfinite(a) & (x > 0)
    series = fin & (x < a + 1)
    frac = fin & ~series
    if series.any():
        av, xv = a[series], x[series]
        term = 1.0 / av
        total = term.copy()
        for n in range(1, 2000):
            term = term * xv / (av + n)
            total = total + term
            if np.all(np.abs(term) < np.abs(total) * 1e-17):
                break
        out[series] = total * np.exp(av * np.log(xv) - xv - _lgamma(av))
    if frac.any():
        out[frac] = 1.0 - _upper_cf(a[frac], x[frac])
    out[ok & (x == 0)] = 0.0
    out[ok & (x == np.inf)] = 1.0
    return out


def _upper_cf(a, x):
    """Q(a, x) for x >= a + 1 by Lentz's evaluation of Legendre's continued fraction."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(x, 1 / tiny)
    d = 1 / b
    h = d.copy()
    for i in range(1, 2000):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1) < 1e-16):
            break
    return np.exp(a * np.log(x) - x - _lgamma(a)) * h


def igammac(a, x):
    """The regularized upper incomplete gamma Q(a, x) = 1 - P(a, x) (computed directly in its tail)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    out = 1.0 - igamma(a, x)
    tail = (a > 0) & np.isfinite(x) & np.isfinite(a) & (x >= a + 1)
    if tail.any():
        out[tail] = _upper_cf(a[tail], x[tail])
    return out


def _beta_cf(a, b, x):
    """The continued fraction of I_x(a, b) (valid for x < (a + 1) / (a + b + 2)), by Lentz's method."""
    tiny = 1e-300
    c = np.ones_like(x)
    d = 1 - (a + b) * x / (a + 1)
    d = 1 / np.where(np.abs(d) < tiny, tiny, d)
    h = d.copy()
    for m in range(1, 3000):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / np.where(np.abs(d) < tiny, tiny, d)
            c = 1 + num / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            h = h * d * c
        if np.all(np.abs(d * c - 1) < 1e-16):
            break
    lead = np.exp(a * np.log(x) + b * np.log1p(-x) - (_lgamma(a) + _lgamma(b) - _lgamma(a + b)))
    return lead * h / a


def betainc(a, b, x):
    """The regularized incomplete beta I_x(a, b) for a, b > 0 and 0 <= x <= 1 (nan otherwise)."""
    a, b, x = np.broadcast_arrays(*[np.asarray(v, np.float64) for v in (a, b, x)])
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (b > 0) & (x >= 0) & (x <= 1)
    inner = ok & (x > 0) & (x < 1)
    direct = inner & (x < (a + 1) / (a + b + 2))
    flip = inner & ~direct
    if direct.any():
        out[direct] = _beta_cf(a[direct], b[direct], x[direct])
    if flip.any():
        out[flip] = 1.0 - _beta_cf(b[flip], a[flip], 1.0 - x[flip])
    out[ok & (x == 0)] = 0.0
    out[ok & (x == 1)] = 1.0
    return out
