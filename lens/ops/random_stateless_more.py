"""More stateless draws: categorical/multinomial, gamma (with its reparameterization gradient in alpha),
Poisson, binomial, the parameterized truncated normal, and the seed helpers split / fold_in."""
import enum
import math as _math

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops import special_kernels as K
from lens.ops.random_stateless import (_check_seed, _draw_make, _float_dtype, _rng, _seed_tensor, _shape_out,
                                       _shape_tensor, stateless_random_uniform)
from lens.ops.reduce import reduce_to
from lens.ops.special_fns import igamma_grad_a
from lens.ops.special_ops import lgamma

_ERFC = np.frompyfunc(_math.erfc, 1, 1)


def _broadcast_to_shape(op, value, shape, what):
    value = np.asarray(value)
    try:
        return np.broadcast_to(value, shape)
    except ValueError:
        from lens.framework import errors
        raise errors.InvalidArgumentError(None, op, "%s of shape %s does not broadcast to the output shape %s"
                                          % (what, list(value.shape), list(shape))) from None


# ---- StatelessMultinomial ----------------------------------------------------------------------
def _multinomial_make(op, ctx):
    out_dtype = op._attrs["output_dtype"].as_numpy_dtype

    def run(logits, num_samples, seed):
        seed = _check_seed(op, seed)
        logits = np.asarray(logits, np.float64)
        n = int(num_samples)
        rng = _rng(seed, 1)
        u = rng.random((logits.shape[0], n))
        with np.errstate(under="ignore", over="ignore"):
            p = np.exp(logits - logits.max(axis=1, keepdims=True))
        cdf = np.cumsum(p, axis=1)
        idx = np.array([np.searchsorted(c, uu * c[-1], side="right") for c, uu in zip(cdf, u)]).reshape(-1, n)
        return np.minimum(idx, logits.shape[1] - 1).astype(out_dtype)
    return run


def _multinomial_shape(op):
    lg = op._inputs[0].shape
    n = op._attrs.get("_num")
    return [TensorShape([lg.as_list()[0] if lg.ndims == 2 else None, n])]


register_op("StatelessMultinomial", make=_multinomial_make, shape=_multinomial_shape, not_differentiable=True)


