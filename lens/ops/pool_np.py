"""NumPy kernels for max and average pooling (NHWC), tap by tap.

Loops here run over window taps (KH * KW), never over pixels or batch elements. Every tap is a
strided view of the (padded) input, so a 2x2 stride-2 pool is four elementwise passes.
"""
import numpy as np

from lens.ops import intra_op
from lens.ops.conv_np import CACHE_BLOCK_BYTES, col2im, pad, scratch, windows


# A big batch goes in at least this many blocks (fixed by shape), which an intra-op helper may
# share: few big ones, as the passes are memory-bound NumPy calls (see conv_pool.MIN_SLICES).
MIN_BLOCKS = 2


def _lowest(dtype):
    return -np.inf if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def _taps(geo):
    """Output-grid slices into the padded input, one per kernel tap, row-major (TF's tie order)."""
    (oh, ow), (kh, kw) = geo.out_hw, geo.k_hw
    (sh, sw), (dh, dw) = geo.strides, geo.dilations
    for i in range(kh):
        for j in range(kw):
            yield (slice(None), slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                   slice(j * dw, j * dw + sw * (ow - 1) + 1, sw), slice(None))


def _disjoint(geo):
    """True when no input element lies in two windows (stride >= window, no dilation)."""
    (kh, kw), (sh, sw) = geo.k_hw, geo.strides
    return geo.dilations == (1, 1) and sh >= kh and sw >= kw


def _tiled(geo):
    """True when the windows tile the padded input exactly (every element in exactly one window)."""
    (kh, kw), (sh, sw), (oh, ow) = geo.k_hw, geo.strides, geo.out_hw
    return (geo.dilations == (1, 1) and (sh, sw) == (kh, kw)
            and geo.padded_hw() == (oh * kh, ow * kw))


