"""Stride-1 convolutions (NHWC) through a discrete Fourier transform made of small real matrix products.

A correlation is a product per frequency: transform the input (along H, then along W), multiply
each frequency's (batch, channels) block by that frequency's filter block in one GEMM, transform
back. On the MNIST 5x5 layer (14x14x32 -> 64) that is about a quarter of im2col's arithmetic and
no im2col copy. Transforms are DFT matrices applied by BLAS (no FFT library): the sizes are small,
and a matrix reads the image in NHWC order with no transposes. Complex numbers are kept as (real,
imaginary) pairs of float rows so every product is a real GEMM; the input gradient and the filter
gradient use the transposes of the same linear maps. The transform length per axis is the
smallest that keeps the circular correlation from wrapping onto the outputs.

Rounding errors scale with an image's largest values rather than each window's (as with any
FFT convolution, cuDNN's included); on activations of one scale they are about half of
im2col's in float32. A result with an inf or NaN is redone by the direct kernels (see finite).

Work is split by shape only (batch slices for the transforms, frequency slices for the products)
and no sum crosses a split, so results never depend on which thread ran what.
"""
import functools

import numpy as np

from lens.ops import conv_memo, intra_op
from lens.ops.work_np import add_bias_inplace, relu_into, scratch

# The transform is used when its products are at most this share of the im2col GEMM's
# arithmetic: its GEMMs are small (measured at about half of BLAS's speed on big ones).
MAX_COST_SHARE = 0.5
# Images per transform job (their spectra stay in the cache between the two axes' products).
BATCH_PER_JOB = 8
# Frequency jobs per call (each a stack of (batch, 2C) x (2C, 2O) products).
FREQ_JOBS = 8
# Input-channel jobs making a filter's spectrum or the filter gradient from spectra.
CHANNEL_JOBS = 4


class Plan:
    """The transform matrices for one geometry and float type.

    Spectrum layout per image: (nh, 2 * nw, channels), row (kh, kw, re/im); nh = Lh // 2 + 1 rows
    along H (the input is real, so the other half is their conjugate), nw = Lw along W.
    """

    def __init__(self, in_hw, k_hw, tops, out_hw, dtype):
        (h, w), (kh, kw), (t, l), (oh, ow) = in_hw, k_hw, tops, out_hw
        lh, lw = _length(h, kh, t, oh), _length(w, kw, l, ow)
        nh, nw = lh // 2 + 1, lw
        self.nh, self.nw, self.freqs = nh, nw, nh * nw
        # Along H: real rows -> nh (re, im) pairs.
        ang = 2 * np.pi * np.outer(np.arange(nh), np.arange(h)) / lh
        hin = np.stack([np.cos(ang), -np.sin(ang)], 1).reshape(2 * nh, h)
        # Along W: (re, im) x W values -> (kw, re/im): a complex DFT as a real 2x2-block matrix.
        ang = 2 * np.pi * np.outer(np.arange(nw), np.arange(w)) / lw
        win = _complex_block(np.cos(ang), -np.sin(ang)).transpose(0, 1, 3, 2).reshape(2 * nw, 2 * w)
        # Back along W: (kw, re/im) -> (re/im, output column), the inverse DFT's exponent sign.
        ang = 2 * np.pi * np.outer(np.arange(ow), np.arange(nw)) / lw
        wout = _complex_block(np.cos(ang), np.sin(ang)).transpose(1, 0, 2, 3).reshape(2 * ow, 2 * nw)
        # Back along H: the real part, each conjugate pair counted twice, and the 1 / (Lh Lw).
        weight = np.full(nh, 2.0)
        weight[0] = 1.0
        if lh % 2 == 0:
            weight[-1] = 1.0
        ang = 2 * np.pi * np.outer(np.arange(oh), np.arange(nh)) / lh
        hout = np.stack([np.cos(ang) * weight, -np.sin(ang) * weight], 2).reshape(oh, 2 * nh) / (lh * lw)
        # Filter taps -> frequencies: exp(+i 2 pi k (tap - pad) / L) (correlation, shifted by the pad).
        eh = np.exp(2j * np.pi * np.outer(np.arange(nh), np.arange(kh) - t) / lh)
        ew = np.exp(2j * np.pi * np.outer(np.arange(nw), np.arange(kw) - l) / lw)
        taps = (eh[:, None, :, None] * ew[None, :, None, :]).reshape(nh * nw, kh * kw)
        mats = dict(hin=hin, win=win, wout=wout, hout=hout, taps_re=taps.real, taps_im=taps.imag)
        for name, m in mats.items():
            setattr(self, name, np.ascontiguousarray(m, dtype=dtype))
            setattr(self, name + "_t", np.ascontiguousarray(m.T, dtype=dtype))
        self.cost = (2 * nh * h * w + 4 * nh * nw * w, 4 * nh * nw * ow + 2 * oh * nh * ow, 4 * nh * nw)


