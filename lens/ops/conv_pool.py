"""Fused kernels for a plan's conv -> bias -> relu -> max-pool block and its gradient (NHWC).

The plan (see plan_opt.conv_pool_blocks) runs Conv2D+BiasAdd+Relu+MaxPool as one call and
MaxPoolGrad+ReluGrad+BiasAddGrad+Conv2DBackpropFilter as another, handing a private value from
the first to the second. When the pool windows tile the conv output, that value holds:

* the im2col matrix, tap-major (KH*KW*C rows) with its columns ordered pool tap first, then image
  and pooled position: the filter gradient reuses it instead of building it again;
* the biased conv output z in the same row order, so each pool tap's values form one contiguous
  block: pooling and its gradient are a few passes over long contiguous arrays.

The relu is never applied to z: max-pool commutes with relu (both are monotone), so it is applied
to the 4x smaller pooled grid, and the gradient only needs to know where each window's maximum
was and whether it was positive. Values are those of the separate ops up to rounding: the GEMMs
see other shapes (BLAS kernels may round differently) and the gradients sum in another order.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from lens.ops import conv as C
from lens.ops import conv_np as K
from lens.ops import intra_op
from lens.ops import pool as P
from lens.ops import pool_np as PK


class Saved:
    """What the forward call hands the gradient call (a private plan value, never fetched)."""

    __slots__ = ("x", "f_shape", "cgeo", "pgeo", "cols", "z", "pooled", "relu")

    def __init__(self, x, f_shape, cgeo, pgeo, cols, z, pooled, relu=None):
        self.x, self.f_shape, self.cgeo, self.pgeo = x, f_shape, cgeo, pgeo
        self.cols, self.z, self.pooled, self.relu = cols, z, pooled, relu

    def relu_nhwc(self):
        """The Relu op's value (N, H, W, O), rebuilt from z when it was never materialized."""
        if self.relu is not None:
            return self.relu
        (ph, pw), (kph, kpw) = self.pgeo.out_hw, self.pgeo.k_hw
        n, o = self.pooled.shape[0], self.z.shape[1]
        z = self.z.reshape(kph, kpw, n, ph, pw, o).transpose(2, 3, 0, 4, 1, 5).reshape(n, ph * kph, pw * kpw, o)
        return np.maximum(z, 0)


def tiles(cgeo, pgeo):
    """True when the pool windows cover the conv output exactly once (no padding, no overlap)."""
    (kph, kpw), (ph, pw) = pgeo.k_hw, pgeo.out_hw
    return (pgeo.strides == pgeo.k_hw and pgeo.dilations == (1, 1) and pgeo.pads == ((0, 0), (0, 0))
            and cgeo.out_hw == (ph * kph, pw * kpw))


def _pooled_windows(x, cgeo, pgeo):
    """Read-only view (KH, KW, C, KPH, KPW, N, PH, PW) of the patch of each conv output pixel
    (n, i*KPH + a, j*KPW + b), indexed by pool tap (a, b) first, then image and pooled position."""
    xp = K.pad(x, cgeo, tag="conv_pad")
    n, _, _, c = xp.shape
    (kh, kw), (sh, sw), (dh, dw) = cgeo.k_hw, cgeo.strides, cgeo.dilations
    (ph, pw), (kph, kpw) = pgeo.out_hw, pgeo.k_hw
    s = xp.strides
    return as_strided(xp, (kh, kw, c, kph, kpw, n, ph, pw),
                      (s[1] * dh, s[2] * dw, s[3], s[1] * sh, s[2] * sw, s[0], s[1] * sh * kph, s[2] * sw * kpw),
                      writeable=False)


