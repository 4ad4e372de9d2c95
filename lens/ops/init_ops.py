"""TF1 variable initializers: callables `init(shape, dtype=None, partition_info=None)` building ops.

`tf.get_variable` calls them inside the `<var>/Initializer/` name scope, so their ops get TF1's
names (`dense/kernel/Initializer/random_uniform/RandomUniform`, ...).
"""
import math
import types

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, constant
from lens.framework.graph import name_scope
from lens.ops import array as _array
from lens.ops import math as _math
from lens.ops import random as _random
from lens.framework.registry import register_op, registered_ops
from lens.framework.tensor_shape import TensorShape, as_shape, unknown_shape


def _assert_float_dtype(dtype):
    dtype = _dt.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError("Expected floating point type, got %s." % dtype)
    return dtype


def _dims(shape, what="shape"):
    """Shape as a list of ints (fans and reshapes need every dimension)."""
    s = as_shape(shape)
    if s.ndims is None or not s.is_fully_defined():
        raise ValueError("%s %s must be fully defined to build an initial value; give every dimension."
                         % (what, s))
    return s.as_list()


def _compute_fans(shape):
    """(fan_in, fan_out) as TF1: vectors use their length; conv kernels multiply in the receptive field."""
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    if len(shape) == 2:
        return int(shape[0]), int(shape[1])
    receptive = int(np.prod(shape[:-2]))
    return int(shape[-2]) * receptive, int(shape[-1]) * receptive


class Initializer:
    """Base class: `__call__(shape, dtype=None, partition_info=None)` returns the initial-value tensor."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError("%s must implement __call__" % type(self).__name__)

    def get_config(self):
        """The constructor arguments as a dict (from_config rebuilds the initializer)."""
        return {}

    @classmethod
    def from_config(cls, config):
        """An initializer built from get_config()'s dict."""
        return cls(**config)