def _complex_block(re, im):
    """(rows, 2, cols, 2) real matrix applying the complex matrix re + i im to (re, im) pairs."""
    m = np.empty(re.shape[:1] + (2,) + re.shape[1:] + (2,))
    m[:, 0, :, 0], m[:, 0, :, 1] = re, -im
    m[:, 1, :, 0], m[:, 1, :, 1] = im, re
    return m


def _length(size, k, before, out):
    """Transform length along one axis: no input index of an output's taps may wrap around
    onto the image (taps before it land in the zeros after it, taps after it stay in range)."""
    return max(size + before, out + k - 1 - before, out, size, 1)


@functools.lru_cache(maxsize=32)
def _plan(key):
    in_hw, k_hw, tops, out_hw, dtype = key
    p = Plan(in_hw, k_hw, tops, out_hw, np.dtype(dtype))
    p.key = key     # names its transforms in conv_memo
    return p


def plan_for(in_hw, geo, dtype):
    """The cached Plan of a geometry."""
    return _plan((tuple(in_hw), geo.k_hw, (geo.pads[0][0], geo.pads[1][0]), geo.out_hw, np.dtype(dtype).str))


def usable(x_shape, channels_out, geo, *arrays):
    """True when this path should run the convolution: stride and dilation 1, float32 or float64
    operands of one type, and transform products well under the im2col GEMM's."""
    if geo.strides != (1, 1) or geo.dilations != (1, 1) or MAX_COST_SHARE <= 0:
        return False
    dtype = arrays[0].dtype
    if dtype not in (np.float32, np.float64) or any(a.dtype != dtype for a in arrays):
        return False
    n, h, w, c = x_shape
    if min(n, h, w, c, channels_out) <= 0 or min(geo.out_hw) <= 0:
        return False
    p = plan_for((h, w), geo, dtype)
    into, back, prod = p.cost
    fourier = 2 * (into * c + back * channels_out + prod * 2 * c * channels_out)
    direct = 2 * geo.out_hw[0] * geo.out_hw[1] * geo.k_hw[0] * geo.k_hw[1] * c * channels_out
    return fourier <= MAX_COST_SHARE * direct


def _run(job, count):
    """intra_op.run_chunks with floating-point warnings off on whichever thread runs a job: a
    non-finite value sends the call to the direct kernels (see finite), which warn as before."""
    def quiet(i):
        with np.errstate(all="ignore"):
            return job(i)
    return intra_op.run_chunks(quiet, count)


def _quiet(kernel):
    """The kernel with floating-point warnings off on the calling thread (see _run)."""
    @functools.wraps(kernel)
    def run(*args, **kwargs):
        with np.errstate(all="ignore"):
            return kernel(*args, **kwargs)
    return run


def finite(a):
    """True when every value of a result is finite (one summing pass).

    A transform spreads each input value over a whole image: an inf or NaN anywhere (or a sum
    overflowing) makes every output of that image non-finite, where a direct convolution keeps
    it to the windows that read it. Callers redo such a call the direct way, so non-finite
    values land where TF's kernels put them."""
    with np.errstate(all="ignore"):
        return bool(np.isfinite(np.add.reduce(a.reshape(-1))))


