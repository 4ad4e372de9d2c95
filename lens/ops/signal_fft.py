"""tf.signal's FFT ops: FFT/IFFT (1-, 2-, 3-D and N-D over chosen axes), RFFT/IRFFT with fft_length,
NumPy kernels and TF's gradients (an FFT's is the inverse transform scaled by the length)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape, unknown_shape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.complex_ops import real as _real_part
from lens.ops.shapes import const_value
from lens.ops.slicing import slice as _slice

_COMPLEX_OF = {_dt.float32: _dt.complex64, _dt.float64: _dt.complex128}
_REAL_OF = {_dt.complex64: _dt.float32, _dt.complex128: _dt.float64}


# ---- kernels ----------------------------------------------------------------------------------
def _fit(x, lengths, axes):
    """x cropped or zero-padded along axes to lengths (how RFFT/IRFFT read their input)."""
    for n, ax in zip(lengths, axes):
        have = x.shape[ax]
        if have > n:
            x = np.take(x, np.arange(n), axis=ax)
        elif have < n:
            pad = [(0, 0)] * x.ndim
            pad[ax] = (0, n - have)
            x = np.pad(x, pad)
    return x


def _check_rank(op, x, k):
    if np.ndim(x) < k:
        raise errors.InvalidArgumentError(None, op, "%s needs an input of rank >= %d, got shape %s"
                                          % (op.type, k, list(np.shape(x))))


def _complex_make(op, ctx, k, inverse):
    def run(x):
        _check_rank(op, x, k)
        axes = tuple(range(-k, 0))
        fn = np.fft.ifftn if inverse else np.fft.fftn
        return fn(x, axes=axes).astype(x.dtype, copy=False)
    return run


def _nd_axes(x, axes):
    return tuple(int(a) % np.ndim(x) for a in np.ravel(axes))


def _complex_nd_make(op, ctx, inverse):
    def run(x, fft_length, axes):
        axes = _nd_axes(x, axes)
        fn = np.fft.ifftn if inverse else np.fft.fftn
        return fn(x, s=[int(n) for n in np.ravel(fft_length)], axes=axes).astype(x.dtype, copy=False)
    return run


def _lengths(op, fft_length, k):
    n = [int(v) for v in np.ravel(fft_length)]
    if len(n) != k or any(v < 0 for v in n):
        raise errors.InvalidArgumentError(None, op, "fft_length must be %d non-negative lengths, got %s" % (k, n))
    return n


def _real_make(op, ctx, k, inverse):
    cdt = op._attrs["Tcomplex"].as_numpy_dtype
    rdt = op._attrs["Treal"].as_numpy_dtype

    def run(x, fft_length):
        _check_rank(op, x, k)
        n = _lengths(op, fft_length, k)
        axes = tuple(range(-k, 0))
        if inverse:
            inner = n[:-1] + [n[-1] // 2 + 1]
            return np.fft.irfftn(_fit(x, inner, axes), s=n, axes=axes).astype(rdt, copy=False)
        return np.fft.rfftn(_fit(x, n, axes), s=n, axes=axes).astype(cdt, copy=False)
    return run


def _real_nd_make(op, ctx, inverse):
    cdt = op._attrs["Tcomplex"].as_numpy_dtype
    rdt = op._attrs["Treal"].as_numpy_dtype

    def run(x, fft_length, axes):
        axes = _nd_axes(x, axes)
        n = [int(v) for v in np.ravel(fft_length)]
        if inverse:
            inner = n[:-1] + [n[-1] // 2 + 1]
            return np.fft.irfftn(_fit(x, inner, axes), s=n, axes=axes).astype(rdt, copy=False)
        return np.fft.rfftn(_fit(x, n, axes), s=n, axes=axes).astype(cdt, copy=False)
    return run


# ---- shapes -----------------------------------------------------------------------------------
def _same_shape(op):
    return [op._inputs[0].shape]


def _real_shape(op, k, inverse):
    s = op._inputs[0].shape
    if s.ndims is None:
        return [unknown_shape()]
    if s.ndims < k:
        raise ValueError("Shape must be at least rank %d but is rank %d for '%s' (op: '%s')"
                         % (k, s.ndims, op.name, op.type))
    n = const_value(op._inputs[1])
    dims = s.as_list()
    if n is None:
        return [TensorShape(dims[:-k] + [None] * k)]
    n = [int(v) for v in np.ravel(n)]
    if not inverse:
        n = n[:-1] + [n[-1] // 2 + 1]
    return [TensorShape(dims[:-k] + n)]


def _nd_shape(op, real, inverse):
    s, n, axes = op._inputs[0].shape, const_value(op._inputs[1]), const_value(op._inputs[2])
    if s.ndims is None or n is None or axes is None:
        return [unknown_shape() if s.ndims is None else TensorShape([None] * s.ndims)]
    dims = s.as_list()
    n = [int(v) for v in np.ravel(n)]
    if real and not inverse:
        n = n[:-1] + [n[-1] // 2 + 1]
    for length, ax in zip(n, np.ravel(axes)):
        dims[int(ax) % len(dims)] = length
    return [TensorShape(dims)]


# ---- gradients --------------------------------------------------------------------------------
def _inner_count(t, k):
    """The number of elements in t's last k dims, as a scalar of t's real dtype (static when possible)."""
    dims = t.shape.as_list()[-k:] if t.shape.ndims is not None else [None]
    if None not in dims:
        return float(np.prod(dims))
    from lens.ops.indexing import strided_slice
    from lens.ops.reduce import reduce_prod
    return M.cast(reduce_prod(strided_slice(A.shape(t), [-k], [0], [1], end_mask=1)), t.dtype.base_dtype)


def _scaled(t, factor, divide):
    f = convert_to_tensor(factor, dtype=_REAL_OF[t.dtype.base_dtype]) if not hasattr(factor, "op") else factor
    f = M.cast(f, t.dtype.base_dtype)
    return M.truediv(t, f) if divide else M.multiply(t, f)


def _fft_grad(k, inverse):
    def grad(op, g):
        fwd, inv = {1: (fft, ifft), 2: (fft2d, ifft2d), 3: (fft3d, ifft3d)}[k]
        if inverse:   # d ifft: fft(g) / N
            return [_scaled(fwd(g), _inner_count(g, k), True)]
        return [_scaled(inv(g), _inner_count(g, k), False)]
    return grad


def _static_lengths(op, what):
    n = const_value(op._inputs[1])
    if n is None:
        raise ValueError("The gradient of %s '%s' needs a constant fft_length" % (what, op.name))
    return [int(v) for v in np.ravel(n)]


def _fit_tensor(t, lengths, k):
    """t cropped or zero-padded along its last k dims to lengths (static inner dims needed)."""
    dims = t.shape.as_list()
    if t.shape.ndims is None or None in dims[-k:]:
        raise ValueError("the gradient of an RFFT/IRFFT needs the static inner dims of %s" % t.name)
    inner = dims[-k:]
    outer = len(dims) - k
    if any(h > n for h, n in zip(inner, lengths)):
        t = _slice(t, [0] * len(dims), [-1] * outer + [min(h, n) for h, n in zip(inner, lengths)])
    if any(h < n for h, n in zip(inner, lengths)):
        t = A.pad(t, [[0, 0]] * outer + [[0, max(0, n - h)] for h, n in zip(inner, lengths)])
    return t


def _rfft_grad(k):
    def grad(op, g):
        inv = {1: ifft, 2: ifft2d, 3: ifft3d}[k]
        # dL/dx_t = Re(sum_k g_k e^{+i w k t}): g padded to the full spectrum, inverse FFT times N.
        x = op._inputs[0]
        n = _static_lengths(op, op.type)
        full = _fit_tensor(g, n, k)
        real = _real_part(_scaled(inv(full), float(np.prod(n)), False))
        return [_fit_tensor(real, x.shape.as_list()[-k:], k), None]
    return grad


def _irfft_grad(k):
    def grad(op, g):
        fwd = {1: rfft, 2: rfft2d, 3: rfft3d}[k]
        # x = irfft(y): each bin but DC (and Nyquist for even n) appears twice in the Hermitian sum.
        y = op._inputs[0]
        n = _static_lengths(op, op.type)
        spec = fwd(g, n)
        half = n[-1] // 2 + 1
        mask = np.full(half, 2.0)
        mask[0] = 1.0
        if n[-1] % 2 == 0:
            mask[-1] = 1.0
        mask = convert_to_tensor((mask / np.prod(n)).astype(spec.dtype.as_numpy_dtype))
        return [_fit_tensor(M.multiply(spec, mask), y.shape.as_list()[-k:], k), None]
    return grad


for _k, _sfx in ((1, ""), (2, "2D"), (3, "3D")):
    register_op("FFT" + _sfx, make=lambda op, ctx, k=_k: _complex_make(op, ctx, k, False), shape=_same_shape,
                grad=_fft_grad(_k, False))
    register_op("IFFT" + _sfx, make=lambda op, ctx, k=_k: _complex_make(op, ctx, k, True), shape=_same_shape,
                grad=_fft_grad(_k, True))
    register_op("RFFT" + _sfx, make=lambda op, ctx, k=_k: _real_make(op, ctx, k, False),
                shape=lambda op, k=_k: _real_shape(op, k, False), grad=_rfft_grad(_k))
    register_op("IRFFT" + _sfx, make=lambda op, ctx, k=_k: _real_make(op, ctx, k, True),
                shape=lambda op, k=_k: _real_shape(op, k, True), grad=_irfft_grad(_k))
register_op("FFTND", make=lambda op, ctx: _complex_nd_make(op, ctx, False),
            shape=lambda op: _nd_shape(op, False, False), not_differentiable=True)
register_op("IFFTND", make=lambda op, ctx: _complex_nd_make(op, ctx, True),
            shape=lambda op: _nd_shape(op, False, True), not_differentiable=True)
register_op("RFFTND", make=lambda op, ctx: _real_nd_make(op, ctx, False),
            shape=lambda op: _nd_shape(op, True, False), not_differentiable=True)
register_op("IRFFTND", make=lambda op, ctx: _real_nd_make(op, ctx, True),
            shape=lambda op: _nd_shape(op, True, True), not_differentiable=True)


# ---- wrappers ---------------------------------------------------------------------------------
def _complex_input(x, op_type):
    x = convert_to_tensor(x, name="input")
    if not x.dtype.base_dtype.is_complex:
        raise TypeError("Value passed to parameter 'input' of %s has DataType %s not in list of allowed "
                        "values: complex64, complex128" % (op_type, x.dtype.base_dtype.name))
    return x


def _complex_op(op_type, x, name):
    with name_scope(name, op_type, [x]) as scope:
        x = _complex_input(x, op_type)
        return apply_op(op_type, [(x, "input")], {"Tcomplex": x.dtype.base_dtype}, name=scope,
                        dtypes=[x.dtype.base_dtype])


def fft(input, name=None):  # noqa: A002
    """The 1-D discrete Fourier transform over the innermost dimension of a complex tensor."""
    return _complex_op("FFT", input, name)


def ifft(input, name=None):  # noqa: A002
    """The inverse 1-D discrete Fourier transform over the innermost dimension."""
    return _complex_op("IFFT", input, name)


def fft2d(input, name=None):  # noqa: A002
    """The 2-D discrete Fourier transform over the 2 innermost dimensions."""
    return _complex_op("FFT2D", input, name)


def ifft2d(input, name=None):  # noqa: A002
    """The inverse 2-D discrete Fourier transform over the 2 innermost dimensions."""
    return _complex_op("IFFT2D", input, name)


def fft3d(input, name=None):  # noqa: A002
    """The 3-D discrete Fourier transform over the 3 innermost dimensions."""
    return _complex_op("FFT3D", input, name)


def ifft3d(input, name=None):  # noqa: A002
    """The inverse 3-D discrete Fourier transform over the 3 innermost dimensions."""
    return _complex_op("IFFT3D", input, name)


def _default_lengths(x, k, inverse):
    dims = x.shape.as_list()[-k:] if x.shape.ndims is not None else [None]
    if None in dims:
        from lens.ops.indexing import strided_slice
        n = strided_slice(A.shape(x), [-k], [0], [1], end_mask=1)
        if inverse:   # the last length is 2 * (inner - 1)
            n = M.multiply(n, convert_to_tensor([1] * (k - 1) + [2]))
            n = M.subtract(n, convert_to_tensor([0] * (k - 1) + [2]))
        return n
    if inverse:
        dims = dims[:-1] + [2 * (dims[-1] - 1)]
    return dims


def _real_op(op_type, k, inverse, x, fft_length, name):
    with name_scope(name, op_type.lower(), [x, fft_length]) as scope:
        if inverse:
            x = _complex_input(x, op_type)
            cdt = x.dtype.base_dtype
            rdt = _REAL_OF[cdt]
        else:
            x = convert_to_tensor(x, name="input")
            rdt = x.dtype.base_dtype
            if rdt not in _COMPLEX_OF:
                raise TypeError("Value passed to parameter 'input' of %s has DataType %s not in list of allowed "
                                "values: float32, float64" % (op_type, rdt.name))
            cdt = _COMPLEX_OF[rdt]
        if fft_length is None:
            fft_length = _default_lengths(x, k, inverse)
        n = convert_to_tensor(fft_length, dtype=_dt.int32, name="fft_length")
        return apply_op(op_type, [(x, "input"), (n, "fft_length")], {"Treal": rdt, "Tcomplex": cdt}, name=scope,
                        dtypes=[rdt if inverse else cdt], same_dtype=False)


def rfft(input_tensor, fft_length=None, name=None):
    """The 1-D FFT of a real signal: the fft_length // 2 + 1 non-negative frequency bins."""
    return _real_op("RFFT", 1, False, input_tensor, fft_length, name)