def max_pool(x, geo, out=None):
    """Max over each window (padding never wins): an elementwise maximum over the taps."""
    xp = pad(x, geo, _lowest(x.dtype), tag="pool_pad")
    n = x.shape[0]
    if x.nbytes < 2 * CACHE_BLOCK_BYTES or n < 2:
        return max_pool_padded(xp, geo, out)
    if out is None:
        out = np.empty((n,) + geo.out_hw + (x.shape[3],), dtype=x.dtype)
    step = -(-n // MIN_BLOCKS)
    starts = range(0, n, step)
    # Images in blocks an intra-op helper may share (each block writes its own images of out).
    intra_op.run_chunks(lambda i: max_pool_padded(xp[starts[i]:starts[i] + step], geo,
                                                  out[starts[i]:starts[i] + step]), len(starts))
    return out


def max_pool_padded(xp, geo, out=None):
    """Window maxima of an already padded input (into out when given)."""
    taps = _taps(geo)
    first = xp[next(taps)]
    second = next(taps, None)
    if second is None:
        if out is None:
            return first.copy()
        np.copyto(out, first)
        return out
    out = np.maximum(first, xp[second], out=out)
    for sl in taps:
        np.maximum(out, xp[sl], out=out)
    return out


def _first_max_hits(xp, geo, m=None):
    """For each tap: where that tap holds its window's first maximum (row-major tie-break, as TF).

    Ties are common after a relu (windows of zeros), so a later tap only wins where no earlier
    tap already did; the bookkeeping is on booleans, which is cheap next to the float passes.
    """
    n, c = xp.shape[0], xp.shape[3]
    shape = (n,) + geo.out_hw + (c,)
    if m is None:
        m = max_pool_padded(xp, geo, out=scratch("pool_max", shape, xp.dtype))
    hit = scratch("pool_hit", shape, np.bool_)
    taken = scratch("pool_taken", shape, np.bool_)
    taps = list(_taps(geo))
    floats = xp.dtype.kind == "f"
    for k, sl in enumerate(taps):
        if k and k == len(taps) - 1 and floats:
            # A window's maximum is one of its values unless it is NaN (then no tap equals it):
            # the last tap holds it wherever no earlier tap did, with no pass over the input.
            np.isnan(m, out=hit)
            hit |= taken
            np.logical_not(hit, out=hit)
            yield sl, hit
            return
        np.equal(xp[sl], m, out=hit)
        if k == 0:
            np.copyto(taken, hit)
        else:
            np.greater(hit, taken, out=hit)     # hit and not taken
            taken |= hit
        yield sl, hit


def _select(g, hit, out):
    """out = g where hit, else +0.

    Floats are multiplied as integers of the same width (their bit patterns times 1 or 0): as
    fast as g * hit, but an inf or NaN in g cannot leak into the other window positions
    (inf * 0 is NaN) and the zeros are +0, as TF's scatter leaves them.
    """
    if g.dtype.kind == "f":
        ints = np.dtype("i%d" % g.dtype.itemsize)
        np.multiply(g.view(ints), hit, out=out.view(ints))
    else:
        np.multiply(g, hit, out=out)
    return out


# The gradient reads the input twice (window maxima, then which tap holds them): done in blocks of
# images about this big, the second read comes from the cache rather than from memory.
BLOCK_BYTES = 4 * CACHE_BLOCK_BYTES     # in the last-level cache: measured faster than 1 MiB


def max_pool_grad(x, g, geo, out=None, relu=False, y=None):
    """Route each window's gradient to the input element that was its (first) maximum.

    relu=True also applies ReluGrad with x as the features (a fused MaxPoolGrad -> ReluGrad chain
    over a relu's output): the same values as the two ops one after the other. y, when given,
    must be max_pool(x, geo) itself (the plan knows it is): it saves recomputing the maxima.
    """
    g = np.asarray(g)
    out = np.empty(x.shape, dtype=g.dtype) if out is None else out
    n = x.shape[0]
    step = max(1, min(BLOCK_BYTES // max(1, x[:1].nbytes), -(-n // MIN_BLOCKS)))
    starts = range(0, n, step)

    def block(i):   # blocks write disjoint images of out, through their thread's scratch arrays
        s = starts[i]
        _max_pool_grad_block(x[s:s + step], g[s:s + step], geo, out[s:s + step], relu,
                             None if y is None else y[s:s + step])
    intra_op.run_chunks(block, len(starts))
    return out


def _max_pool_grad_block(x, g, geo, out, relu=False, y=None):
    """max_pool_grad for a block of images, written into out (times relu's mask when asked)."""
    xp = pad(x, geo, _lowest(x.dtype), tag="pool_pad")
    padded = xp is not x
    dxp = scratch("pool_grad_pad", xp.shape, g.dtype) if padded else out
    if _disjoint(geo):
        # Each tap writes its own input positions: no accumulation, and no zero fill when the
        # windows tile the input (a 2x2 stride-2 pool on an even size).
        if not _tiled(geo):
            dxp.fill(0)
        m = y
        if relu:
            # Each window sends its gradient to one input equal to the window's maximum, so the
            # relu mask at that input is (maximum > 0): applied on the 4x smaller pooled grid.
            if m is None:
                m = max_pool_padded(xp, geo, out=scratch("pool_max", g.shape, xp.dtype))
            g = np.multiply(g, np.greater(m, 0), dtype=g.dtype, out=scratch("pool_relu_g", g.shape, g.dtype))
        for sl, hit in _first_max_hits(xp, geo, m):
            _select(g, hit, dxp[sl])
    else:
        dxp.fill(0)
        tmp = scratch("pool_tmp", g.shape, g.dtype)
        for sl, hit in _first_max_hits(xp, geo):
            dxp[sl] += _select(g, hit, tmp)
        if relu:    # overlapping windows add up: mask the sums, exactly as ReluGrad would
            (t, _), (l, _) = geo.pads
            inner = dxp[:, t:t + x.shape[1], l:l + x.shape[2], :]
            np.multiply(inner, np.greater(x, 0), dtype=g.dtype, out=inner)
    if padded:
        (t, _), (l, _) = geo.pads
        np.copyto(out, dxp[:, t:t + x.shape[1], l:l + x.shape[2], :])


def max_pool_grad_grad(x, gg, geo):
    """Each window picks gg at the position of its maximum (MaxPoolGrad's own gradient)."""
    xp = pad(x, geo, _lowest(x.dtype), tag="pool_pad")
    gp = pad(gg, geo, tag="pool_pad_grad")
    out = np.zeros((x.shape[0],) + geo.out_hw + (x.shape[3],), dtype=gg.dtype)
    tmp = scratch("pool_tmp", out.shape, gg.dtype)
    for sl, hit in _first_max_hits(xp, geo):
        out += _select(np.ascontiguousarray(gp[sl]), hit, tmp)
    return out


def _counts(geo, dtype):
    """How many real (unpadded) inputs each window covers: (1, OH, OW, 1)."""
    ones = np.ones((1,) + tuple(geo.in_hw) + (1,), dtype=dtype)
    return windows(pad(ones, geo), geo).sum(axis=(3, 4))


def avg_pool(x, geo):
    """Mean over the real elements of each window (TF's SAME averaging ignores padding)."""
    xp = pad(x, geo, tag="pool_pad")
    s = None
    for sl in _taps(geo):
        s = xp[sl].copy() if s is None else np.add(s, xp[sl], out=s)
    return (s / _counts(geo, s.dtype)).astype(x.dtype, copy=False)


def avg_pool_grad(in_shape, g, geo):
    """Spread each window's gradient evenly over its real elements."""
    share = (g / _counts(geo, g.dtype)).astype(g.dtype, copy=False)
    kh, kw = geo.k_hw
    cols = np.broadcast_to(share[:, :, :, None, None, :], share.shape[:3] + (kh, kw) + share.shape[3:])
    return col2im(cols, in_shape, geo, g.dtype)
