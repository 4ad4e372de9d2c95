"""tf.random.stateless_*: draws that depend only on a [2] seed. Uniform, integer, normal and truncated normal
values are TF's own (Philox-4x32-10 keyed from the seed as TF keys it, TF's bit-to-float conversions and
Box-Muller); categorical, gamma, Poisson, binomial and the parameterized truncated normal draw from the same
Philox stream with their own samplers (the same distributions and determinism, not TF's exact numbers)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape
from lens.ops import math as M
from lens.ops.random import _dims_of_shape_input

_M0, _M1, _W0, _W1 = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85
_U32 = np.uint64(0xFFFFFFFF)


def philox(counters, key):
    """Philox-4x32-10 of counters ([n, 4] uint32 words, low word first) under key (k0, k1): [n, 4] uint32."""
    c = np.asarray(counters, np.uint64)
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for _ in range(10):
        p0, p1 = np.uint64(_M0) * c[:, 0], np.uint64(_M1) * c[:, 2]
        c = np.stack([(p1 >> np.uint64(32)) ^ c[:, 1] ^ k0, p1 & _U32, (p0 >> np.uint64(32)) ^ c[:, 3] ^ k1, p0 & _U32], 1)
        k0, k1 = (k0 + np.uint64(_W0)) & _U32, (k1 + np.uint64(_W1)) & _U32
    return c.astype(np.uint32)


def key_counter(seed):
    """TF's key and starting counter for a [2] seed: the seed scrambled by one Philox round."""
    s0, s1 = [int(v) & 0xFFFFFFFFFFFFFFFF for v in np.asarray(seed).reshape(-1)]
    mix = philox([[s0 & 0xFFFFFFFF, s0 >> 32, s1 & 0xFFFFFFFF, s1 >> 32]], (0x3EC8F720, 0x02461E29))[0]
    return (int(mix[0]), int(mix[1])), (0, (int(mix[2]) | int(mix[3]) << 32))


def blocks(seed, n, start=0):
    """n Philox outputs ([n, 4] uint32) from block `start` of the seed's stream."""
    key, (lo0, hi0) = key_counter(seed)
    idx = np.arange(start, start + n, dtype=object)
    lo = [(lo0 + int(i)) for i in idx]
    rows = [[v & 0xFFFFFFFF, (v >> 32) & 0xFFFFFFFF, ((hi0 + (v >> 64)) & 0xFFFFFFFFFFFFFFFF) & 0xFFFFFFFF,
             ((hi0 + (v >> 64)) & 0xFFFFFFFFFFFFFFFF) >> 32] for v in lo]
    return philox(np.array(rows, np.uint64).reshape(-1, 4), key)


