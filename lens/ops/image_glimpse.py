"""ExtractGlimpse: [batch, h, w, c] windows at per-image offsets (TF's arithmetic: optional scaling by the
image size and centring, the window's top-left truncated toward zero), the pixels outside the image
filled with noise (uniform in the image channel's [min, max], or Gaussian with its mean and deviation)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.random import _seed_attrs


def _glimpse_make(op, ctx):
    gen = ctx.rng(op)
    a = op._attrs

    def run(images, size, offsets):
        x = np.asarray(images, np.float32)
        gh, gw = [int(v) for v in np.ravel(size)]
        offsets = np.asarray(offsets, np.float32)
        if x.ndim != 4 or offsets.shape != (x.shape[0], 2):
            raise errors.InvalidArgumentError(None, op, "input must be 4-D and offsets [batch, 2], got %s and %s"
                                              % (list(x.shape), list(offsets.shape)))
        b, h, w, c = x.shape
        out = np.empty((b, gh, gw, c), np.float32)
        for i in range(b):
            y, xx = float(offsets[i, 0]), float(offsets[i, 1])
            if a["normalized"]:
                y, xx = y * h, xx * w
            if a["centered"]:
                y, xx = y / 2.0 + h / 2.0, xx / 2.0 + w / 2.0
            top, left = int(y - gh / 2.0), int(xx - gw / 2.0)   # C's truncation toward zero, as TF
            img = x[i]
            if a["noise"] == "uniform":
                lo, hi = img.min((0, 1)), img.max((0, 1))
                fill = lo + (hi - lo) * gen.random((gh, gw, c), dtype=np.float32)
            elif a["noise"] == "gaussian":
                fill = img.mean((0, 1)) + img.std((0, 1)) * gen.standard_normal((gh, gw, c)).astype(np.float32)
            else:
                fill = np.zeros((gh, gw, c), np.float32)
            ys, xs = np.arange(gh) + top, np.arange(gw) + left
            inside = ((ys >= 0) & (ys < h))[:, None] & ((xs >= 0) & (xs < w))[None, :]
            window = img[np.clip(ys, 0, h - 1)][:, np.clip(xs, 0, w - 1)]
            out[i] = np.where(inside[:, :, None], window, fill)
        return out
    return run


def _glimpse_shape(op):
    from lens.ops.shapes import const_value
    x = op._inputs[0].shape.as_list() if op._inputs[0].shape.ndims == 4 else [None] * 4
    size = const_value(op._inputs[1])
    hw = [None, None] if size is None else [int(v) for v in np.ravel(size)]
    return [TensorShape([x[0]] + hw + [x[3]])]


register_op("ExtractGlimpseV2", make=_glimpse_make, shape=_glimpse_shape, not_differentiable=True, stateful=True)


def extract_glimpse(input, size, offsets, centered=True, normalized=True, uniform_noise=True, name=None,  # noqa: A002
                    noise=None):
    """[batch, size[0], size[1], channels] float32 windows of input at offsets [batch, 2] = (y, x): with
    normalized, fractions of the image size; with centered, measured from the image centre in [-1, 1];
    pixels outside the image are noise (uniform_noise, else Gaussian; noise='zero' for zeros)."""
    noise = noise or ("uniform" if uniform_noise else "gaussian")
    if noise not in ("uniform", "gaussian", "zero"):
        raise ValueError("noise must be 'uniform', 'gaussian' or 'zero', got %r" % (noise,))
    with name_scope(name, "ExtractGlimpse", [input, size, offsets]) as scope:
        x = convert_to_tensor(input, dtype=_dt.float32, name="input")
        s = convert_to_tensor(size, dtype=_dt.int32, name="size")
        o = convert_to_tensor(offsets, dtype=_dt.float32, name="offsets")
        attrs = dict({"centered": bool(centered), "normalized": bool(normalized),
                      "uniform_noise": noise == "uniform", "noise": noise}, **_seed_attrs(None))
        return apply_op("ExtractGlimpseV2", [(x, "input"), (s, "size"), (o, "offsets")], attrs, name=scope,
                        dtypes=[_dt.float32], same_dtype=False)
