"""Op-table rows: tf.image's codecs (against Pillow), colour ops, NMS, box drawing, CropAndResize and its
gradient ops, ExtractImagePatches (against plain NumPy references written here)."""
import colorsys
import io

import numpy as np
from PIL import Image

import lens as tf
from lens.ops import image_boxes as B
from lens.ops import image_codecs as C
from lens.ops import image_color as K
from lens.ops import image_quality as Q
from optable_lib import F, FIX, Row, custom

_RNG = np.random.default_rng(5)
_IMG = _RNG.integers(0, 256, (4, 6, 3)).astype(np.uint8)


def _run(build):
    with tf.Graph().as_default(), tf.Session() as s:
        return s.run(build())


def _pil_bytes(arr, fmt, **kw):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, fmt, **kw)
    return buf.getvalue()


def _decoders():
    png, bmp = _pil_bytes(_IMG, "PNG"), _pil_bytes(_IMG, "BMP")
    gif = _pil_bytes(_IMG // 128 * 128, "GIF")
    jpeg = _pil_bytes(_IMG, "JPEG", quality=95)
    ref_jpeg = np.asarray(Image.open(io.BytesIO(jpeg)).convert("RGB"))
    got = _run(lambda: [C.decode_png(png), C.decode_bmp(bmp), C.decode_gif(gif), C.decode_jpeg(jpeg),
                        C.decode_image(png), C.decode_and_crop_jpeg(jpeg, [1, 2, 2, 3]), C.extract_jpeg_shape(jpeg)])
    np.testing.assert_array_equal(got[0], _IMG)
    np.testing.assert_array_equal(got[1], _IMG)
    np.testing.assert_array_equal(got[2][0], np.asarray(Image.open(io.BytesIO(gif)).convert("RGB")))
    np.testing.assert_array_equal(got[3], ref_jpeg)
    np.testing.assert_array_equal(got[4], _IMG)
    np.testing.assert_array_equal(got[5], ref_jpeg[1:3, 2:5])
    np.testing.assert_array_equal(got[6], [4, 6, 3])


def _encoders():
    smooth = (np.add.outer(np.arange(8), np.arange(8))[:, :, None] * [8, 12, 4]).astype(np.uint8)
    png, jpeg, varq = _run(lambda: [C.encode_png(_IMG), C.encode_jpeg(smooth, quality=100),
                                    C.encode_jpeg_variable_quality(smooth, tf.constant(100))])
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(png))), _IMG)
    for data in (jpeg, varq):
        assert np.abs(np.asarray(Image.open(io.BytesIO(data))).astype(int) - smooth).max() <= 6


def _hsv_ref(x):
    return np.array([colorsys.rgb_to_hsv(*p) for p in x.reshape(-1, 3)]).reshape(x.shape)


def _rgb_ref(x):
    return np.array([colorsys.hsv_to_rgb(*p) for p in x.reshape(-1, 3)]).reshape(x.shape)


def _hsv_grad():
    x = _RNG.uniform(0.1, 0.9, (5, 3))
    g = _RNG.uniform(-1, 1, (5, 3))
    got = _run(lambda: K._hsv_grad_op(tf.constant(x), tf.constant(g)))
    eps, num = 1e-6, np.zeros_like(x)
    for k in np.ndindex(*x.shape):
        p, m = x.copy(), x.copy()
        p[k] += eps
        m[k] -= eps
        num[k] = ((_hsv_ref(p) - _hsv_ref(m)) * g).sum() / (2 * eps)
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-6)


def _greedy_ref(boxes, scores, n, thr, score_thr=-np.inf):
    """Plain greedy NMS: best remaining box, drop everything overlapping it by more than thr."""
    def iou(a, b):
        ya, xa = sorted(a[0::2]), sorted(a[1::2])
        yb, xb = sorted(b[0::2]), sorted(b[1::2])
        inter = max(0, min(ya[1], yb[1]) - max(ya[0], yb[0])) * max(0, min(xa[1], xb[1]) - max(xa[0], xb[0]))
        area_a, area_b = (ya[1] - ya[0]) * (xa[1] - xa[0]), (yb[1] - yb[0]) * (xb[1] - xb[0])
        return 0.0 if area_a <= 0 or area_b <= 0 else inter / (area_a + area_b - inter)
    left = [i for i in sorted(range(len(scores)), key=lambda i: (-scores[i], i)) if scores[i] > score_thr]
    keep = []
    while left and len(keep) < n:
        best = left.pop(0)
        keep.append(best)
        left = [i for i in left if iou(boxes[i], boxes[best]) <= thr]
    return keep