def irfft(input_tensor, fft_length=None, name=None):
    """The real signal of length fft_length whose RFFT is input_tensor."""
    return _real_op("IRFFT", 1, True, input_tensor, fft_length, name)


def rfft2d(input_tensor, fft_length=None, name=None):
    """The 2-D FFT of a real signal over its 2 innermost dimensions."""
    return _real_op("RFFT2D", 2, False, input_tensor, fft_length, name)


def irfft2d(input_tensor, fft_length=None, name=None):
    """The inverse of rfft2d."""
    return _real_op("IRFFT2D", 2, True, input_tensor, fft_length, name)


def rfft3d(input_tensor, fft_length=None, name=None):
    """The 3-D FFT of a real signal over its 3 innermost dimensions."""
    return _real_op("RFFT3D", 3, False, input_tensor, fft_length, name)


def irfft3d(input_tensor, fft_length=None, name=None):
    """The inverse of rfft3d."""
    return _real_op("IRFFT3D", 3, True, input_tensor, fft_length, name)


def _nd_args(x, fft_length, axes, real_inverse):
    """(fft_length, axes) with TF's defaults: every axis, the input's lengths along them."""
    rank = x.shape.ndims
    if axes is None:
        if rank is None:
            raise ValueError("fftnd needs the input's rank when axes is None")
        axes = list(range(rank)) if fft_length is None else list(range(rank - len(np.ravel(fft_length)), rank))
    axes = [int(a) for a in np.ravel(axes)]
    if fft_length is None:
        dims = x.shape.as_list()
        if rank is None or any(dims[a] is None for a in axes):
            raise ValueError("fftnd needs fft_length when the input's dims along axes are unknown")
        fft_length = [dims[a] for a in axes]
        if real_inverse:
            fft_length[-1] = 2 * (fft_length[-1] - 1)
    return fft_length, axes


