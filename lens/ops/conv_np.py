"""NumPy kernels for convolution (NHWC): window views, im2col + one BLAS GEMM, tap-wise col2im.

Loops here run over kernel taps (KH * KW), never over pixels or batch elements.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from lens.ops import conv_bands as B
from lens.ops import conv_fourier as FT
from lens.ops import intra_op
from lens.ops.work_np import (  # noqa: F401 - re-exported: other kernels import these from here
    SCRATCH_MAX_BYTES,
    SCRATCH_MIN_BYTES,
    Recycler,
    add_bias_inplace,
    relu_into,
    scratch,
)

# Work that passes over a big array twice is done in batch blocks of about this size (one
# core's L2 cache), so the second pass reads from cache.
CACHE_BLOCK_BYTES = 1 << 20


class Geometry:
    """Output size and padding of a 2-D sliding window over an (H, W) input."""

    __slots__ = ("in_hw", "k_hw", "strides", "dilations", "out_hw", "pads")

    def __init__(self, in_hw, k_hw, strides, dilations, padding):
        self.in_hw, self.k_hw = tuple(in_hw), tuple(k_hw)
        self.strides, self.dilations = tuple(strides), tuple(dilations)
        outs, pads = [], []
        for axis in range(2):
            out, before, after = out_size(in_hw[axis], k_hw[axis], strides[axis], dilations[axis],
                                          padding if isinstance(padding, str) else padding[axis])
            outs.append(out)
            pads.append((before, after))
        self.out_hw, self.pads = tuple(outs), tuple(pads)

    def padded_hw(self):
        """Input size after padding."""
        return tuple(self.in_hw[a] + self.pads[a][0] + self.pads[a][1] for a in range(2))


def out_size(size, k, stride, dilation, padding):
    """(output size, pad before, pad after) along one axis, as TF computes them."""
    eff = (k - 1) * dilation + 1
    if padding == "SAME":
        out = -(-size // stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2
    if padding == "VALID":
        before = after = 0
    else:
        before, after = (int(p) for p in padding)
    span = size + before + after - eff
    if span < 0:
        raise ValueError("Computed output size would be negative: input size %d, filter size %d "
                         "(dilated %d), padding %r; use a smaller filter or padding='SAME'"
                         % (size, k, eff, padding))
    return span // stride + 1, before, after


def to_nhwc(x, data_format):
    """View an NCHW array as NHWC (no copy)."""
    return x if data_format != "NCHW" else np.moveaxis(x, 1, -1)


def from_nhwc(x, data_format):
    """Back to the op's data format (contiguous)."""
    return x if data_format != "NCHW" else np.ascontiguousarray(np.moveaxis(x, -1, 1))


def pad(x, geo, value=0, tag=None):
    """x padded on H and W by the geometry's pads (x itself when there is no padding).

    Only the border is filled, so the interior is written once. With a tag the padded copy is
    a scratch array (for temporaries only).
    """
    (t, b), (l, r) = geo.pads
    if not (t or b or l or r):
        return x
    n, h, w, c = x.shape
    shape = (n, h + t + b, w + l + r, c)
    out = np.empty(shape, dtype=x.dtype) if tag is None else scratch(tag, shape, x.dtype)
    out[:, :t] = value
    out[:, t + h:] = value
    out[:, t:t + h, :l] = value
    out[:, t:t + h, l + w:] = value
    out[:, t:t + h, l:l + w] = x
    return out


def windows(xp, geo):
    """Read-only strided view (N, OH, OW, KH, KW, C) of the padded input's windows."""
    n, _, _, c = xp.shape
    (oh, ow), (kh, kw) = geo.out_hw, geo.k_hw
    (sh, sw), (dh, dw) = geo.strides, geo.dilations
    s = xp.strides
    return as_strided(xp, (n, oh, ow, kh, kw, c),
                      (s[0], s[1] * sh, s[2] * sw, s[1] * dh, s[2] * dw, s[3]), writeable=False)