def _floats32(u):
    return ((u & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1)


def _doubles(hi, lo):
    bits = ((hi.astype(np.uint64) << np.uint64(32)) | lo.astype(np.uint64)) & np.uint64((1 << 52) - 1)
    return (bits | np.uint64(1023 << 52)).view(np.float64) - 1.0


def _uniform_bits(seed, count, per):
    n_blocks = -(-count * per // 4)
    return blocks(seed, max(n_blocks, 0)).reshape(-1)


def uniform_values(seed, count, dtype):
    if dtype == np.float64:
        u = _uniform_bits(seed, count, 2)
        return _doubles(u[0::2], u[1::2])[:count]
    return _floats32(_uniform_bits(seed, count, 1))[:count].astype(dtype)


def _box_muller(u, dtype):
    """Pairs of normals from uint32 words (2 words per float32 pair, 4 per float64 pair)."""
    if dtype == np.float64:
        a, b = _doubles(u[0::4], u[1::4]), _doubles(u[2::4], u[3::4])
        a = np.maximum(a, 1e-7)
        r, t = np.sqrt(-2.0 * np.log(a)), 2.0 * np.pi * b
    else:
        a, b = np.maximum(_floats32(u[0::2]), np.float32(1e-7)), _floats32(u[1::2])
        r, t = np.sqrt(np.float32(-2) * np.log(a)), np.float32(2 * np.pi) * b
    return np.stack([np.sin(t) * r, np.cos(t) * r], 1).reshape(-1)


def normal_values(seed, count, dtype):
    per = 2 if dtype == np.float64 else 1
    return _box_muller(_uniform_bits(seed, count, per), dtype)[:count].astype(dtype)


def truncated_values(seed, count, dtype):
    """TF's truncated normal: groups of outputs (4 float32 or 2 float64), each from its own window of the stream
    (256 blocks for float32, 128 for float64), keeping the Box-Muller normals inside (-2, 2) in order."""
    group = 2 if dtype == np.float64 else 4
    window = 128 if dtype == np.float64 else 256
    out = np.empty(count, dtype)
    for g in range(-(-count // group)):
        want = min(group, count - g * group)
        got, start = [], g * window
        while len(got) < want:
            for z in _box_muller(blocks(seed, 1, start).reshape(-1), dtype):
                if abs(z) < 2 and len(got) < want:
                    got.append(z)
            start += 1
        out[g * group:g * group + want] = got
    return out


def _rng(seed, salt):
    """A NumPy generator keyed by the seed's Philox key (for the samplers that are not TF-exact)."""
    key, (_, hi) = key_counter(seed)
    return np.random.Generator(np.random.Philox(key=[key[0] | key[1] << 32, salt], counter=[0, 0, hi, 0]))


# ---- ops -------------------------------------------------------------------------------------------
def _check_seed(op, seed):
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(None, op, "seed must have shape [2], not %s" % list(seed.shape))
    return seed


def _shape_of(op, shape):
    shape = [int(d) for d in np.asarray(shape).reshape(-1)]
    if any(d < 0 for d in shape):
        raise errors.InvalidArgumentError(None, op, "shape must be non-negative, got %s" % shape)
    return shape


def _draw_make(fn):
    def make(op, ctx):
        dtype = op._attrs["dtype"].as_numpy_dtype

        def run(shape, seed, *rest):
            shape, seed = _shape_of(op, shape), _check_seed(op, seed)
            return fn(op, seed, shape, dtype, *rest)
        return run
    return make


def _shape_out(op):
    dims = _dims_of_shape_input(op._inputs[0])
    return [TensorShape(dims) if dims is not None else unknown_shape()]


def _uniform(op, seed, shape, dtype):
    return uniform_values(seed, int(np.prod(shape, dtype=np.int64)), dtype).reshape(shape)


def _normal(op, seed, shape, dtype):
    return normal_values(seed, int(np.prod(shape, dtype=np.int64)), dtype).reshape(shape)


def _truncated(op, seed, shape, dtype):
    return truncated_values(seed, int(np.prod(shape, dtype=np.int64)), dtype).reshape(shape)


def _uniform_int(op, seed, shape, dtype, lo, hi):
    lo, hi = int(lo), int(hi)
    if lo >= hi:
        raise errors.InvalidArgumentError(None, op, "Need minval < maxval, got %d >= %d" % (lo, hi))
    n = int(np.prod(shape, dtype=np.int64))
    span = hi - lo
    if dtype == np.int64:
        u = _uniform_bits(seed, n, 2)
        bits = u[0::2].astype(np.uint64) | (u[1::2].astype(np.uint64) << np.uint64(32))
        vals = [lo + int(b) % span for b in bits[:n]]
    else:
        vals = [lo + int(b) % span for b in _uniform_bits(seed, n, 1)[:n]]
    return np.array(vals, dtype).reshape(shape)


def _full_int(op, seed, shape, dtype):
    n = int(np.prod(shape, dtype=np.int64))
    if np.dtype(dtype).itemsize == 8:
        u = _uniform_bits(seed, n, 2)
        bits = u[0::2].astype(np.uint64) | (u[1::2].astype(np.uint64) << np.uint64(32))
        return bits[:n].view(np.int64 if dtype == np.int64 else np.uint64).reshape(shape)
    return _uniform_bits(seed, n, 1)[:n].view(np.int32 if dtype == np.int32 else np.uint32).reshape(shape)


register_op("StatelessRandomUniform", make=_draw_make(_uniform), shape=_shape_out, not_differentiable=True)
register_op("StatelessRandomNormal", make=_draw_make(_normal), shape=_shape_out, not_differentiable=True)
register_op("StatelessTruncatedNormal", make=_draw_make(_truncated), shape=_shape_out, not_differentiable=True)
register_op("StatelessRandomUniformInt", make=_draw_make(_uniform_int), shape=_shape_out, not_differentiable=True)
register_op("StatelessRandomUniformFullInt", make=_draw_make(_full_int), shape=_shape_out, not_differentiable=True)


def _seed_tensor(seed):
    s = convert_to_tensor(seed, name="seed")
    if s.dtype.base_dtype not in (_dt.int32, _dt.int64):
        raise TypeError("seed must be an int32 or int64 tensor of shape [2], got %s" % s.dtype.name)
    if s.shape.ndims is not None and s.shape.as_list() != [2]:
        raise ValueError("seed must have shape [2], not %s" % s.shape)
    return s


def _shape_tensor(shape):
    return convert_to_tensor(shape, dtype=_dt.int32, name="shape") if not hasattr(shape, "dtype") else shape


def _float_dtype(dtype, what):
    dtype = _dt.as_dtype(dtype)
    if dtype not in (_dt.float32, _dt.float64):
        raise ValueError("Invalid dtype %s for %s: lens draws float32 and float64" % (dtype.name, what))
    return dtype


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=_dt.float32, name=None):
    """Uniform draws in [minval, maxval) fixed by seed (ints need both bounds; full range with neither)."""
    dtype = _dt.as_dtype(dtype)
    with name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as scope:
        shape, seed = _shape_tensor(shape), _seed_tensor(seed)
        if dtype.is_integer:
            if (minval is None) != (maxval is None):
                raise ValueError("For integer dtype {}, minval and maxval must be both `None` or both non-`None`; "
                                 "got minval={} and maxval={}.".format(dtype.name, minval, maxval))
            if minval is None:
                return apply_op("StatelessRandomUniformFullInt", [(shape, "shape"), (seed, "seed")],
                                {"dtype": dtype}, name=scope, dtypes=[dtype], same_dtype=False)
            lo = convert_to_tensor(minval, dtype=dtype, name="min")
            hi = convert_to_tensor(maxval, dtype=dtype, name="max")
            return apply_op("StatelessRandomUniformInt", [(shape, "shape"), (seed, "seed"), (lo, "minval"),
                                                          (hi, "maxval")], {"dtype": dtype}, name=scope,
                            dtypes=[dtype], same_dtype=False)
        dtype = _float_dtype(dtype, "stateless_random_uniform")
        rnd = apply_op("StatelessRandomUniform", [(shape, "shape"), (seed, "seed")], {"dtype": dtype},
                       name="StatelessRandomUniform", dtypes=[dtype], same_dtype=False)
        lo = convert_to_tensor(minval, dtype=dtype, name="min")
        hi = convert_to_tensor(1 if maxval is None else maxval, dtype=dtype, name="max")
        return M.add(M.multiply(rnd, M.subtract(hi, lo)), lo, name=scope)


def _scaled(op_type, default, shape, seed, mean, stddev, dtype, name):
    dtype = _float_dtype(dtype, default)
    with name_scope(name, default, [shape, seed, mean, stddev]) as scope:
        shape, seed = _shape_tensor(shape), _seed_tensor(seed)
        rnd = apply_op(op_type, [(shape, "shape"), (seed, "seed")], {"dtype": dtype}, name=op_type,
                       dtypes=[dtype], same_dtype=False)
        return M.add(M.multiply(rnd, convert_to_tensor(stddev, dtype=dtype, name="stddev")),
                     convert_to_tensor(mean, dtype=dtype, name="mean"), name=scope)


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
    """Normal draws fixed by seed."""
    return _scaled("StatelessRandomNormal", "stateless_random_normal", shape, seed, mean, stddev, dtype, name)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=_dt.float32, name=None):
    """Normal draws within two standard deviations of the mean, fixed by seed."""
    return _scaled("StatelessTruncatedNormal", "stateless_truncated_normal", shape, seed, mean, stddev, dtype, name)