def stateless_categorical(logits, num_samples, seed, dtype=_dt.int64, name=None):
    """[batch, num_samples] class indices drawn from the rows of logits, fixed by seed."""
    with name_scope(name, "stateless_categorical", [logits, seed]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        if logits.shape.ndims not in (None, 2):
            raise ValueError("logits should be a matrix [batch_size, num_classes], got shape %s" % logits.shape)
        n = convert_to_tensor(num_samples, dtype=_dt.int32, name="num_samples")
        dtype = _dt.as_dtype(dtype)
        return apply_op("StatelessMultinomial", [(logits, "logits"), (n, "num_samples"), (_seed_tensor(seed), "seed")],
                        {"output_dtype": dtype, "_num": num_samples if isinstance(num_samples, int) else None},
                        name=scope, dtypes=[dtype], same_dtype=False)


def stateless_multinomial(logits, num_samples, seed, output_dtype=_dt.int64, name=None):
    """tf.random.stateless_multinomial: stateless_categorical's older name."""
    return stateless_categorical(logits, num_samples, seed, dtype=output_dtype, name=name)


# ---- StatelessRandomGammaV2 --------------------------------------------------------------------------
def _gamma(op, seed, shape, dtype, alpha):
    a = _broadcast_to_shape(op, alpha, shape, "alpha")
    return _rng(seed, 2).standard_gamma(a.astype(np.float64), size=shape).astype(dtype)


def _gamma_grad(op, g):
    """Implicit reparameterization: dx/dalpha = -(dP(alpha, x)/dalpha) / pdf(x) for the unit-rate sample x."""
    alpha, x = op._inputs[2], op._outputs[0]
    a = M.multiply(A.ones_like(x), alpha)
    log_pdf = M.subtract(M.subtract(M.multiply(M.subtract(a, 1.0), M.log(x)), x), lgamma(a))
    dx = M.negative(M.divide(igamma_grad_a(a, x), M.exp(log_pdf)))
    full = M.multiply(g, dx)
    return [None, None, reduce_to((full, full), alpha, x)[0]]


register_op("StatelessRandomGammaV2", make=_draw_make(_gamma), shape=_shape_out, grad=_gamma_grad)


def stateless_random_gamma(shape, seed, alpha, beta=None, dtype=_dt.float32, name=None):
    """Gamma(alpha, beta) draws fixed by seed; shape ends with alpha's (broadcast) shape."""
    dtype = _float_dtype(dtype, "stateless_random_gamma")
    with name_scope(name, "stateless_random_gamma", [shape, seed, alpha, beta]):
        shape, seed = _shape_tensor(shape), _seed_tensor(seed)
        alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        x = apply_op("StatelessRandomGammaV2", [(shape, "shape"), (seed, "seed"), (alpha, "alpha")],
                     {"dtype": dtype}, name="StatelessRandomGammaV2", dtypes=[dtype], same_dtype=False)
        if beta is not None:
            x = M.divide(x, convert_to_tensor(beta, dtype=dtype, name="beta"))
        return M.maximum(x, convert_to_tensor(np.finfo(dtype.as_numpy_dtype).tiny, dtype=dtype))


# ---- StatelessRandomPoisson, StatelessRandomBinomial ---------------------------------------------------
def _poisson(op, seed, shape, dtype, lam):
    lam = _broadcast_to_shape(op, lam, shape, "lam")
    return _rng(seed, 3).poisson(lam.astype(np.float64), size=shape).astype(dtype)


def _binomial(op, seed, shape, dtype, counts, probs):
    counts = _broadcast_to_shape(op, counts, shape, "counts").astype(np.float64)
    probs = _broadcast_to_shape(op, probs, shape, "probs").astype(np.float64)
    return _rng(seed, 4).binomial(counts.astype(np.int64), np.clip(probs, 0, 1), size=shape).astype(dtype)


register_op("StatelessRandomPoisson", make=_draw_make(_poisson), shape=_shape_out, not_differentiable=True)
register_op("StatelessRandomBinomial", make=_draw_make(_binomial), shape=_shape_out, not_differentiable=True)


def stateless_random_poisson(shape, seed, lam, dtype=_dt.int32, name=None):
    """Poisson(lam) draws fixed by seed; shape ends with lam's shape."""
    dtype = _dt.as_dtype(dtype)
    with name_scope(name, "stateless_random_poisson", [shape, seed, lam]) as scope:
        lam = convert_to_tensor(lam, name="lam")
        return apply_op("StatelessRandomPoisson", [(_shape_tensor(shape), "shape"), (_seed_tensor(seed), "seed"),
                                                   (lam, "lam")], {"dtype": dtype}, name=scope, dtypes=[dtype],
                        same_dtype=False)


def stateless_random_binomial(shape, seed, counts, probs, output_dtype=_dt.int32, name=None):
    """Binomial(counts, probs) draws fixed by seed."""
    dtype = _dt.as_dtype(output_dtype)
    with name_scope(name, "stateless_random_binomial", [shape, seed, counts, probs]) as scope:
        probs = convert_to_tensor(probs, name="probs")
        counts = convert_to_tensor(counts, dtype=probs.dtype.base_dtype, name="counts")
        return apply_op("StatelessRandomBinomial", [(_shape_tensor(shape), "shape"), (_seed_tensor(seed), "seed"),
                                                    (counts, "counts"), (probs, "probs")], {"dtype": dtype},
                        name=scope, dtypes=[dtype], same_dtype=False)


# ---- StatelessParameterizedTruncatedNormal ---------------------------------------------------------------
def _ptn(op, seed, shape, dtype, means, stddevs, lo, hi):
    mu, sd = (_broadcast_to_shape(op, v, shape, w).astype(np.float64) for v, w in ((means, "means"), (stddevs, "stddevs")))
    a = (_broadcast_to_shape(op, lo, shape, "minvals") - mu) / sd
    b = (_broadcast_to_shape(op, hi, shape, "maxvals") - mu) / sd
    # inverse CDF between the bounds, from the upper tail when both bounds are above 0 (keeps precision)
    flip = a > 0
    lo_t, hi_t = np.where(flip, -b, a), np.where(flip, -a, b)
    cdf_lo = 0.5 * _ERFC(-lo_t.reshape(-1) / np.sqrt(2)).astype(np.float64).reshape(shape)
    cdf_hi = 0.5 * _ERFC(-hi_t.reshape(-1) / np.sqrt(2)).astype(np.float64).reshape(shape)
    u = _rng(seed, 5).random(shape)
    z = K.ndtri(cdf_lo + u * (cdf_hi - cdf_lo))
    z = np.clip(np.where(flip, -z, z), a, b)
    return (mu + sd * z).astype(dtype)


register_op("StatelessParameterizedTruncatedNormal", make=_draw_make(_ptn), shape=_shape_out, not_differentiable=True)


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0, maxvals=2.0,
                                             name=None):
    """Normal(means, stddevs) draws restricted to [minvals, maxvals], fixed by seed."""
    with name_scope(name, "stateless_parameterized_truncated_normal", [shape, seed]) as scope:
        means = convert_to_tensor(means, name="means")
        dtype = means.dtype.base_dtype
        args = [convert_to_tensor(v, dtype=dtype, name=n) for v, n in ((stddevs, "stddevs"), (minvals, "minvals"),
                                                                        (maxvals, "maxvals"))]
        return apply_op("StatelessParameterizedTruncatedNormal",
                        [(_shape_tensor(shape), "shape"), (_seed_tensor(seed), "seed"), (means, "means")]
                        + list(zip(args, ["stddevs", "minvals", "maxvals"])), {"dtype": dtype}, name=scope,
                        dtypes=[dtype], same_dtype=False)


# ---- seed helpers ------------------------------------------------------------------------------------------
class Algorithm(enum.Enum):
    """The counter-based RNG algorithms of TF's stateless ops (lens implements Philox, which AUTO_SELECT picks
    on CPUs)."""
    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


def _check_alg(alg):
    """Philox (or auto_select, which is Philox on a CPU); ValueError for anything else."""
    value = alg.value if isinstance(alg, Algorithm) else alg
    if isinstance(value, str):
        value = {"philox": 1, "threefry": 2, "auto_select": 3}.get(value.lower(), value)
    if value not in (1, 3):
        raise ValueError("lens's stateless random ops implement the Philox algorithm ('philox' or 'auto_select'), "
                         "got alg=%r" % (alg,))


def stateless_split(seed, num=2, alg="auto_select"):
    """num new [2] seeds derived from seed (full-range integer draws), as a [num, 2] tensor."""
    _check_alg(alg)
    seed = _seed_tensor(seed)
    return stateless_random_uniform([num, 2], seed=seed, dtype=seed.dtype.base_dtype, minval=None, maxval=None)


def stateless_fold_in(seed, data, alg="auto_select"):
    """A new [2] seed from seed and an integer data (e.g. a step or a replica id)."""
    _check_alg(alg)
    data = convert_to_tensor(data, name="data")
    first = stateless_random_uniform([], seed=seed, dtype=data.dtype.base_dtype, minval=None, maxval=None)
    return A.stack([first, data])