def col2im(cols, in_shape, geo, dtype):
    """Scatter-add window values (N, OH, OW, KH, KW, C) back onto the unpadded input grid."""
    n, h, w, c = in_shape
    hp, wp = geo.padded_hw()
    out = np.zeros((n, hp, wp, c), dtype=dtype)
    (oh, ow), (kh, kw) = geo.out_hw, geo.k_hw
    (sh, sw), (dh, dw) = geo.strides, geo.dilations
    for i in range(kh):
        for j in range(kw):
            out[:, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw, :] += cols[:, :, :, i, j, :]
    (t, _), (l, _) = geo.pads
    return out[:, t:t + h, l:l + w, :]


# Below this many input channels the im2col matrix is built tap-major, (KH*KW*C, N*OH*OW): each
# row is a shifted copy of one channel plane, copied with long contiguous runs, where the usual
# (N*OH*OW, KH*KW*C) layout would copy runs of only C values. Both layouts feed one GEMM.
TAP_MAJOR_MAX_C = 4


def _tap_major(x, geo):
    """im2col (KH*KW*C, N*OH*OW) in scratch: row (i, j, c) is channel c of tap (i, j) at every output."""
    xp = pad(x, geo, tag="conv_pad")
    n, _, _, c = xp.shape
    (oh, ow), (kh, kw) = geo.out_hw, geo.k_hw
    (sh, sw), (dh, dw) = geo.strides, geo.dilations
    s = xp.strides
    shape = (kh, kw, c, n, oh, ow)
    v = as_strided(xp, shape, (s[1] * dh, s[2] * dw, s[3], s[0], s[1] * sh, s[2] * sw), writeable=False)
    cols = scratch("im2col", shape, x.dtype)
    np.copyto(cols, v)
    return cols.reshape(kh * kw * c, n * oh * ow)


def _row_major(x, geo):
    """im2col (N*OH*OW, KH*KW*C) in scratch: one row per output position."""
    v = windows(pad(x, geo, tag="conv_pad"), geo)
    n, oh, ow, kh, kw, c = v.shape
    cols = scratch("im2col", v.shape, x.dtype)
    np.copyto(cols, v)
    return cols.reshape(n * oh * ow, kh * kw * c)


def _few_channels(c):
    return c <= TAP_MAJOR_MAX_C


def _cols(x, geo):
    """im2col of x in the layout its channel count calls for, as the (M, K) GEMM operand."""
    return _tap_major(x, geo).T if _few_channels(x.shape[3]) else _row_major(x, geo)


# A convolution's im2col blocks are about this big: the GEMM reads a block from the cache (the
# last level, on two cores) right after it was written, and bigger GEMMs waste less of BLAS's time
# on packing the filter (measured: 1 MiB blocks cost about 7% more than 4 MiB ones).
GEMM_BLOCK_BYTES = 1 << 22