def _nms():
    boxes = _RNG.uniform(0, 1, (15, 4)).astype(np.float32)
    scores = _RNG.uniform(0, 1, 15).astype(np.float32)
    ov = _RNG.uniform(0, 1, (6, 6)).astype(np.float32)
    got = _run(lambda: [B.non_max_suppression(boxes, scores, 7, 0.4, 0.2),
                        B.non_max_suppression_padded(boxes, scores, 10, 0.4, pad_to_max_output_size=True),
                        B.non_max_suppression_with_scores(boxes, scores, 5, 0.4)[0],
                        B.non_max_suppression_overlaps(ov, scores[:6], 6, 0.5),
                        B.combined_non_max_suppression(boxes[None, :, None], np.stack([scores, 1 - scores], 1)[None],
                                                       3, 4, 0.4)])
    np.testing.assert_array_equal(got[0], _greedy_ref(boxes, scores, 7, 0.4, 0.2))
    ref = _greedy_ref(boxes, scores, 10, 0.4)
    np.testing.assert_array_equal(got[1][0][:len(ref)], ref)
    assert got[1][1] == len(ref) and not got[1][0][len(ref):].any()
    np.testing.assert_array_equal(got[2], _greedy_ref(boxes, scores, 5, 0.4))
    left, keep = sorted(range(6), key=lambda i: -scores[i]), []
    while left:
        best = left.pop(0)
        keep.append(best)
        left = [i for i in left if ov[i, best] <= 0.5]
    np.testing.assert_array_equal(got[3], keep)
    cand = [(scores[i], 0, i) for i in _greedy_ref(boxes, scores, 3, 0.4)] + \
        [(1 - scores[i], 1, i) for i in _greedy_ref(boxes, 1 - scores, 3, 0.4)]
    cand = sorted(cand, key=lambda t: -t[0])[:4]
    np.testing.assert_allclose(got[4][1][0], [c[0] for c in cand], rtol=1e-6)
    np.testing.assert_array_equal(got[4][2][0], [c[1] for c in cand])
    np.testing.assert_allclose(got[4][0][0], np.clip(boxes[[c[2] for c in cand]], 0, 1))


def _draw():
    img = np.zeros((1, 5, 6, 1), np.float32)
    got = _run(lambda: B.draw_bounding_boxes(img, [[[0.25, 0.2, 0.75, 0.8]]]))[0, :, :, 0]
    exp = np.zeros((5, 6))
    exp[1, 1:5] = exp[3, 1:5] = exp[1:4, 1] = exp[1:4, 4] = 1.0   # rows int(.25*4)=1..3, cols int(.2*5)=1..4
    np.testing.assert_array_equal(got, exp)


def _crop_ref(img, boxes, ind, size, extrap=0.0):
    """Bilinear sampling at TF's crop coordinates, one pixel at a time."""
    _, h, w, _ = img.shape
    out = np.zeros((len(boxes), size[0], size[1], img.shape[3]))
    for n, (y1, x1, y2, x2) in enumerate(boxes):
        for i in range(size[0]):
            y = y1 * (h - 1) + i * (y2 - y1) * (h - 1) / (size[0] - 1) if size[0] > 1 else 0.5 * (y1 + y2) * (h - 1)
            for j in range(size[1]):
                x = x1 * (w - 1) + j * (x2 - x1) * (w - 1) / (size[1] - 1) if size[1] > 1 else 0.5 * (x1 + x2) * (w - 1)
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[n, i, j] = extrap
                    continue
                wy = np.maximum(0, 1 - np.abs(y - np.arange(h)))
                wx = np.maximum(0, 1 - np.abs(x - np.arange(w)))
                out[n, i, j] = np.einsum("h,w,hwc->c", wy, wx, img[ind[n]])
    return out.astype(np.float32)


_CB = np.array([[0.1, 0.15, 0.8, 0.9], [-0.3, 0.2, 0.6, 1.2]], np.float32)