class Zeros(Initializer):
    """Initializer of zeros."""

    def __init__(self, dtype=_dt.float32):
        self.dtype = _dt.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _array.zeros(shape, self.dtype if dtype is None else _dt.as_dtype(dtype))

    def get_config(self):
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    """Initializer of ones."""

    def __init__(self, dtype=_dt.float32):
        self.dtype = _dt.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _array.ones(shape, self.dtype if dtype is None else _dt.as_dtype(dtype))

    def get_config(self):
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """Initializer from a scalar (filled), or a list/array (reshaped; short lists padded with the last value)."""

    def __init__(self, value=0, dtype=_dt.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError("Invalid type for initial value: %s (expected Python scalar, list or tuple of "
                            "values, or numpy.ndarray)." % type(value))
        self.value = value
        self.dtype = _dt.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        dtype = self.dtype if dtype is None else _dt.as_dtype(dtype)
        verify = self._verify_shape if verify_shape is None else verify_shape
        dims = _dims(shape)
        n = int(np.prod(dims)) if dims else 1
        flat = np.asarray(self.value)
        if verify and flat.shape != tuple(dims):
            raise TypeError("Expected Tensor's shape: %s, got %s." % (tuple(dims), flat.shape))
        if flat.size > n:
            raise ValueError("Too many elements provided. Needed at most %d, but received %d"
                             % (n, flat.size))
        value = self.value
        if flat.size == 0 and n:
            raise ValueError("constant_initializer got an empty value for shape %s; give at least one "
                             "value." % dims)
        if 1 < flat.size < n:
            # TF1 fills the remaining entries with the last value given.
            pad = [flat.ravel()[-1]] * (n - flat.size)
            value = (np.concatenate([flat.ravel(), pad]) if isinstance(value, np.ndarray)
                     else flat.ravel().tolist() + [p.item() for p in pad])
        return constant(value, dtype=dtype, shape=dims, name="Const")

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    """Initializer drawing uniformly from [minval, maxval)."""

    def __init__(self, minval=0, maxval=None, seed=None, dtype=_dt.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = _dt.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _dt.as_dtype(dtype)
        return _random.random_uniform(shape, self.minval, self.maxval, dtype, seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed, "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """Initializer drawing from N(mean, stddev**2)."""

    _draw = staticmethod(_random.random_normal)

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=_dt.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _dt.as_dtype(dtype)
        return self._draw(shape, self.mean, self.stddev, dtype, seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed, "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Initializer drawing from N(mean, stddev**2) with values beyond 2 stddev redrawn."""

    _draw = staticmethod(_random.truncated_normal)


# scipy.stats.truncnorm.std(a=-2, b=2): the stddev of a unit normal truncated at 2 sigma.
_TRUNCATED_STD = .87962566103423978


class VarianceScaling(Initializer):
    """Initializer with variance scale / fan (fan_in, fan_out or their mean), as TF1."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=_dt.float32):
        if scale <= 0.:
            raise ValueError("`scale` must be positive float, got %r." % (scale,))
        if mode not in {"fan_in", "fan_out", "fan_avg"}:
            raise ValueError("Invalid `mode` argument: %r; use 'fan_in', 'fan_out' or 'fan_avg'." % (mode,))
        distribution = distribution.lower()
        if distribution not in {"normal", "uniform", "truncated_normal", "untruncated_normal"}:
            raise ValueError("Invalid `distribution` argument: %r; use 'truncated_normal', "
                             "'untruncated_normal', 'normal' or 'uniform'." % (distribution,))
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _dt.as_dtype(dtype)
        full = _dims(shape if partition_info is None else partition_info.full_shape)
        fan_in, fan_out = _compute_fans(full)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.}[self.mode]
        scale = self.scale / max(1., fan)
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / _TRUNCATED_STD
            return _random.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return _random.random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return _random.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


class GlorotUniform(VarianceScaling):
    """Glorot/Xavier uniform: U(-limit, limit) with limit = sqrt(6 / (fan_in + fan_out))."""

    def __init__(self, seed=None, dtype=_dt.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed, dtype=dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Glorot/Xavier normal: truncated normal with stddev sqrt(2 / (fan_in + fan_out))."""

    def __init__(self, seed=None, dtype=_dt.float32):
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed, dtype=dtype)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class UniformUnitScaling(Initializer):
    """Deprecated TF1 initializer: U(-m, m) with m = factor * sqrt(3 / input_size)."""

    def __init__(self, factor=1.0, seed=None, dtype=_dt.float32):
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _dt.as_dtype(dtype)
        full = _dims(shape if partition_info is None else partition_info.full_shape)
        # All but the last dimension is the input size for matmuls and convolutions alike.
        input_size = max(float(np.prod(full[:-1])) if full else 1.0, 1.0)
        limit = math.sqrt(3 / input_size) * self.factor
        return _random.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """Orthogonal matrix (QR of a normal draw, signs fixed by diag(R)), times gain; rows flattened."""

    def __init__(self, gain=1.0, seed=None, dtype=_dt.float32):
        self.gain = gain
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _dt.as_dtype(dtype)
        dims = _dims(shape)
        if len(dims) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional, got shape %s."
                             % dims)
        rows, cols = int(np.prod(dims[:-1])), int(dims[-1])
        a = _random.random_normal((cols, rows) if rows < cols else (rows, cols), dtype=dtype, seed=self.seed)
        q, r = qr(a, full_matrices=False)
        # Multiplying columns by sign(diag(R)) makes Q uniformly distributed over orthogonal matrices.
        q = q * _math.sign(diag_part(r))
        if rows < cols:
            with name_scope(None, "matrix_transpose", [q]):
                q = _array.transpose(q, [1, 0], name="transpose")
        return self.gain * _array.reshape(q, dims)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class Identity(Initializer):
    """Identity matrix times gain (2-D shapes only)."""

    def __init__(self, gain=1.0, dtype=_dt.float32):
        self.gain = gain
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = self.dtype if dtype is None else _dt.as_dtype(dtype)
        if partition_info is not None:
            raise ValueError("identity_initializer does not support partitioned variables in lens.")
        dims = _dims(shape)
        if len(dims) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices, got shape %s."
                             % dims)
        return self.gain * constant(np.eye(*dims), dtype=dtype, name="eye")

    def get_config(self):
        return {"gain": self.gain, "dtype": self.dtype.name}


