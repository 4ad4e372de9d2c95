"""Random ops and TF1's seed rules: random_normal, truncated_normal, random_uniform, shuffle, ...

Every kernel draws from `ctx.rng(op)`, a NumPy Generator per op per session seeded from the
op's (seed, seed2) attrs: two sessions of a seeded graph give the same sequence, and each run
of one session gives new numbers, as in TF1. All random ops are not differentiable.
"""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import Tensor, get_default_graph, name_scope
from lens.ops import math as _math
from lens.ops.shapes import const_value
from lens.framework.registry import register_op
from lens.framework.tensor_shape import Dimension, TensorShape, unknown_shape

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
_FLOATS = (_dt.float16, _dt.float32, _dt.float64)


# ------------------------------------------------------------------ seeds
def set_random_seed(seed):
    """Set the graph-level seed of the default graph (ops then derive their own seeds)."""
    get_default_graph().seed = seed


def get_seed(op_seed):
    """TF1's (seed, seed2) for an op: graph seed + op seed, derived or defaulted; (None, None) = random."""
    graph = get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None:
            # TF1 uses the graph's last op id, so each op in a seeded graph gets its own stream.
            op_seed = len(graph._ops)
        seeds = (int(global_seed) % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        seeds = (None, None)
    if seeds == (0, 0):
        # (0, 0) means "nondeterministic" to the kernels; a user who asked for seed 0 wants determinism.
        return 0, _MAXINT32
    return seeds


def _seed_attrs(seed):
    seed1, seed2 = get_seed(seed)
    return {"seed": seed1 or 0, "seed2": seed2 or 0}


# ------------------------------------------------------------------ shared helpers
def _shape_tensor(shape):
    """The 'shape' input of a random op (int32 unless values need int64)."""
    if isinstance(shape, Tensor) or hasattr(shape, "_as_graph_element"):
        t = convert_to_tensor(shape, name="shape")
        if t.dtype.base_dtype not in (_dt.int32, _dt.int64):
            raise TypeError("shape must be an int32 or int64 tensor, got %s (%s); cast it with tf.cast."
                            % (t.name, t.dtype.name))
        return t
    if isinstance(shape, TensorShape):
        if not shape.is_fully_defined():
            raise ValueError("Cannot draw random values for partially known shape %s; give every "
                             "dimension." % shape)
        shape = shape.as_list()
    if isinstance(shape, (list, tuple)):
        if any(isinstance(d, Tensor) for d in shape):
            from lens.ops.array import stack
            return stack([convert_to_tensor(d, dtype=_dt.int32) if not isinstance(d, Tensor) else d
                          for d in shape], name="shape")
        shape = [d.value if isinstance(d, Dimension) else d for d in shape]
        if not shape:
            return convert_to_tensor(shape, dtype=_dt.int32, name="shape")
    return convert_to_tensor(shape, name="shape")


def _dims_of_shape_input(t):
    """Static output dims from a shape input (None entries unknown), or None if unknown rank."""
    value = const_value(t)
    if value is None and t.op.type == "Pack" and t.op._attrs.get("axis", 0) == 0:
        # A shape stacked from scalars ([n, 2]) keeps its constant entries, as TF1's shape inference does.
        parts = [const_value(x) for x in t.op.inputs]
        return [None if p is None or int(p) < 0 else int(p) for p in parts]
    if value is None:
        n = t.shape
        return None if n.ndims != 1 or n[0].value is None else [None] * n[0].value
    dims = [int(d) for d in np.ravel(value)]
    for d in dims:
        if d < -1:
            raise ValueError("Dimension %d must be >= 0 in shape %s" % (d, dims))
    return [None if d == -1 else d for d in dims]


def _sample_shape(op):
    dims = _dims_of_shape_input(op._inputs[0])
    return [unknown_shape() if dims is None else TensorShape(dims)]


def _batched_sample_shape(op):
    """shape + the parameter's shape (RandomGamma, RandomPoissonV2)."""
    dims = _dims_of_shape_input(op._inputs[0])
    param = op._inputs[1].shape
    if dims is None or param.ndims is None:
        return [unknown_shape()]
    return [TensorShape(dims + param.as_list())]


def _runtime_dims(op, shape_value):
    dims = tuple(int(d) for d in np.ravel(shape_value))
    if any(d < 0 for d in dims):
        raise errors.InvalidArgumentError(None, op, "Random op %r got a negative dimension in shape %s; "
                                          "all dimensions must be >= 0." % (op.name, list(dims)))
    return dims


def _check_dtype(dtype, allowed, what, op_type):
    dtype = _dt.as_dtype(dtype).base_dtype
    if dtype not in allowed:
        raise TypeError("Value passed to parameter '%s' has DataType %s not in list of allowed values "
                        "for %s: %s" % (what, dtype.name, op_type, ", ".join(d.name for d in allowed)))
    return dtype


def _float_draw(gen_draw, np_dtype):
    """Draw in float32/float64 directly; float16 via float32 (NumPy has no float16 generators)."""
    if np_dtype == np.float16:
        return lambda gen, dims: gen_draw(gen, dims, np.float32).astype(np.float16)
    return lambda gen, dims: gen_draw(gen, dims, np_dtype)


# ------------------------------------------------------------------ RandomStandardNormal
def _normal_make(op, ctx):
    gen = ctx.rng(op)
    draw = _float_draw(lambda g, d, t: g.standard_normal(d, dtype=t), op._attrs["dtype"].as_numpy_dtype)
    return lambda shape: np.asarray(draw(gen, _runtime_dims(op, shape)))


register_op("RandomStandardNormal", make=_normal_make, shape=_sample_shape, not_differentiable=True,
            stateful=True)


def _scaled(op_type, default_name, shape, mean, stddev, dtype, seed, name):
    """mean + stddev * <unit draw>, with TF1's op names (shape, mean, stddev, <Op>, mul, <name>)."""
    dtype = _check_dtype(dtype, _FLOATS, "dtype", op_type)
    with name_scope(name, default_name, [shape, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        attrs = dict(_seed_attrs(seed), dtype=dtype)
        rnd = apply_op(op_type, [(shape_t, "shape")], attrs, name=op_type, dtypes=[dtype], same_dtype=False)
        mul = _math.multiply(rnd, stddev_t, name="mul")
        return _math.add(mul, mean_t, name=scope)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
    """Samples from a normal distribution N(mean, stddev**2) of the given shape."""
    return _scaled("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype, seed, name)


# ------------------------------------------------------------------ TruncatedNormal
def _truncated(gen, dims, np_dtype):
    """Standard normal draws, redrawing (only) those beyond 2 standard deviations until none remain."""
    out = gen.standard_normal(dims, dtype=np_dtype)
    flat = out.reshape(-1)
    bad = np.flatnonzero(np.abs(flat) > 2)
    while bad.size:
        flat[bad] = gen.standard_normal(bad.size, dtype=np_dtype)
        bad = bad[np.abs(flat[bad]) > 2]
    return out


def _truncated_make(op, ctx):
    gen = ctx.rng(op)
    draw = _float_draw(_truncated, op._attrs["dtype"].as_numpy_dtype)
    return lambda shape: np.asarray(draw(gen, _runtime_dims(op, shape)))


register_op("TruncatedNormal", make=_truncated_make, shape=_sample_shape, not_differentiable=True,
            stateful=True)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=_dt.float32, seed=None, name=None):
    """Normal samples with values beyond 2 standard deviations from the mean redrawn."""
    return _scaled("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype, seed, name)


# ------------------------------------------------------------------ RandomUniform / RandomUniformInt
def _uniform_make(op, ctx):
    gen = ctx.rng(op)
    np_dtype = op._attrs["dtype"].as_numpy_dtype

    def run(shape):
        dims = _runtime_dims(op, shape)
        if np_dtype == np.float16:
            # Rounding float32 draws to float16 can give exactly 1.0; keep the range half-open.
            x = gen.random(dims, dtype=np.float32).astype(np.float16)
            return np.asarray(np.minimum(x, np.float16(1.0) - np.finfo(np.float16).epsneg))
        return np.asarray(gen.random(dims, dtype=np_dtype))
    return run


register_op("RandomUniform", make=_uniform_make, shape=_sample_shape, not_differentiable=True, stateful=True)


def _scalar_bounds_shape(op):
    for t, what in ((op._inputs[1], "minval"), (op._inputs[2], "maxval")):
        if t.shape.ndims not in (None, 0):
            raise ValueError("Shape must be rank 0 but is rank %d for '%s' (op: 'RandomUniformInt'): "
                             "%s must be a scalar." % (t.shape.ndims, op.name, what))
    return _sample_shape(op)


def _uniform_int_make(op, ctx):
    gen = ctx.rng(op)
    np_dtype = op._attrs["Tout"].as_numpy_dtype

    def run(shape, lo, hi):
        dims = _runtime_dims(op, shape)
        if not lo < hi:
            raise errors.InvalidArgumentError(None, op, "Need minval < maxval: %s >= %s" % (lo, hi))
        return np.asarray(gen.integers(lo, hi, size=dims, dtype=np_dtype))
    return run


register_op("RandomUniformInt", make=_uniform_int_make, shape=_scalar_bounds_shape, not_differentiable=True,
            stateful=True)


def random_uniform(shape, minval=0, maxval=None, dtype=_dt.float32, seed=None, name=None):
    """Uniform samples in [minval, maxval) (maxval defaults to 1 for floats; required for ints)."""
    dtype = _dt.as_dtype(dtype).base_dtype
    if dtype not in _FLOATS + (_dt.int32, _dt.int64):
        raise ValueError("Invalid dtype %r for random_uniform: use a float type, int32 or int64." % dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("Must specify maxval for integer dtype %r" % dtype)
        maxval = 1
    with name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape_t = _shape_tensor(shape)
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        attrs = _seed_attrs(seed)
        if dtype.is_integer:
            attrs["Tout"] = dtype
            return apply_op("RandomUniformInt", [(shape_t, "shape"), (lo, "minval"), (hi, "maxval")], attrs,
                            name=scope, dtypes=[dtype], same_dtype=False)
        attrs["dtype"] = dtype
        rnd = apply_op("RandomUniform", [(shape_t, "shape")], attrs, name="RandomUniform", dtypes=[dtype],
                       same_dtype=False)
        span = _math.subtract(hi, lo, name="sub")
        return _math.add(_math.multiply(rnd, span, name="mul"), lo, name=scope)


# ------------------------------------------------------------------ RandomShuffle
def _shuffle_make(op, ctx):
    gen = ctx.rng(op)

    def run(value):
        value = np.asarray(value)
        if value.ndim == 0 or value.shape[0] <= 1:
            return value
        return value[gen.permutation(value.shape[0])]
    return run


register_op("RandomShuffle", make=_shuffle_make, shape=lambda op: [op._inputs[0].shape],
            not_differentiable=True, stateful=True)


def random_shuffle(value, seed=None, name=None):
    """value with its first dimension randomly permuted."""
    attrs = _seed_attrs(seed)  # TF1 derives the seed before converting value
    with name_scope(name, "RandomShuffle", [value]) as scope:
        x = convert_to_tensor(value, name="value")
        return apply_op("RandomShuffle", [(x, "value")], attrs, name=scope, same_dtype=False)


# ------------------------------------------------------------------ Multinomial
def _multinomial_shape(op):
    logits = op._inputs[0].shape
    if logits.ndims is not None and logits.ndims != 2:
        raise ValueError("Shape must be rank 2 but is rank %d for '%s' (op: 'Multinomial'): logits must "
                         "be [batch_size, num_classes]." % (logits.ndims, op.name))
    n = const_value(op._inputs[1])
    batch = logits[0].value if logits.ndims == 2 else None
    return [TensorShape([batch, None if n is None else int(n)])]


def _multinomial_make(op, ctx):
    gen = ctx.rng(op)
    out_dtype = op._attrs["output_dtype"].as_numpy_dtype

    def run(logits, num_samples):
        logits = np.asarray(logits, dtype=np.float64)
        n = int(num_samples)
        if logits.ndim != 2 or n < 0:
            raise errors.InvalidArgumentError(None, op, "Multinomial needs 2-D logits and num_samples >= 0, "
                                              "got logits shape %s and num_samples %d" % (logits.shape, n))
        batch, classes = logits.shape
        if classes == 0 and batch and n:
            raise errors.InvalidArgumentError(None, op, "num_classes should be positive, got 0")
        if batch == 0 or n == 0:
            return np.zeros((batch, n), dtype=out_dtype)
        # As TF1's kernel: non-finite logits have probability 0; a row with none finite draws num_classes.
        finite = np.isfinite(logits)
        top = np.where(finite, logits, -np.inf).max(axis=1, keepdims=True)
        probs = np.where(finite, np.exp(np.where(finite, logits, 0.0) - np.where(np.isfinite(top), top, 0.0)), 0.0)
        cdf = np.cumsum(probs, axis=1)
        total = cdf[:, -1:]
        cdf /= np.where(total > 0, total, 1.0)
        # Inverse-CDF sampling for all rows at once: offset row i's CDF by i so one sorted search serves all.
        rows = np.arange(batch)[:, None]
        u = gen.random((batch, n)) + rows
        idx = np.searchsorted((cdf + rows).ravel(), u.ravel(), side="right").reshape(batch, n) - rows * classes
        return np.where(total > 0, np.minimum(idx, classes - 1), classes).astype(out_dtype)
    return run


register_op("Multinomial", make=_multinomial_make, shape=_multinomial_shape, not_differentiable=True,
            stateful=True)


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """Draws num_samples class indices per row of logits ([batch, classes]) -> [batch, num_samples]."""
    with name_scope(name, "multinomial", [logits]):
        return _categorical(logits, num_samples, output_dtype, seed)


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """tf.random.categorical: multinomial with a dtype argument."""
    with name_scope(name, "categorical", [logits]):
        return _categorical(logits, num_samples, dtype, seed)


def _categorical(logits, num_samples, dtype, seed):
    out = _check_dtype(dtype or _dt.int64, (_dt.int32, _dt.int64), "output_dtype", "Multinomial")
    x = convert_to_tensor(logits, name="logits")
    attrs = dict(_seed_attrs(seed), output_dtype=out)
    with name_scope("Multinomial") as scope:
        n = convert_to_tensor(num_samples, dtype=_dt.int32, name="num_samples")
        return apply_op("Multinomial", [(x, "logits"), (n, "num_samples")], attrs, name=scope,
                        dtypes=[out], same_dtype=False)


# ------------------------------------------------------------------ RandomGamma / RandomPoissonV2
def _gamma_make(op, ctx):
    gen = ctx.rng(op)

    def run(shape, alpha):
        alpha = np.asarray(alpha)
        dims = _runtime_dims(op, shape) + alpha.shape
        work = np.float64 if alpha.dtype == np.float64 else np.float32
        return np.asarray(gen.standard_gamma(alpha.astype(work), size=dims, dtype=work).astype(alpha.dtype))
    return run


# TF1 differentiates RandomGamma w.r.t. alpha (implicit reparameterization); lens does not yet.
register_op("RandomGamma", make=_gamma_make, shape=_batched_sample_shape, not_differentiable=True,
            stateful=True)


def random_gamma(shape, alpha, beta=None, dtype=_dt.float32, seed=None, name=None):
    """Gamma(alpha, beta) samples of shape `shape + broadcast(alpha, beta).shape`."""
    dtype = _check_dtype(dtype, _FLOATS, "dtype", "RandomGamma")
    with name_scope(name, "random_gamma", [shape, alpha, beta]):
        shape_t = convert_to_tensor(shape, name="shape", dtype=_dt.int32)
        alpha_t = convert_to_tensor(alpha, name="alpha", dtype=dtype)
        beta_t = convert_to_tensor(beta if beta is not None else 1, name="beta", dtype=dtype)
        from lens.ops.array import zeros_like
        alpha_b = _math.add_v2(alpha_t, zeros_like(beta_t), name="add")
        attrs = _seed_attrs(seed)
        sample = apply_op("RandomGamma", [(shape_t, "shape"), (alpha_b, "alpha")], attrs, name="RandomGamma",
                          dtypes=[dtype], same_dtype=False)
        tiny = np.array(np.finfo(dtype.as_numpy_dtype).tiny, dtype=dtype.as_numpy_dtype)
        # Keep samples strictly positive, as TF1 does (tiny alphas underflow to 0).
        return _math.maximum(tiny, _math.truediv(sample, beta_t, name="truediv"))


def _poisson_make(op, ctx):
    gen = ctx.rng(op)
    out = op._attrs["dtype"].as_numpy_dtype

    def run(shape, rate):
        rate = np.asarray(rate, dtype=np.float64)
        dims = _runtime_dims(op, shape) + rate.shape
        if np.any(rate < 0):
            raise errors.InvalidArgumentError(None, op, "Poisson rate must be >= 0, got min %g" % rate.min())
        return np.asarray(gen.poisson(rate, size=dims).astype(out))
    return run


register_op("RandomPoissonV2", make=_poisson_make, shape=_batched_sample_shape, not_differentiable=True,
            stateful=True)


def random_poisson(lam, shape, dtype=_dt.float32, seed=None, name=None):
    """Poisson(lam) samples of shape `shape + lam.shape`."""
    dtype = _check_dtype(dtype, _FLOATS + (_dt.int32, _dt.int64), "dtype", "RandomPoissonV2")
    with name_scope(name, "random_poisson", [lam, shape]):
        shape_t = convert_to_tensor(shape, name="shape", dtype=_dt.int32)
        attrs = _seed_attrs(seed)
        with name_scope("RandomPoissonV2") as scope:
            lam_t = convert_to_tensor(lam, name="rate")
            if not lam_t.dtype.base_dtype.is_floating and lam_t.dtype.base_dtype not in (_dt.int32, _dt.int64):
                raise TypeError("lam must be a float or int tensor, got %s (%s)" % (lam_t.name, lam_t.dtype.name))
            attrs.update(dtype=dtype, S=shape_t.dtype.base_dtype, R=lam_t.dtype.base_dtype)
            return apply_op("RandomPoissonV2", [(shape_t, "shape"), (lam_t, "rate")], attrs, name=scope,
                            dtypes=[dtype], same_dtype=False)


# tf.random.* names (TF1.15's tf.random namespace).
normal = random_normal
uniform = random_uniform
shuffle = random_shuffle
gamma = random_gamma
poisson = random_poisson

__all__ = ["set_random_seed", "get_seed", "random_normal", "truncated_normal", "random_uniform",
           "random_shuffle", "multinomial", "categorical", "random_gamma", "random_poisson", "normal",
           "uniform", "shuffle", "gamma", "poisson", "DEFAULT_GRAPH_SEED"]