def _crop_grads():
    img = _RNG.uniform(0, 1, (2, 4, 5, 2)).astype(np.float32)
    g = _RNG.uniform(-1, 1, (2, 3, 3, 2)).astype(np.float32)
    # the image gradient is the transpose of the (linear) crop: <crop(e_k), g> for each pixel k
    basis = np.zeros_like(img)
    exp = np.zeros_like(img)
    for k in np.ndindex(*img.shape):
        basis[k] = 1.0
        exp[k] = (_crop_ref(basis.astype(np.float64), _CB, [1, 0], [3, 3]) * g).sum()
        basis[k] = 0.0
    def build():
        x, bx = tf.constant(img), tf.constant(_CB)
        return tf.gradients(tf.reduce_sum(B.crop_and_resize(x, bx, [1, 0], [3, 3]) * g), [x, bx])
    got_i, got_b = _run(build)
    np.testing.assert_allclose(got_i, exp, rtol=1e-5, atol=1e-6)
    eps, num = 1e-3, np.zeros((2, 4))
    for k in np.ndindex(2, 4):
        p, m = _CB.astype(np.float64), _CB.astype(np.float64)
        p[k] += eps
        m[k] -= eps
        num[k] = ((_crop_ref(img, p, [1, 0], [3, 3]) - _crop_ref(img, m, [1, 0], [3, 3])) * g).sum() / (2 * eps)
    np.testing.assert_allclose(got_b, num, rtol=1e-3, atol=1e-4)


def _sample_box():
    begin, size, box = _run(lambda: B.sample_distorted_bounding_box([20, 30, 3], [[[0.0, 0.0, 1.0, 1.0]]],
                                                                    min_object_covered=0.3, seed=1))
    assert 0 <= begin[0] and begin[0] + size[0] <= 20 and 0 <= begin[1] and begin[1] + size[1] <= 30
    assert size[0] * size[1] >= 0.3 * 600 and size[2] == -1 and box.shape == (1, 1, 4)