def _conv_blocks(x, f, b, cgeo, pgeo, cols, z):
    """cols (K, T*N*PH*PW) = im2col of x in pool-tap order, z (T*N*PH*PW, O) = cols.T @ f + b.

    Built a batch slice of one pool tap at a time, about CACHE_BLOCK_BYTES of columns, so the
    GEMM and the bias read the block from the cache right after it was written; the slices
    (disjoint parts of cols and z) are shared with the intra-op helper.
    """
    view = _pooled_windows(x, cgeo, pgeo)
    kh, kw, c, kph, kpw, n, ph, pw = view.shape
    cols8 = cols.reshape(view.shape)
    f2 = f.reshape(-1, f.shape[3])
    per_image = ph * pw
    step = max(1, K.CACHE_BLOCK_BYTES // max(1, cols.shape[0] * per_image * cols.itemsize))
    step = max(1, min(step, -(-n * kph * kpw // MIN_SLICES)))   # enough slices to share
    jobs = [(a, e, s) for a in range(kph) for e in range(kpw) for s in range(0, n, step)]

    def job(i):
        a, e, s = jobs[i]
        np.copyto(cols8[:, :, :, a, e, s:s + step], view[:, :, :, a, e, s:s + step])
        base = (a * kpw + e) * n
        lo, hi = (base + s) * per_image, (base + min(s + step, n)) * per_image
        blk = z[lo:hi]
        np.matmul(cols[:, lo:hi].T, f2, out=blk)
        K.add_bias_inplace(blk, b)
    intra_op.run_chunks(job, len(jobs))


# Work of a block is cut into about this many slices, in a fixed way (the values never depend on
# which thread ran a slice), which an intra-op helper may share. Few big slices: their passes are
# memory-bound NumPy calls, and with 16 slices the two threads handed the GIL back and forth so
# often that sharing was slower than one thread; with 4 it is faster (measured in the MNIST step).
MIN_SLICES = 4


def _ranges(rows, count):
    """count row ranges [lo, hi) covering rows in order."""
    count = max(1, min(count, rows))
    return [(rows * i // count, rows * (i + 1) // count) for i in range(count)]


def forward(x, f, b, cgeo, pgeo, keep):
    """(pooled relu(conv(x, f) + b), Saved); keep holds three Recyclers (cols, z, pooled)."""
    n, o = x.shape[0], f.shape[3]
    dtype = np.result_type(x, f)
    if not tiles(cgeo, pgeo):   # e.g. an odd size under SAME pooling: the separate kernels
        r = K.conv2d(x, f, cgeo, bias=b, relu=True)
        pooled = PK.max_pool(r, pgeo)
        return pooled, Saved(x, f.shape, cgeo, pgeo, None, None, pooled, relu=r)
    (ph, pw), (kph, kpw) = pgeo.out_hw, pgeo.k_hw
    taps, rows = kph * kpw, f.shape[0] * f.shape[1] * f.shape[2]
    m = taps * n * ph * pw
    cols_r, z_r, pool_r = keep
    cols = cols_r.take((rows, m), dtype)
    cols = cols_r.give(cols if cols is not None else np.empty((rows, m), dtype))
    z = z_r.take((m, o), dtype)
    z = z_r.give(z if z is not None else np.empty((m, o), dtype))
    _conv_blocks(x, f, b, cgeo, pgeo, cols, z)
    pooled = pool_r.take((n, ph, pw, o), dtype)
    pooled = pool_r.give(pooled if pooled is not None else np.empty((n, ph, pw, o), dtype))
    zt, flat = z.reshape(taps, -1), pooled.reshape(-1)
    spans = _ranges(n * ph * pw, MIN_SLICES)

    def pool(i):
        lo, hi = spans[i][0] * o, spans[i][1] * o
        out = flat[lo:hi]
        if taps == 1:
            np.copyto(out, zt[0, lo:hi])
        else:
            np.maximum(zt[0, lo:hi], zt[1, lo:hi], out=out)
            for t in range(2, taps):
                np.maximum(out, zt[t, lo:hi], out=out)
        K.relu_into(out, out)     # max of relus == relu of the max, bit for bit
    intra_op.run_chunks(pool, len(spans))
    return pooled, Saved(x, f.shape, cgeo, pgeo, cols, z, pooled)


def backward(saved, g, f_shape):
    """(bias gradient, filter gradient) from the pooled output's gradient g."""
    o = saved.pooled.shape[3]
    dtype = g.dtype
    if saved.cols is None:
        dact = PK.max_pool_grad(saved.relu, g, saved.pgeo, relu=True, y=saved.pooled)
        db = _channel_sums(dact)
        return db, K.conv2d_backprop_filter(saved.x, dact, f_shape, saved.cgeo)
    # Each window sends g to the one input equal to its maximum, where the relu mask is
    # (maximum > 0): the ReluGrad factor is applied on the pooled grid, as one call per op
    # would multiply it at that input (NaN * 0 stays NaN).
    pooled = saved.pooled
    hit = np.greater(pooled, 0, out=K.scratch("cp_hit", pooled.shape, np.bool_))
    gm = np.multiply(g, hit, dtype=dtype, out=K.scratch("cp_gm", pooled.shape, dtype))
    db = _channel_sums(gm)
    rows = saved.z.shape[0] // (saved.pgeo.k_hw[0] * saved.pgeo.k_hw[1])     # pooled positions
    if rows == 0:       # an empty batch
        return db, np.zeros(f_shape, dtype)
    zt = saved.z.reshape(-1, rows * o)
    taps = zt.shape[0]
    dact = K.scratch("cp_dact", saved.z.shape, dtype)
    ints = np.dtype("i%d" % dtype.itemsize)
    di, rest, hit = dact.reshape(taps, -1).view(ints), gm.reshape(-1).view(ints), hit.reshape(-1)
    flat, cols, d2 = pooled.reshape(-1), saved.cols, dact
    spans = _ranges(rows, MIN_SLICES)

    def part(i):
        """The filter gradient of one range of pooled positions (all taps)."""
        r0, r1 = spans[i]
        lo, hi = r0 * o, r1 * o
        if taps == 1:
            np.copyto(di[0, lo:hi], rest[lo:hi])
        for t in range(taps - 1):
            # The first tap equal to the maximum takes what is left of the window's gradient (as
            # integers: the bits move unchanged, +0 elsewhere) and leaves +0 to the later taps; a
            # positive maximum at no earlier tap is at the last one, which takes the rest.
            np.equal(zt[t, lo:hi], flat[lo:hi], out=hit[lo:hi])
            np.multiply(rest[lo:hi], hit[lo:hi], out=di[t, lo:hi])
            np.subtract(rest[lo:hi], di[t, lo:hi], out=di[taps - 1, lo:hi] if t == taps - 2 else rest[lo:hi])
        acc = None
        for t in range(taps):
            a, e = t * rows + r0, t * rows + r1
            prod = cols[:, a:e] @ d2[a:e]
            acc = prod if acc is None else np.add(acc, prod, out=acc)
        return acc
    parts = intra_op.run_chunks(part, len(spans))
    df = parts[0]
    for p in parts[1:]:     # in range order, whichever thread made each part
        df += p
    return db, df.reshape(f_shape)


def _channel_sums(a):
    from lens.ops.nn import channel_sums
    return channel_sums(np.ascontiguousarray(a).reshape(-1, a.shape[-1])).astype(a.dtype, copy=False)


# ------------------------------------------------------------------ kernel makers for the plan
def make_forward(members, ctx, fed=()):
    """Kernel of Conv2D -> BiasAdd -> Relu -> MaxPool: run(x, filter, bias) -> (pooled, saved)."""
    conv_attrs, pool_attrs = dict(members[0]._attrs), dict(members[3]._attrs)
    keep = (K.Recycler(), K.Recycler(), K.Recycler())

    def run(x, f, b):
        x, f = np.asarray(x), np.asarray(f)
        b = np.reshape(b, -1)
        cgeo = C._geometry(conv_attrs, x.shape, f.shape[:2])
        pgeo = P._geometry(pool_attrs, (x.shape[0],) + cgeo.out_hw + (f.shape[3],))
        return forward(x, f, b, cgeo, pgeo, keep)
    return run


def make_backward(members, ctx, fed=()):
    """Kernel of MaxPoolGrad -> ReluGrad -> BiasAddGrad + Conv2DBackpropFilter:
    run(saved, pooled gradient, filter sizes) -> (bias gradient, filter gradient)."""
    grad_op, relu_grad_op = members[0], members[1]

    def run(saved, g, sizes):
        sizes = tuple(int(s) for s in np.reshape(sizes, -1))
        if sizes != tuple(saved.f_shape):
            raise ValueError("filter_sizes %s differ from the filter's shape %s" % (sizes, tuple(saved.f_shape)))
        g = np.asarray(g)
        if g.shape != saved.pooled.shape or g.dtype != saved.pooled.dtype:
            raise ValueError("gradient of shape %s %s for a pooled value of shape %s %s"
                             % (g.shape, g.dtype, saved.pooled.shape, saved.pooled.dtype))
        return backward(saved, g, sizes)

    def known(saved, g, sizes):
        """Values of the forward block's tensors, for rerunning the ops one by one on a failure."""
        return {grad_op._inputs[0]: saved.relu_nhwc(), grad_op._inputs[1]: saved.pooled,
                relu_grad_op._inputs[1]: saved.relu_nhwc()}
    run.known = known
    return run
