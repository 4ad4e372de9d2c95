"""tf.signal's composites as TF builds them: frame / overlap_and_add, windows, stft / inverse_stft,
mdct / inverse_mdct, dct / idct, the mel weight matrix and MFCCs, fftshift (on lens ops, so they
have gradients wherever their pieces do)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import Tensor, name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.indexing import gather, reverse, split, unsorted_segment_sum
from lens.ops.linalg import matmul
from lens.ops.scan_ops import roll
from lens.ops.sequence import range as _range
from lens.ops.shapes import const_value
from lens.ops.signal_fft import irfft, rfft


def _static_int(x):
    """x as a Python int when known at build time, else None."""
    if isinstance(x, Tensor):
        v = const_value(x)
        return None if v is None else int(v)
    return int(x)


def _float_dtype(dtype):
    dtype = _dt.as_dtype(dtype).base_dtype
    if not dtype.is_floating:
        raise ValueError("dtype must be a floating point type. Found %s" % dtype)
    return dtype


# ---- framing ----------------------------------------------------------------------------------
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """signal's axis split into frames of frame_length samples every frame_step: [..., frames, frame_length, ...]."""
    with name_scope(name, "frame", [signal, frame_length, frame_step, pad_value]):
        signal = convert_to_tensor(signal, name="signal")
        rank = signal.shape.ndims
        if rank is not None and rank < 1:
            raise ValueError("Shape must be at least rank 1 but is rank 0 for 'signal' of frame")
        if rank is None:
            raise ValueError("frame needs the rank of 'signal' known when the graph is built")
        axis = int(axis) % rank
        fl, fs = _static_int(frame_length), _static_int(frame_step)
        length = signal.shape.as_list()[axis]
        if fl is not None and fs is not None and length is not None:
            if fs <= 0 or fl <= 0:
                raise ValueError("frame_length and frame_step must be positive, got %d and %d" % (fl, fs))
            if pad_end:
                n = -(-length // fs)
                extra = max(0, fl + fs * (n - 1) - length)
                if extra:
                    pads = [[0, 0]] * rank
                    pads[axis] = [0, extra]
                    signal = A.pad(signal, pads, constant_values=convert_to_tensor(pad_value, signal.dtype))
            else:
                n = max(0, 1 + (length - fl) // fs)
            idx = (np.arange(n)[:, None] * fs + np.arange(fl)[None, :]).astype(np.int32).reshape(n, fl)
            return gather(signal, convert_to_tensor(idx, name="indices"), axis=axis)
        fl = convert_to_tensor(frame_length, dtype=_dt.int32, name="frame_length")
        fs = convert_to_tensor(frame_step, dtype=_dt.int32, name="frame_step")
        length = A.shape(signal)[axis]
        if pad_end:
            n = M.floordiv(M.add(length, fs - 1), fs)
            extra = M.maximum(0, M.subtract(M.add(fl, M.multiply(fs, n - 1)), length))
            pads = A.concat([A.zeros([axis, 2], _dt.int32), A.reshape(A.stack([0, extra]), [1, 2]),
                             A.zeros([rank - axis - 1, 2], _dt.int32)], 0)
            signal = A.pad(signal, pads, constant_values=convert_to_tensor(pad_value, signal.dtype))
        else:
            n = M.maximum(0, M.add(1, M.floordiv(M.subtract(length, fl), fs)))
        idx = M.add(A.expand_dims(M.multiply(_range(n), fs), 1), A.expand_dims(_range(fl), 0))
        return gather(signal, idx, axis=axis)


def overlap_and_add(signal, frame_step, name=None):
    """[..., frames, frame_length] frames summed back at frame_step offsets: [..., output_size]."""
    with name_scope(name, "overlap_and_add", [signal, frame_step]):
        signal = convert_to_tensor(signal, name="signal")
        dims = signal.shape.as_list() if signal.shape.ndims is not None else None
        if dims is None or len(dims) < 2:
            raise ValueError("Shape must be at least rank 2 for 'signal' of overlap_and_add, got %s" % signal.shape)
        fs = _static_int(frame_step)
        if fs is None or dims[-2] is None or dims[-1] is None:
            raise ValueError("overlap_and_add needs a constant frame_step and static [frames, frame_length]; "
                             "got frame_step=%r, signal shape %s" % (frame_step, signal.shape))
        n, fl = dims[-2], dims[-1]
        out_len = max(0, (n - 1) * fs + fl) if n else 0
        idx = (np.arange(n)[:, None] * fs + np.arange(fl)[None, :]).reshape(-1).astype(np.int32)
        outer = dims[:-2]
        flat_outer = A.reshape(signal, [-1, n * fl])
        summed = unsorted_segment_sum(A.transpose(flat_outer), convert_to_tensor(idx), out_len)
        out = A.transpose(summed)
        if None in outer:
            from lens.ops.indexing import strided_slice
            shape = A.concat([strided_slice(A.shape(signal), [0], [-2], [1]), [out_len]], 0)
        else:
            shape = outer + [out_len]
        return A.reshape(out, shape)


# ---- windows ----------------------------------------------------------------------------------
def _raised_cosine(window_length, periodic, dtype, a, b, name, default):
    dtype = _float_dtype(dtype)
    with name_scope(name, default, [window_length]):
        length = _static_int(window_length)
        if length is not None:
            if length == 1:
                return A.ones([1], dtype=dtype)
            # TF's periodic window only differs for even lengths: N = length - 1 + periodic * even
            denom = length - 1 + (1 if periodic and length % 2 == 0 else 0)
            w = a - b * np.cos(2.0 * np.pi * np.arange(length) / denom)
            return convert_to_tensor(w.astype(dtype.as_numpy_dtype))
        n = convert_to_tensor(window_length, dtype=_dt.int32, name="window_length")
        even = M.subtract(1, M.floormod(n, 2))
        denom = M.cast(M.maximum(M.subtract(M.add(n, even), 1) if periodic else M.subtract(n, 1), 1), dtype)
        arg = M.cast(_range(n), dtype)
        w = M.subtract(a, M.multiply(b, M.cos(M.truediv(M.multiply(2.0 * np.pi, arg), denom))))
        from lens.ops.logic import equal
        one = M.cast(equal(n, 1), dtype)   # a length-1 window is [1.0], as TF's
        return M.add(w, M.multiply(one, M.subtract(1.0, w)))


def hann_window(window_length, periodic=True, dtype=_dt.float32, name=None):
    """0.5 - 0.5 cos(2 pi n / N) (N = window_length - 1, plus 1 for periodic even lengths, as TF)."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, name, "hann_window")


def hamming_window(window_length, periodic=True, dtype=_dt.float32, name=None):
    """0.54 - 0.46 cos(2 pi n / N) (N = window_length - 1, plus 1 for periodic even lengths, as TF)."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, name, "hamming_window")


def _static_length(window_length, what):
    length = _static_int(window_length)
    if length is None:
        raise ValueError("%s needs a window_length known when the graph is built, got %r" % (what, window_length))
    return length


def _kaiser_np(length, beta):
    if length == 1:
        return np.ones(1)
    half = (length - 1) / 2.0
    arg = np.arange(-half, half + 0.1)[:length]
    return np.i0(beta * np.sqrt(np.maximum(0.0, 1.0 - (arg / half) ** 2))) / np.i0(beta)


def kaiser_window(window_length, beta=12., dtype=_dt.float32, name=None):
    """The Kaiser window I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)."""
    dtype = _float_dtype(dtype)
    with name_scope(name, "kaiser_window"):
        w = _kaiser_np(_static_length(window_length, "kaiser_window"), float(beta))
        return convert_to_tensor(w.astype(dtype.as_numpy_dtype))


def kaiser_bessel_derived_window(window_length, beta=12., dtype=_dt.float32, name=None):
    """The Kaiser-Bessel-derived window (for MDCTs): square roots of a Kaiser window's running sums."""
    dtype = _float_dtype(dtype)
    with name_scope(name, "kaiser_bessel_derived_window"):
        length = _static_length(window_length, "kaiser_bessel_derived_window")
        csum = np.cumsum(_kaiser_np(length // 2 + 1, float(beta)))
        half = np.sqrt(csum[:-1] / csum[-1])
        return convert_to_tensor(np.concatenate([half, half[::-1]]).astype(dtype.as_numpy_dtype))


def vorbis_window(window_length, dtype=_dt.float32, name=None):
    """The Vorbis power-complementary window sin(pi/2 sin^2(pi (n + 1/2) / N))."""
    dtype = _float_dtype(dtype)
    with name_scope(name, "vorbis_window"):
        length = _static_length(window_length, "vorbis_window")
        w = np.sin(np.pi / 2.0 * np.sin(np.pi / length * (np.arange(length) + 0.5)) ** 2)
        return convert_to_tensor(w.astype(dtype.as_numpy_dtype))


# ---- short-time transforms ----------------------------------------------------------------------
def _enclosing_power_of_2(n):
    return int(2 ** np.ceil(np.log2(n)))


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """The short-time Fourier transform of real [..., samples] signals: [..., frames, fft_length // 2 + 1]."""
    with name_scope(name, "stft", [signals, frame_length, frame_step]):
        signals = convert_to_tensor(signals, name="signals")
        if signals.shape.ndims is not None and signals.shape.ndims < 1:
            raise ValueError("Shape must be at least rank 1 for 'signals' of stft, got %s" % signals.shape)
        fl = _static_length(frame_length, "stft")
        fft_length = _enclosing_power_of_2(fl) if fft_length is None else _static_length(fft_length, "stft")
        framed = frame(signals, fl, frame_step, pad_end=pad_end)
        if window_fn is not None:
            framed = M.multiply(framed, window_fn(fl, dtype=framed.dtype.base_dtype))
        return rfft(framed, [fft_length])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window_fn for inverse_stft that undoes forward_window_fn's overlapping gain."""
    def window_fn(frame_length, dtype):
        with name_scope(name, "inverse_stft_window_fn", [forward_window_fn]):
            fs = _static_length(frame_step, "inverse_stft_window_fn")
            fl = _static_length(frame_length, "inverse_stft_window_fn")
            fwd = forward_window_fn(fl, dtype=dtype)
            denom = M.square(fwd)
            overlaps = -(-fl // fs)
            denom = A.pad(denom, [(0, overlaps * fs - fl)])
            denom = A.reshape(denom, [overlaps, fs])
            from lens.ops.reduce import reduce_sum
            denom = reduce_sum(denom, 0, keepdims=True)
            denom = A.reshape(A.tile(denom, [overlaps, 1]), [overlaps * fs])
            from lens.ops.slicing import slice as _slice
            return M.truediv(fwd, _slice(denom, [0], [fl]))
    return window_fn


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """Real [..., samples] signals from [..., frames, fft_length // 2 + 1] STFTs (overlap-add of irfft frames)."""
    with name_scope(name, "inverse_stft", [stfts]):
        stfts = convert_to_tensor(stfts, name="stfts")
        if stfts.shape.ndims is not None and stfts.shape.ndims < 2:
            raise ValueError("Shape must be at least rank 2 for 'stfts' of inverse_stft, got %s" % stfts.shape)
        fl = _static_length(frame_length, "inverse_stft")
        fft_length = _enclosing_power_of_2(fl) if fft_length is None else _static_length(fft_length, "inverse_stft")
        frames = irfft(stfts, [fft_length])
        rank = frames.shape.ndims
        from lens.ops.slicing import slice as _slice
        frames = _slice(frames, [0] * rank, [-1] * (rank - 1) + [min(fl, fft_length)])
        if fl > fft_length:
            frames = A.pad(frames, [[0, 0]] * (rank - 1) + [[0, fl - fft_length]])
        if window_fn is not None:
            frames = M.multiply(frames, window_fn(fl, dtype=stfts.dtype.real_dtype))
        return overlap_and_add(frames, frame_step)


# ---- DCT --------------------------------------------------------------------------------------
def _dct_matrix(n_in, n, dct_type, norm):
    """(n, n_in) float64 matrix M with y = M @ x for a length-n (cropped or padded) DCT of dct_type."""
    k = np.arange(n)[:, None]
    t = np.arange(n)[None, :]
    if dct_type == 1:
        m = 2.0 * np.cos(np.pi * k * t / (n - 1))
        m[:, 0] = 1.0
        m[:, -1] = (-1.0) ** np.arange(n)
    elif dct_type == 2:
        m = 2.0 * np.cos(np.pi * k * (2 * t + 1) / (2.0 * n))
        if norm == "ortho":
            m[0] *= np.sqrt(1.0 / (4 * n))
            m[1:] *= np.sqrt(1.0 / (2 * n))
    elif dct_type == 3:
        m = 2.0 * np.cos(np.pi * t * (2 * k + 1) / (2.0 * n))
        m[:, 0] = 1.0
        if norm == "ortho":
            m[:, 0] /= np.sqrt(n)
            m[:, 1:] *= np.sqrt(1.0 / (2 * n))
    else:
        m = 2.0 * np.cos(np.pi * (2 * t + 1) * (2 * k + 1) / (4.0 * n))
        if norm == "ortho":
            m *= np.sqrt(1.0 / (2 * n))
    # inputs longer than n are cropped, shorter ones zero-padded: drop or keep columns
    full = np.zeros((n, n_in))
    full[:, :min(n, n_in)] = m[:, :min(n, n_in)]
    return full


def _check_dct(x, dct_type, n, axis, norm):
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported, got type %r." % (dct_type,))
    if axis != -1:
        raise NotImplementedError("axis must be -1. Got: %s" % axis)
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if norm not in (None, "ortho"):
        raise ValueError("Unknown normalization. Expected None or 'ortho', got: %s" % norm)
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        length = x.shape.as_list()[-1] if x.shape.ndims else None
        if (n or length) is not None and (n or length) < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The type-I/II/III/IV discrete cosine transform along the last axis (scipy's definitions)."""
    with name_scope(name, "dct", [input]):
        x = convert_to_tensor(input, name="input")
        _check_dct(x, type, n, axis, norm)
        length = x.shape.as_list()[-1] if x.shape.ndims else None
        if length is None:
            raise ValueError("dct needs the static length of the last axis of %s" % x.name)
        mat = _dct_matrix(length, n or length, type, norm).T.astype(x.dtype.as_numpy_dtype)
        rank = x.shape.ndims
        flat = A.reshape(x, [-1, length]) if rank != 2 else x
        y = matmul(flat, convert_to_tensor(mat, name="dct_matrix"))
        if rank == 2:
            return y
        from lens.ops.indexing import strided_slice
        outer = x.shape.as_list()[:-1]
        shape = outer + [n or length] if None not in outer else \
            A.concat([strided_slice(A.shape(x), [0], [-1], [1]), [n or length]], 0)
        return A.reshape(y, shape)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The inverse DCT: idct(dct(x)) == x with norm='ortho', 2 * (N or N - 1 for type I) * x otherwise."""
    _check_dct(convert_to_tensor(input), type, n, axis, norm)
    inverse = {1: 1, 2: 3, 3: 2, 4: 4}[type]
    return dct(input, type=inverse, n=n, axis=axis, norm=norm, name=name or "idct")


# ---- MDCT -------------------------------------------------------------------------------------
def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The modified DCT of [..., samples] signals with frames of frame_length at half-frame steps."""
    with name_scope(name, "mdct", [signals, frame_length]):
        signals = convert_to_tensor(signals, name="signals")
        fl = _static_length(frame_length, "mdct")
        if fl % 4 != 0:
            raise ValueError("The frame length must be a multiple of 4.")
        framed = frame(signals, fl, fl // 2, pad_end=pad_end)
        if window_fn is not None:
            framed = M.multiply(framed, window_fn(fl, dtype=framed.dtype.base_dtype))
        else:
            framed = M.multiply(framed, convert_to_tensor(1.0 / np.sqrt(2), framed.dtype.base_dtype))
        a, b, c, d = split(framed, 4, axis=-1)
        first = M.subtract(M.negative(reverse(c, [-1])), d)
        second = M.subtract(a, reverse(b, [-1]))
        return dct(A.concat([first, second], -1), type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """[..., samples] signals from [..., frames, frame_length // 2] MDCTs (TDAC overlap-add)."""
    with name_scope(name, "inverse_mdct", [mdcts]):
        mdcts = convert_to_tensor(mdcts, name="mdcts")
        if mdcts.shape.ndims is not None and mdcts.shape.ndims < 2:
            raise ValueError("Shape must be at least rank 2 for 'mdcts' of inverse_mdct, got %s" % mdcts.shape)
        half = mdcts.shape.as_list()[-1]
        if norm is None:
            y = M.multiply(dct(mdcts, type=4), convert_to_tensor(0.5 / half, mdcts.dtype.base_dtype))
        elif norm == "ortho":
            y = dct(mdcts, type=4, norm="ortho")
        else:
            raise ValueError("Unknown normalization. Expected None or 'ortho', got: %s" % norm)
        first, second = split(y, 2, axis=-1)
        frames = A.concat([second, M.negative(reverse(second, [-1])), M.negative(reverse(first, [-1])),
                           M.negative(first)], -1)
        if window_fn is not None:
            frames = M.multiply(frames, window_fn(2 * half, dtype=mdcts.dtype.base_dtype))
        else:
            frames = M.multiply(frames, convert_to_tensor(1.0 / np.sqrt(2), mdcts.dtype.base_dtype))
        return overlap_and_add(frames, half)


# ---- mel scale --------------------------------------------------------------------------------
def _hz_to_mel(hz):
    return 1127.0 * np.log1p(np.asarray(hz, np.float64) / 700.0)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0, dtype=_dt.float32, name=None):
    """The [num_spectrogram_bins, num_mel_bins] matrix of triangular mel filters (HTK mel scale)."""
    dtype = _float_dtype(dtype)
    with name_scope(name, "linear_to_mel_weight_matrix"):
        sample_rate = _static_int(sample_rate) if isinstance(sample_rate, Tensor) else sample_rate
        if num_mel_bins <= 0:
            raise ValueError("num_mel_bins must be positive. Got: %s" % num_mel_bins)
        if lower_edge_hertz < 0.0:
            raise ValueError("lower_edge_hertz must be non-negative. Got: %s" % lower_edge_hertz)
        if lower_edge_hertz >= upper_edge_hertz:
            raise ValueError("lower_edge_hertz %.1f >= upper_edge_hertz %.1f" % (lower_edge_hertz, upper_edge_hertz))
        if sample_rate <= 0.0:
            raise ValueError("sample_rate must be positive. Got: %s" % sample_rate)
        if upper_edge_hertz > sample_rate / 2:
            raise ValueError("upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). "
                             "Got %s for sample_rate: %s" % (upper_edge_hertz, sample_rate))
        np_dt = dtype.as_numpy_dtype
        nyquist = np_dt(sample_rate / 2.0)
        linear = np.linspace(np_dt(0.0), nyquist, num_spectrogram_bins, dtype=np_dt)[1:]
        spec_mel = (np_dt(1127.0) * np.log1p(linear / np_dt(700.0)))[:, None]
        lo, hi = (np_dt(1127.0) * np.log1p(np.asarray([lower_edge_hertz, upper_edge_hertz], np_dt) / np_dt(700.0)))
        edges = np.linspace(lo, hi, num_mel_bins + 2, dtype=np_dt)
        lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
        lower_slopes = (spec_mel - lower) / (center - lower)
        upper_slopes = (upper - spec_mel) / (upper - center)
        weights = np.maximum(np_dt(0.0), np.minimum(lower_slopes, upper_slopes))
        weights = np.concatenate([np.zeros((1, num_mel_bins), np_dt), weights], 0)
        return convert_to_tensor(weights.astype(np_dt), name="linear_to_mel_weight_matrix")


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the orthonormal-scaled type-II DCT of [..., num_mel_bins] log-mel spectrograms."""
    with name_scope(name, "mfccs_from_log_mel_spectrograms", [log_mel_spectrograms]):
        x = convert_to_tensor(log_mel_spectrograms, name="log_mel_spectrograms")
        bins = x.shape.as_list()[-1] if x.shape.ndims else None
        if bins is None:
            raise ValueError("mfccs_from_log_mel_spectrograms needs the static num_mel_bins (last dim)")
        return M.multiply(dct(x, type=2), convert_to_tensor(1.0 / np.sqrt(bins * 2.0), x.dtype.base_dtype))


# ---- shifts -----------------------------------------------------------------------------------
def _shift(x, axes, sign, name, default):
    with name_scope(name, default, [x]):
        x = convert_to_tensor(x, name="x")
        dims = x.shape.as_list()
        if axes is None:
            axes = list(range(len(dims)))
        axes = [int(a) for a in np.ravel(axes)]
        if any(dims[a] is None for a in axes):
            from lens.ops.indexing import gather as _g
            shifts = M.floordiv(_g(A.shape(x), axes), 2)
            shifts = shifts if sign > 0 else M.negative(shifts)
        else:
            shifts = [(dims[a] // 2) * sign for a in axes]
        return roll(x, shifts, axes)


def fftshift(x, axes=None, name=None):
    """x rolled so the zero frequency sits at the centre of each of axes (default all)."""
    return _shift(x, axes, 1, name, "fftshift")


def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift."""
    return _shift(x, axes, -1, name, "ifftshift")