def _filter_spectrum(p, f):
    """(freqs, 2C, 2O) real blocks [[re, im], [-im, re]] of each frequency's filter (read only)."""
    c, o = f.shape[2:]
    return conv_memo.transform(("filter", f.shape, p.key), f, (p.freqs, 2 * c, 2 * o), f.dtype,
                               lambda blocks: _make_filter_spectrum(p, f, blocks))


def _make_filter_spectrum(p, f, blocks):
    kh, kw, c, o = f.shape
    f3 = f.reshape(kh * kw, c, o)
    jobs = _channel_jobs(c)

    def job(i):     # input channels c0..c1-1 of every block
        c0, c1 = jobs[i].start, jobs[i].stop
        part = f3[:, c0:c1].reshape(kh * kw, -1)
        re = np.matmul(p.taps_re, part, out=scratch("fourier_taps_re", (p.freqs, part.shape[1]), f.dtype))
        im = np.matmul(p.taps_im, part, out=scratch("fourier_taps_im", (p.freqs, part.shape[1]), f.dtype))
        re, im = re.reshape(-1, c1 - c0, o), im.reshape(-1, c1 - c0, o)
        blocks[:, c0:c1, :o] = re
        blocks[:, c + c0:c + c1, o:] = re
        blocks[:, c0:c1, o:] = im
        np.negative(im, out=blocks[:, c + c0:c + c1, :o])
    _run(job, len(jobs))


def _filter_gradient(p, blocks, f_shape):
    """d loss / d taps from each frequency's block gradient (both copies of re and im in a block)."""
    kh, kw, c, o = f_shape
    df = np.empty((kh * kw, c, o), blocks.dtype)
    jobs = _channel_jobs(c)

    def job(i):
        c0, c1 = jobs[i].start, jobs[i].stop
        shape = (p.freqs, c1 - c0, o)
        re = np.add(blocks[:, c0:c1, :o], blocks[:, c + c0:c + c1, o:], out=scratch("fourier_taps_re", shape, df.dtype))
        im = np.subtract(blocks[:, c0:c1, o:], blocks[:, c + c0:c + c1, :o], out=scratch("fourier_taps_im", shape, df.dtype))
        part = np.matmul(p.taps_re_t, re.reshape(p.freqs, -1))
        part += np.matmul(p.taps_im_t, im.reshape(p.freqs, -1))
        df[:, c0:c1] = part.reshape(kh * kw, c1 - c0, o)
    _run(job, len(jobs))
    return df.reshape(f_shape)


