"""Per-thread work arrays and in-place elementwise epilogues shared by the NumPy kernels."""
import sys
import threading

import numpy as np

# Work arrays above this size are kept per thread and reused; below it malloc is cheap enough.
SCRATCH_MIN_BYTES = 1 << 18
SCRATCH_MAX_BYTES = 1 << 26     # never pin more than this per work array
_local = threading.local()


def scratch(tag, shape, dtype):
    """A reusable per-thread work array for a kernel's temporaries; never hand it to a caller.

    A big array freshly allocated on every step costs a page fault per 4 KiB page (glibc returns
    large freed blocks to the OS), which took longer than the arithmetic on it. One buffer per
    tag and thread stays mapped and warm; threads keep kernels running side by side apart.
    """
    dtype = np.dtype(dtype)
    nbytes = dtype.itemsize
    for d in shape:
        nbytes *= int(d)
    if not SCRATCH_MIN_BYTES <= nbytes <= SCRATCH_MAX_BYTES:
        return np.empty(shape, dtype)
    bufs = getattr(_local, "bufs", None)
    if bufs is None:
        bufs = _local.bufs = {}
    buf = bufs.get(tag)
    if buf is None or buf.nbytes < nbytes:
        buf = bufs[tag] = np.empty(nbytes, np.uint8)
    return buf[:nbytes].view(dtype).reshape(shape)


class Recycler:
    """Lets a kernel write into its previous output once nobody else holds that memory.

    TF's kernels forward a buffer whose reference count is one; CPython's reference count tells
    the same here. The recycler keeps the array that owns the output's memory: every view of it
    (a fetched result, a reshape, a slice kept by the user, a variable) refers to that owner, so
    when only the recycler does, the next step may overwrite it instead of faulting in fresh
    pages.
    """

    __slots__ = ("_owner", "_min_bytes")

    def __init__(self, min_bytes=None):
        self._owner = None
        self._min_bytes = SCRATCH_MIN_BYTES if min_bytes is None else min_bytes

    def take(self, shape, dtype):
        """A free array of this shape and dtype made from the previous output, else None."""
        owner = self._owner
        if owner is None or owner.dtype != dtype:
            return None
        size = 1
        for d in shape:
            size *= int(d)
        # References: self._owner, the local `owner`, getrefcount's argument; any more is a user.
        if owner.size != size or sys.getrefcount(owner) > 3:
            return None
        self._owner = None      # handed out once: a run on another thread gets fresh memory
        return owner.reshape(shape)

    def give(self, out):
        """Remember the memory of this output for the next call (big ones only); returns out."""
        owner = out if out.base is None else out.base
        keep = (isinstance(owner, np.ndarray) and owner.base is None and owner.flags.owndata
                and owner.flags.c_contiguous and owner.nbytes >= self._min_bytes)
        self._owner = owner if keep else None
        return out


def relu_into(x, out):
    """out = max(x, 0) with NumPy's exact results (-0 -> +0, NaNs kept bit for bit); returns out.

    NumPy's maximum is slow here; on the float's bits it is one compare and one multiply: the
    values to zero are exactly those whose signed integer view is at most that of -inf (every
    negative number and -0), while negative NaNs lie above it and stay.
    """
    if x.dtype not in (np.float32, np.float64) or not (x.flags.c_contiguous and out.flags.c_contiguous) \
            or out.dtype != x.dtype or x.size < 1024:
        return np.maximum(x, 0, out=out)
    ints = np.dtype("i%d" % x.itemsize)
    limit = np.array(-np.inf, x.dtype).view(ints)
    keep = scratch("relu_keep", x.shape, np.bool_)
    xi = x.view(ints)
    np.greater(xi, limit, out=keep)
    np.multiply(xi, keep, out=out.view(ints))
    return out


# Broadcasting a C-long bias row makes NumPy's inner loop only C long; a bias tiled to rows of
# about this many values is added several times faster.
_BIAS_ROW = 512


def add_bias_inplace(a2, bias):
    """a2 (rows, C), C-contiguous, += bias (C,) in place."""
    rows, c = a2.shape
    k = _BIAS_ROW // max(c, 1)
    if k < 2 or rows < k or bias.shape != (c,):
        return np.add(a2, bias, out=a2)
    main = rows - rows % k
    np.add(a2[:main].reshape(-1, k * c), np.tile(bias, k), out=a2[:main].reshape(-1, k * c))
    if main < rows:
        np.add(a2[main:], bias, out=a2[main:])
    return a2
