"""Convolution kernels that skip the padding's zeros (NHWC, one im2col row per output position).

Under padding, the windows of border outputs hang over the image edge and an im2col GEMM spends
part of its work multiplying zeros (16% of it for a 5x5 SAME kernel on a 14x14 image). Along
each axis, consecutive outputs whose windows keep the same taps inside the image form a band; a
pair of bands (rows x columns) is one GEMM over its valid taps only, read straight from the
unpadded input, with the filter cut to those taps. Jobs (a band pair and a slice of the batch)
write disjoint outputs or their own partial sums, combined in job order: values never depend on
which thread ran a job.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from lens.ops import intra_op
from lens.ops.work_np import add_bias_inplace, relu_into, scratch

# A job's im2col block is about this big (read by the GEMM from the cache right after it is
# written); on the MNIST layer 2 MiB measured 0-5% less CPU than 1 or 4 MiB.
BLOCK_BYTES = 1 << 21
# Banding is used when it skips at least this share of the im2col's taps (below it, the extra
# calls and the copy of the output cost more than the zeros).
MIN_SKIPPED = 0.05


def axis_bands(size, k, stride, dilation, before, out):
    """[(o0, o1, t0, t1)]: outputs o0..o1-1 along one axis whose taps inside the input are t0..t1-1."""
    bands = []
    for o in range(out):
        start = o * stride - before     # input index of tap 0
        t0 = min(k, max(0, -(start // dilation)))
        t1 = max(t0, min(k, (size - 1 - start) // dilation + 1))
        if bands and bands[-1][2:] == (t0, t1):
            bands[-1] = (bands[-1][0], o + 1, t0, t1)
        else:
            bands.append((o, o + 1, t0, t1))
    return bands


def _bands(in_hw, geo):
    return [axis_bands(in_hw[a], geo.k_hw[a], geo.strides[a], geo.dilations[a], geo.pads[a][0], geo.out_hw[a])
            for a in range(2)]


def skipped_share(in_hw, geo):
    """Share of the im2col's taps that banding skips (the padding's zeros)."""
    share = 1.0
    for a, bands in enumerate(_bands(in_hw, geo)):
        full = geo.out_hw[a] * geo.k_hw[a]
        if full == 0:
            return 0.0
        share *= sum((o1 - o0) * (t1 - t0) for o0, o1, t0, t1 in bands) / full
    return 1.0 - share


def worth_banding(in_hw, geo):
    """True when the banded kernels should replace the padded im2col for this geometry."""
    return any(p for pair in geo.pads for p in pair) and skipped_share(in_hw, geo) >= MIN_SKIPPED


def _jobs(x_shape, itemsize, geo):
    """(ybands, xbands, [(y band, x band, first image, end image)]): batch slices of about
    BLOCK_BYTES of im2col per band pair, biggest bands first."""
    n, c = x_shape[0], x_shape[3]
    ybands, xbands = _bands(x_shape[1:3], geo)
    jobs = []
    for yb in ybands:
        for xb in xbands:
            per_image = (yb[1] - yb[0]) * (xb[1] - xb[0]) * (yb[3] - yb[2]) * (xb[3] - xb[2]) * c * itemsize
            step = max(1, BLOCK_BYTES // max(1, per_image))
            jobs.extend((yb, xb, s, min(s + step, n)) for s in range(0, n, step))
    jobs.sort(key=lambda j: -(j[0][1] - j[0][0]) * (j[1][1] - j[1][0]) * (j[3] - j[2]))
    return jobs


def _cols(x, geo, yb, xb, s0, s1):
    """im2col (M, K) in scratch of images s0..s1-1 at the band pair's outputs, valid taps only."""
    (y0, y1, i0, i1), (x0, x1, j0, j1) = yb, xb
    (sh, sw), (dh, dw) = geo.strides, geo.dilations
    shape = (s1 - s0, y1 - y0, x1 - x0, i1 - i0, j1 - j0, x.shape[3])
    cols = scratch("band_cols", shape, x.dtype)
    if cols.size:
        r0 = y0 * sh - geo.pads[0][0] + i0 * dh     # first input row and column read (never padding)
        c0 = x0 * sw - geo.pads[1][0] + j0 * dw
        st = x.strides
        np.copyto(cols, as_strided(x[s0:s1, r0:, c0:], shape,
                                   (st[0], st[1] * sh, st[2] * sw, st[1] * dh, st[2] * dw, st[3]),
                                   writeable=False))
    return cols.reshape(shape[0] * shape[1] * shape[2], -1)