# ------------------------------------------------------------------ Diag / DiagPart
def _diag_part_shape(op):
    s = op._inputs[0].shape
    if s.ndims is None:
        return [unknown_shape()]
    if s.ndims % 2:
        raise ValueError("Input must have even rank <= 2k, got rank %d for '%s' (op: 'DiagPart')."
                         % (s.ndims, op.name))
    half = s.ndims // 2
    return [TensorShape(s.as_list()[:half])]


def _diag_part(x):
    half = x.shape[:x.ndim // 2]
    n = int(np.prod(half)) if half else 1
    return np.ascontiguousarray(x.reshape(n, n).diagonal()).reshape(half)


def _diag(x):
    return np.diag(x.ravel()).reshape(x.shape + x.shape)


# Registered here only if the linalg family does not own them yet (it should, eventually).
if "DiagPart" not in registered_ops():
    register_op("DiagPart", fn=_diag_part, shape=_diag_part_shape, grad=lambda op, g: [diag(g)])
if "Diag" not in registered_ops():
    register_op("Diag", fn=_diag, shape=lambda op: [op._inputs[0].shape.concatenate(op._inputs[0].shape)],
                grad=lambda op, g: [diag_part(g)])


def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's argument name
    """QR factorization of (batches of) matrices: (q, r) (the op lives in special_ops)."""
    from lens.ops.special_ops import qr as _qr
    return _qr(input, full_matrices=full_matrices, name=name)


def diag_part(input, name=None):  # noqa: A002
    """The diagonal of a [D..., D...] tensor as a [D...] tensor."""
    return apply_op("DiagPart", [(input, "input")], name=name or "DiagPart")


def diag(diagonal, name=None):
    """A [D..., D...] tensor with `diagonal` on its diagonal."""
    return apply_op("Diag", [(diagonal, "diagonal")], name=name or "Diag")


# ------------------------------------------------------------------ TF1 names
zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
orthogonal_initializer = Orthogonal
identity_initializer = Identity


def lecun_normal(seed=None):
    """Truncated normal with stddev sqrt(1 / fan_in)."""
    return VarianceScaling(scale=1., mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    """Uniform in +-sqrt(3 / fan_in)."""
    return VarianceScaling(scale=1., mode="fan_in", distribution="uniform", seed=seed)


def he_normal(seed=None):
    """Truncated normal with stddev sqrt(2 / fan_in)."""
    return VarianceScaling(scale=2., mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed=None):
    """Uniform in +-sqrt(6 / fan_in)."""
    return VarianceScaling(scale=2., mode="fan_in", distribution="uniform", seed=seed)


def _namespace():
    from lens.ops import variables as _v
    return types.SimpleNamespace(
        zeros=Zeros, ones=Ones, constant=Constant, random_uniform=RandomUniform, random_normal=RandomNormal,
        truncated_normal=TruncatedNormal, uniform_unit_scaling=UniformUnitScaling,
        variance_scaling=VarianceScaling, glorot_uniform=GlorotUniform, glorot_normal=GlorotNormal,
        orthogonal=Orthogonal, identity=Identity, lecun_normal=lecun_normal, lecun_uniform=lecun_uniform,
        he_normal=he_normal, he_uniform=he_uniform, global_variables=_v.global_variables_initializer,
        local_variables=_v.local_variables_initializer, variables=_v.variables_initializer)


initializers = _namespace()
"""`tf.initializers`: TF1's initializer namespace (zeros(), glorot_uniform(), variance_scaling(), ...)."""