def _patch_ref(x, ks, ss, rs, padding):
    b, h, w, d = x.shape
    eh, ew = ks[0] + (ks[0] - 1) * (rs[0] - 1), ks[1] + (ks[1] - 1) * (rs[1] - 1)
    if padding == "VALID":
        oh, ow, top, left = (h - eh) // ss[0] + 1, (w - ew) // ss[1] + 1, 0, 0
    else:
        oh, ow = -(-h // ss[0]), -(-w // ss[1])
        top, left = max(0, (oh - 1) * ss[0] + eh - h) // 2, max(0, (ow - 1) * ss[1] + ew - w) // 2
    out = np.zeros((b, oh, ow, ks[0], ks[1], d), x.dtype)
    for i in range(oh):
        for j in range(ow):
            for a in range(ks[0]):
                for c in range(ks[1]):
                    y, xx = i * ss[0] - top + a * rs[0], j * ss[1] - left + c * rs[1]
                    if 0 <= y < h and 0 <= xx < w:
                        out[:, i, j, a, c] = x[:, y, xx]
    return out.reshape(b, oh, ow, -1)


ROWS = [
    custom("DecodePng", _decoders, "image decoders"),
    custom("DecodeJpeg", _decoders), custom("DecodeBmp", _decoders), custom("DecodeGif", _decoders),
    custom("DecodeImage", _decoders), custom("DecodeAndCropJpeg", _decoders), custom("ExtractJpegShape", _decoders),
    custom("EncodePng", _encoders, "image encoders"), custom("EncodeJpeg", _encoders),
    custom("EncodeJpegVariableQuality", _encoders),
    Row("RGBToHSV", K.rgb_to_hsv, _hsv_ref, [[F(3, 4, 3, lo=0.0, hi=1.0)]], grad=False),
    custom("RGBToHSVGradLens", _hsv_grad),
    Row("HSVToRGB", K.hsv_to_rgb, _rgb_ref, [[F(2, 5, 3, lo=0.0, hi=0.999)]], grad=False),
    Row("AdjustHue", lambda x: K.adjust_hue(x, 0.3),
        lambda x: _rgb_ref(np.concatenate([(_hsv_ref(x)[..., :1] + 0.3) % 1.0, _hsv_ref(x)[..., 1:]], -1)),
        [[F(3, 4, 3, lo=0.0, hi=1.0)]], dtypes=("float32",), grad=False, rtol=1e-5),
    Row("AdjustSaturation", lambda x: K.adjust_saturation(x, 1.6),
        lambda x: _rgb_ref(np.concatenate([_hsv_ref(x)[..., :1], np.clip(_hsv_ref(x)[..., 1:2] * 1.6, 0, 1),
                                           _hsv_ref(x)[..., 2:]], -1)),
        [[F(3, 4, 3, lo=0.0, hi=1.0)]], dtypes=("float32",), grad=False, rtol=1e-5),
    custom("NonMaxSuppressionV3", _nms, "non-max suppression"), custom("NonMaxSuppressionV4", _nms),
    custom("NonMaxSuppressionV5", _nms), custom("NonMaxSuppressionWithOverlaps", _nms),
    custom("CombinedNonMaxSuppression", _nms),
    custom("DrawBoundingBoxesV2", _draw),
    Row("CropAndResize", lambda x: B.crop_and_resize(x, _CB, [0, 1], [3, 4]),
        lambda x: _crop_ref(x.astype(np.float64), _CB, [0, 1], [3, 4]), [[F(2, 5, 6, 2)]], dtypes=("float32",),
        grad=False),
    custom("CropAndResizeGradImage", _crop_grads), custom("CropAndResizeGradBoxes", _crop_grads),
    custom("SampleDistortedBoundingBoxV2", _sample_box),
    Row("ExtractImagePatches", lambda x: Q.extract_image_patches(x, [1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], "SAME"),
        lambda x: _patch_ref(x, [2, 3], [2, 1], [1, 2], "SAME"), [[F(2, 5, 6, 2)]]),
    Row("ExtractImagePatches", lambda x: Q.extract_image_patches(x, [1, 3, 2, 1], [1, 1, 2, 1], [1, 1, 1, 1], "VALID"),
        lambda x: _patch_ref(x, [3, 2], [1, 2], [1, 1], "VALID"), [[F(1, 4, 5, 3)]], label="ExtractImagePatches VALID"),
]
_ = FIX


def _webp():
    import pathlib
    rec = np.load(pathlib.Path(__file__).resolve().parent / "fixtures" / "webp_tf.npz")
    names = ("lossy", "lossless", "alpha")
    got = _run(lambda: [C.decode_webp(rec["in_" + n].tobytes()) for n in names])
    for g, n in zip(got, names):   # TF's and Pillow's libwebp decode alike, lossy included
        np.testing.assert_array_equal(g, rec[n])
    np.testing.assert_array_equal(got[1][0], rec["rgb"])
    np.testing.assert_array_equal(got[2][0], rec["rgba"])


ROWS.append(custom("DecodeWebP", _webp))


def _volume():
    import pathlib
    rec = np.load(pathlib.Path(__file__).resolve().parent / "fixtures" / "volume_tf.npz")

    def build():
        x = tf.constant(rec["x"])
        a = Q.extract_volume_patches(x, [1, 2, 3, 2, 1], [1, 2, 1, 2, 1], "SAME")
        b = Q.extract_volume_patches(x, [1, 3, 2, 2, 1], [1, 1, 2, 1, 1], "VALID")
        return [a, b, tf.gradients(tf.reduce_sum(a * a), x)[0]]
    got = _run(build)
    for g, k in zip(got, ("same", "valid", "grad")):
        np.testing.assert_allclose(g, rec[k], rtol=1e-6, atol=1e-6)


ROWS.append(custom("ExtractVolumePatches", _volume))


def _glimpse():
    import pathlib
    from lens.ops import image_glimpse as G
    rec = np.load(pathlib.Path(__file__).resolve().parent / "fixtures" / "glimpse_tf.npz")
    x = rec["x"]
    got = _run(lambda: [G.extract_glimpse(x, [3, 4], rec["offs_c"]),
                        G.extract_glimpse(x, [3, 4], rec["offs_px"], centered=False, normalized=False),
                        G.extract_glimpse(x, [3, 4], rec["offs_px2"], centered=False, normalized=False),
                        G.extract_glimpse(x, [4, 5], [[-1.0, -1.0], [0.0, 0.0]], noise="zero"),
                        G.extract_glimpse(x, [4, 5], [[-1.0, -1.0], [0.0, 0.0]])])
    for g, k in zip(got, "abc"):
        np.testing.assert_array_equal(g, rec[k])
    # a window at the top-left corner: its first 2 rows and 2 columns are outside the image
    np.testing.assert_array_equal(got[3][0, :2], 0.0)
    np.testing.assert_array_equal(got[3][0, 2:, 2:], x[0, :2, :3])
    np.testing.assert_array_equal(got[4][0, 2:, 2:], x[0, :2, :3])
    noise = got[4][0, :2]
    assert (noise >= x[0].min((0, 1))).all() and (noise <= x[0].max((0, 1))).all()


ROWS.append(custom("ExtractGlimpseV2", _glimpse))