def _norm(t, fft_length, norm, inverse):
    """TF's norm= scaling on top of the unscaled forward / 1/N inverse ('backward', the default)."""
    if norm in (None, "backward"):
        return t
    if norm not in ("ortho", "forward"):
        raise ValueError("norm must be 'backward', 'ortho' or 'forward', got %r" % (norm,))
    count = float(np.prod([int(v) for v in np.ravel(fft_length)]))
    factor = np.sqrt(count) if norm == "ortho" else count
    factor = factor if inverse else 1.0 / factor
    base = t.dtype.base_dtype
    return M.multiply(t, M.cast(convert_to_tensor(factor, dtype=_REAL_OF.get(base, base)), base))


def _nd_op(op_type, real, inverse, x, fft_length, axes, norm, name):
    with name_scope(name, op_type.lower(), [x]) as scope:
        x = convert_to_tensor(x, name="input_tensor")
        fft_length, axes = _nd_args(x, fft_length, axes, real and inverse)
        if norm not in (None, "backward") and not all(isinstance(v, (int, np.integer)) for v in np.ravel(fft_length)):
            raise ValueError("norm=%r needs a static fft_length" % (norm,))
        if real:
            rdt = _REAL_OF[x.dtype.base_dtype] if inverse else x.dtype.base_dtype
            cdt = x.dtype.base_dtype if inverse else _COMPLEX_OF[rdt]
            attrs, out = {"Treal": rdt, "Tcomplex": cdt}, (rdt if inverse else cdt)
        else:
            _complex_input(x, op_type)
            attrs, out = {"Tcomplex": x.dtype.base_dtype}, x.dtype.base_dtype
        n = convert_to_tensor(fft_length, dtype=_dt.int32, name="fft_length")
        ax = convert_to_tensor(axes, dtype=_dt.int32, name="axes")
        y = apply_op(op_type, [(x, "input"), (n, "fft_length"), (ax, "axes")], attrs, name=scope, dtypes=[out],
                     same_dtype=False)
        return _norm(y, fft_length, norm, inverse)


def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The N-D FFT over axes (default all) with optional lengths and norm ('backward', 'ortho', 'forward')."""
    return _nd_op("FFTND", False, False, input_tensor, fft_length, axes, norm, name)


def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The inverse N-D FFT over axes."""
    return _nd_op("IFFTND", False, True, input_tensor, fft_length, axes, norm, name)


def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The N-D FFT of a real tensor over axes (the last axis keeps n // 2 + 1 bins)."""
    return _nd_op("RFFTND", True, False, input_tensor, fft_length, axes, norm, name)


def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The inverse of rfftnd."""
    return _nd_op("IRFFTND", True, True, input_tensor, fft_length, axes, norm, name)