def _image_blocks(x, geo):
    """Batch slices whose im2col matrix is about GEMM_BLOCK_BYTES, so the GEMM reads it from the
    cache right after it was written instead of from memory."""
    kh, kw = geo.k_hw
    per_image = kh * kw * x.shape[3] * geo.out_hw[0] * geo.out_hw[1] * x.itemsize
    step = max(1, GEMM_BLOCK_BYTES // max(1, per_image))
    return [slice(s, s + step) for s in range(0, x.shape[0], step)]


# ------------------------------------------------------------------ conv2d
def conv2d(x, f, geo, out=None, bias=None, relu=False):
    """Forward convolution: x (N,H,W,C), f (KH,KW,C,O) -> (N,OH,OW,O) (into out when given).

    With a bias (O,) and/or relu, each chunk of blocks gets them added in place right after its
    GEMMs, while it is still in the cache (a fused Conv2D + BiasAdd + Relu chain). When the
    padding's zeros are a big enough share of the taps, conv_bands skips them instead; when a
    Fourier transform saves enough arithmetic, conv_fourier runs it.
    """
    if FT.usable(x.shape, f.shape[3], geo, x, f):
        y = FT.conv2d(x, f, geo, out=out, bias=bias, relu=relu)
        if FT.finite(y):
            return y
    if not _few_channels(x.shape[3]) and B.worth_banding(x.shape[1:3], geo):
        return B.conv2d(x, f, geo, out=out, bias=bias, relu=relu)
    n, o = x.shape[0], f.shape[3]
    f2 = f.reshape(-1, o)
    if out is None:
        out = np.empty((n,) + geo.out_hw + (o,), dtype=np.result_type(x, f))
    blocks = _image_blocks(x, geo)
    per = -(-len(blocks) // INTRA_CHUNKS) if blocks else 1

    def chunk(i):   # blocks write disjoint slices of out: any thread may run any of them
        mine = blocks[i * per:(i + 1) * per]
        for b in mine:
            np.matmul(_cols(x[b], geo), f2, out=out[b].reshape(-1, o))
        if bias is not None or relu:    # once per chunk: per block, the calls' overhead showed
            span = out[mine[0].start:mine[-1].stop].reshape(-1, o)
            if bias is not None:
                add_bias_inplace(span, bias)
            if relu:
                relu_into(span, span)
    intra_op.run_chunks(chunk, -(-len(blocks) // per))
    return out


# A convolution's batch blocks go in this many chunks (the units the intra-op helper may take);
# Conv2DBackpropFilter sums each chunk's products, then the chunks' sums in order.
INTRA_CHUNKS = 32


def conv2d_backprop_filter(x, dy, f_shape, geo):
    """d loss / d filter from the input and the output gradient."""
    if FT.usable(x.shape, f_shape[3], geo, x, dy):
        df = FT.conv2d_backprop_filter(x, dy, f_shape, geo)
        if FT.finite(df):
            return df
    if not _few_channels(x.shape[3]) and B.worth_banding(x.shape[1:3], geo):
        return B.conv2d_backprop_filter(x, dy, f_shape, geo)
    o = dy.shape[3]
    blocks = _image_blocks(x, geo)
    # A fixed grouping of the blocks (never depending on which thread runs a group), each
    # group's sum made in block order, then the groups' sums added in group order.
    k = f_shape[0] * f_shape[1] * f_shape[2]
    dtype = np.result_type(x, dy)
    # Each group keeps a filter-sized sum: big filters get fewer groups (about 16 MiB in all).
    count = min(INTRA_CHUNKS, max(2, (1 << 24) // max(1, k * o * dtype.itemsize)))
    per = -(-len(blocks) // count) if blocks else 1
    groups = [blocks[i:i + per] for i in range(0, len(blocks), per)]

    if not groups:      # an empty batch
        return np.zeros(f_shape, dtype=dtype)
    # The groups' sums go in one work array of the calling thread (each group its own row).
    sums = scratch("bpf_sums", (len(groups), k, o), dtype)

    def group_sum(i):
        acc = sums[i]
        for j, b in enumerate(groups[i]):
            cols = _cols(x[b], geo)
            if j == 0:
                np.matmul(cols.T, dy[b].reshape(-1, o), out=acc)
            else:
                acc += np.matmul(cols.T, dy[b].reshape(-1, o),
                                 out=scratch("bpf_part", acc.shape, acc.dtype))
    intra_op.run_chunks(group_sum, len(groups))
    df = sums[0].copy()     # never a view of scratch
    for i in range(1, len(groups)):
        df += sums[i]
    return df.reshape(f_shape)


def _transposed_geometry(in_shape, geo):
    """Geometry of d input as a forward stride-1 convolution over the output gradient, or None.

    With stride and dilation 1, dx[y] = sum_i dy[y + top - i] f[i]: a convolution of dy, padded by
    KH-1-top before and whatever makes H rows after, with the kernel rotated 180 degrees.
    """
    if geo.strides != (1, 1) or geo.dilations != (1, 1):
        return None
    pads = []
    for axis in range(2):
        k, size, out = geo.k_hw[axis], in_shape[1 + axis], geo.out_hw[axis]
        before = k - 1 - geo.pads[axis][0]
        after = size + k - 1 - out - before
        if before < 0 or after < 0:
            return None
        pads.append((before, after))
    return Geometry(geo.out_hw, geo.k_hw, (1, 1), (1, 1), pads)


def conv2d_backprop_input(in_shape, f, dy, geo):
    """d loss / d input from the filter and the output gradient."""
    if FT.usable(in_shape, f.shape[3], geo, f, dy):
        dx = FT.conv2d_backprop_input(in_shape, f, dy, geo)
        if FT.finite(dx):
            return dx
    n, oh, ow, o = dy.shape
    kh, kw, c, _ = f.shape
    dy2 = dy.reshape(-1, o)
    if not _few_channels(c):
        tgeo = _transposed_geometry(in_shape, geo)
        if tgeo is not None and not _few_channels(o):
            # One im2col of dy and a GEMM per block, no scatter-add: the kernel rotated 180
            # degrees with its channel axes swapped is (KH, KW, O, C).
            rotated = np.ascontiguousarray(f[::-1, ::-1].transpose(0, 1, 3, 2))
            return conv2d(dy, rotated, tgeo)
        cols = (dy2 @ f.reshape(-1, o).T).reshape(n, oh, ow, kh, kw, c)
        return col2im(cols, in_shape, geo, dy.dtype)
    # Tap-major: each tap's contribution is one contiguous (C, N, OH, OW) block, added into a
    # channel-first padded buffer; only the final crop moves the channels last.
    cols = np.matmul(f.reshape(-1, o), dy2.T, out=scratch("im2col", (kh * kw * c, n * oh * ow), dy.dtype))
    cols = cols.reshape(kh, kw, c, n, oh, ow)
    hp, wp = geo.padded_hw()
    acc = scratch("col2im", (c, n, hp, wp), dy.dtype)
    acc.fill(0)
    (sh, sw), (dh, dw) = geo.strides, geo.dilations
    for i in range(kh):
        for j in range(kw):
            acc[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[i, j]
    (t, _), (l, _) = geo.pads
    h, w = in_shape[1], in_shape[2]
    return acc[:, :, t:t + h, l:l + w].transpose(1, 2, 3, 0).copy()     # never a view of scratch


# ------------------------------------------------------------------ depthwise
def depthwise(x, f, geo):
    """Depthwise convolution: x (N,H,W,C), f (KH,KW,C,M) -> (N,OH,OW,C*M)."""
    v = windows(pad(x, geo), geo)
    n, oh, ow, kh, kw, c = v.shape
    m = f.shape[3]
    out = np.zeros((n, oh, ow, c, m), dtype=np.result_type(x, f))
    for i in range(kh):
        for j in range(kw):
            out += v[:, :, :, i, j, :, None] * f[i, j]
    return out.reshape(n, oh, ow, c * m)


def depthwise_backprop_filter(x, dy, f_shape, geo):
    """d loss / d depthwise filter."""
    v = windows(pad(x, geo), geo)
    n, oh, ow, kh, kw, c = v.shape
    d5 = dy.reshape(n, oh, ow, c, f_shape[3])
    df = np.empty(f_shape, dtype=dy.dtype)
    for i in range(kh):
        for j in range(kw):
            df[i, j] = np.einsum("nhwc,nhwcm->cm", v[:, :, :, i, j, :], d5)
    return df


def depthwise_backprop_input(in_shape, f, dy, geo):
    """d loss / d input of a depthwise convolution."""
    n, oh, ow, _ = dy.shape
    kh, kw, c, m = f.shape
    d5 = dy.reshape(n, oh, ow, c, m)
    cols = np.einsum("nhwcm,ijcm->nhwijc", d5, f, optimize=True)
    return col2im(cols, in_shape, geo, dy.dtype)