def _filters(f, jobs):
    """{(i0, i1, j0, j1): contiguous (K, O) filter of those taps}, made before any job runs."""
    cut = {}
    for (_, _, i0, i1), (_, _, j0, j1), _, _ in jobs:
        key = (i0, i1, j0, j1)
        if key not in cut:
            cut[key] = np.ascontiguousarray(f[i0:i1, j0:j1]).reshape(-1, f.shape[3])
    return cut


def conv2d(x, f, geo, out=None, bias=None, relu=False):
    """Forward convolution x (N,H,W,C), f (KH,KW,C,O) -> (N,OH,OW,O), plus bias and relu if asked."""
    n, o = x.shape[0], f.shape[3]
    dtype = np.result_type(x, f)
    if out is None:
        out = np.empty((n,) + geo.out_hw + (o,), dtype=dtype)
    jobs = _jobs(x.shape, x.itemsize, geo)
    cut = _filters(f, jobs)

    def job(i):
        yb, xb, s0, s1 = jobs[i]
        cols = _cols(x, geo, yb, xb, s0, s1)
        z = scratch("band_out", (cols.shape[0], o), dtype)
        if cols.shape[1]:
            np.matmul(cols, cut[yb[2:] + xb[2:]], out=z)
        else:       # no tap inside the image
            z.fill(0)
        if bias is not None:
            add_bias_inplace(z, bias)
        if relu:
            relu_into(z, z)
        np.copyto(out[s0:s1, yb[0]:yb[1], xb[0]:xb[1]], z.reshape(s1 - s0, yb[1] - yb[0], xb[1] - xb[0], o))
    intra_op.run_chunks(job, len(jobs))
    return out


def conv2d_backprop_filter(x, dy, f_shape, geo):
    """d loss / d filter: each band pair's im2col transposed times its output gradient, summed."""
    c, o = f_shape[2], f_shape[3]
    dtype = np.result_type(x, dy)
    jobs = _jobs(x.shape, x.itemsize, geo)
    sizes = [(i1 - i0) * (j1 - j0) * c * o for (_, _, i0, i1), (_, _, j0, j1), _, _ in jobs]
    starts = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
    sums = scratch("band_sums", (int(starts[-1]),), dtype)     # each job's product in its own slot

    def job(i):
        yb, xb, s0, s1 = jobs[i]
        slot = sums[starts[i]:starts[i + 1]].reshape(-1, o)
        if not slot.size:
            return
        cols = _cols(x, geo, yb, xb, s0, s1)
        g = scratch("band_dy", (cols.shape[0], o), dy.dtype)
        np.copyto(g.reshape(s1 - s0, yb[1] - yb[0], xb[1] - xb[0], o), dy[s0:s1, yb[0]:yb[1], xb[0]:xb[1]])
        np.matmul(cols.T, g, out=slot)
    intra_op.run_chunks(job, len(jobs))
    df = np.zeros(f_shape, dtype)
    for i, ((_, _, i0, i1), (_, _, j0, j1), _, _) in enumerate(jobs):     # in job order
        if sizes[i]:
            df[i0:i1, j0:j1] += sums[starts[i]:starts[i + 1]].reshape(i1 - i0, j1 - j0, c, o)
    return df