def _channel_jobs(c):
    step = -(-c // CHANNEL_JOBS)
    return [slice(s, min(s + step, c)) for s in range(0, c, step)]


def _batch_jobs(n):
    return [slice(s, min(s + BATCH_PER_JOB, n)) for s in range(0, n, BATCH_PER_JOB)]


def _freq_jobs(freqs):
    step = -(-freqs // FREQ_JOBS)
    return [slice(s, min(s + step, freqs)) for s in range(0, freqs, step)]


def _to_spectra(rows, cols, a, nh, out):
    """out (n, nh, 2nw, C) = cols @ (rows @ a[i] along H) per image and row: a (n, H, W, C)."""
    n, h, w, c = a.shape
    half = np.matmul(rows, a.reshape(n, h, w * c), out=scratch("fourier_half", (n, 2 * nh, w * c), a.dtype))
    np.matmul(cols, half.reshape(n, nh, 2 * w, c), out=out)


def _from_spectra(cols, rows, s, out_hw, out):
    """out (n, OH, OW, C) from spectra s (n, nh, 2nw, C): cols along W, then rows along H."""
    n, nh, _, c = s.shape
    half = np.matmul(cols, s, out=scratch("fourier_half", (n, nh, 2 * out_hw[1], c), s.dtype))
    np.matmul(rows, half.reshape(n, 2 * nh, out_hw[1] * c), out=out.reshape(n, out_hw[0], out_hw[1] * c))


def _spectra(p, a, side):
    """Spectra (n, nh, 2nw, C) of an input batch (side "in") or of an output gradient ("out"),
    a (n, H, W, C), made in batch jobs (read only)."""
    rows, cols = (p.hin, p.win) if side == "in" else (p.hout_t, p.wout_t)
    jobs = _batch_jobs(a.shape[0])

    def make(s):
        def job(i):
            _to_spectra(rows, cols, a[jobs[i]], p.nh, s[jobs[i]])
        _run(job, len(jobs))
    shape = (a.shape[0], p.nh, 2 * p.nw, a.shape[3])
    return conv_memo.transform((side, a.shape, p.key), a, shape, a.dtype, make)


def _per_freq(s):
    """The (freqs, n, 2C) view of spectra (n, nh, 2nw, C)."""
    n, nh, two_nw, c = s.shape
    return s.reshape(n, nh * two_nw // 2, 2 * c).transpose(1, 0, 2)


def _products(a, b, out):
    """out[f] = a[f] @ b[f] for every frequency f, in frequency jobs."""
    jobs = _freq_jobs(a.shape[0])

    def job(i):
        np.matmul(a[jobs[i]], b[jobs[i]], out=out[jobs[i]])
    _run(job, len(jobs))
    return out


@_quiet
def conv2d(x, f, geo, out=None, bias=None, relu=False):
    """Forward convolution x (N,H,W,C), f (KH,KW,C,O) -> (N,OH,OW,O), plus bias and relu if asked."""
    n, o = x.shape[0], f.shape[3]
    p = plan_for(x.shape[1:3], geo, x.dtype)
    given = out
    if out is None or not out.flags.c_contiguous:
        out = np.empty((n,) + geo.out_hw + (o,), x.dtype)
    xs = _spectra(p, x, "in")
    ys = scratch("fourier_products", (n, p.nh, 2 * p.nw, o), x.dtype)
    _products(_per_freq(xs), _filter_spectrum(p, f), _per_freq(ys))
    jobs = _batch_jobs(n)

    def job(i):
        b = jobs[i]
        _from_spectra(p.wout, p.hout, ys[b], geo.out_hw, out[b])
        if bias is not None or relu:
            flat = out[b].reshape(-1, o)
            if bias is not None:
                add_bias_inplace(flat, bias)
            if relu:
                relu_into(flat, flat)
    _run(job, len(jobs))
    if given is not None and given is not out:
        np.copyto(given, out)
        return given
    return out


@_quiet
def conv2d_backprop_input(in_shape, f, dy, geo):
    """d loss / d input: the transposed maps, output gradient -> spectra -> input grid."""
    n, h, w, c = in_shape
    p = plan_for((h, w), geo, dy.dtype)
    gs = _spectra(p, dy, "out")
    xs = scratch("fourier_products", (n, p.nh, 2 * p.nw, c), dy.dtype)
    _products(_per_freq(gs), _filter_spectrum(p, f).transpose(0, 2, 1), _per_freq(xs))
    dx = np.empty((n, h, w, c), dy.dtype)
    jobs = _batch_jobs(n)

    def job(i):
        _from_spectra(p.win_t, p.hin_t, xs[jobs[i]], (h, w), dx[jobs[i]])
    _run(job, len(jobs))
    return dx


@_quiet
def conv2d_backprop_filter(x, dy, f_shape, geo):
    """d loss / d filter: per frequency, input spectra transposed times output-gradient spectra
    (each a sum over the whole batch in one GEMM), then back to the taps."""
    kh, kw, c, o = f_shape
    p = plan_for(x.shape[1:3], geo, x.dtype)
    xs = _spectra(p, x, "in")
    gs = _spectra(p, dy, "out")
    blocks = scratch("fourier_products", (p.freqs, 2 * c, 2 * o), x.dtype)
    _products(_per_freq(xs).transpose(0, 2, 1), _per_freq(gs), blocks)
    return _filter_gradient(p, blocks, f_shape)
