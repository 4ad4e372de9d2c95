"""tf.image's box ops: non-max suppression (V3/V4/V5, with overlaps, combined), DrawBoundingBoxesV2,
CropAndResize with its image and box gradients, SampleDistortedBoundingBoxV2 (NumPy kernels)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.random import _seed_attrs


# ---- non-max suppression ------------------------------------------------------------------------
def _iou_matrix(boxes):
    """Pairwise IoU of [n, 4] boxes in any corner order (0 where a box has no area)."""
    b = np.asarray(boxes, np.float64)
    y1, y2 = np.minimum(b[:, 0], b[:, 2]), np.maximum(b[:, 0], b[:, 2])
    x1, x2 = np.minimum(b[:, 1], b[:, 3]), np.maximum(b[:, 1], b[:, 3])
    area = (y2 - y1) * (x2 - x1)
    ih = np.maximum(np.minimum(y2[:, None], y2[None]) - np.maximum(y1[:, None], y1[None]), 0)
    iw = np.maximum(np.minimum(x2[:, None], x2[None]) - np.maximum(x1[:, None], x1[None]), 0)
    inter = ih * iw
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area[:, None] + area[None] - inter)
    return np.where((area[:, None] <= 0) | (area[None] <= 0), 0.0, iou)


def _greedy(sim, scores, max_out, threshold, score_threshold, sigma=0.0):
    """TF's greedy NMS (soft-NMS when sigma > 0): (selected indices, their scores)."""
    scores = np.asarray(scores, np.float64)
    scale = -0.5 / sigma if sigma > 0 else 0.0
    order = [i for i in np.argsort(-scores, kind="stable") if scores[i] > score_threshold]
    cand = [[scores[i], i, 0] for i in order]   # score, index, how many selected boxes it was checked against
    selected, sel_scores = [], []
    while cand and len(selected) < max_out:
        cand.sort(key=lambda c: (-c[0], c[1]))   # best score first, lower index on ties
        score, idx, checked = cand.pop(0)
        original, hard = score, False
        for j in range(len(selected) - 1, checked - 1, -1):
            s = sim[idx, selected[j]]
            score *= np.exp(scale * s * s) if s <= threshold else 0.0
            if sigma <= 0 and s > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(idx)
            sel_scores.append(score)
        elif score > score_threshold:   # soft-NMS: back in the queue with its decayed score
            cand.append([score, idx, len(selected)])
    return np.array(selected, np.int32), np.array(sel_scores)


def _nms_inputs(op, boxes, scores, max_out):
    boxes, scores = np.asarray(boxes), np.asarray(scores)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise errors.InvalidArgumentError(None, op, "boxes must be 2-D [num_boxes, 4], got shape %s"
                                          % list(boxes.shape))
    if scores.shape != (boxes.shape[0],):
        raise errors.InvalidArgumentError(None, op, "scores has incompatible shape %s for %d boxes"
                                          % (list(scores.shape), boxes.shape[0]))
    if int(max_out) < 0:
        raise errors.InvalidArgumentError(None, op, "max_output_size must be non-negative, got %d" % int(max_out))
    return boxes, scores, int(max_out)


def _check_iou(op, thr):
    if not 0 <= float(thr) <= 1:
        raise errors.InvalidArgumentError(None, op, "iou_threshold must be in [0, 1], got %s" % float(thr))


def _nms_v3_make(op, ctx):
    def run(boxes, scores, max_out, iou, score_thr):
        boxes, scores, n = _nms_inputs(op, boxes, scores, max_out)
        _check_iou(op, iou)
        return _greedy(_iou_matrix(boxes), scores, n, float(iou), float(score_thr))[0]
    return run


def _pad(a, n):
    out = np.zeros(n, a.dtype)
    out[:len(a)] = a
    return out


def _nms_v4_make(op, ctx):
    pad = op._attrs["pad_to_max_output_size"]

    def run(boxes, scores, max_out, iou, score_thr):
        boxes, scores, n = _nms_inputs(op, boxes, scores, max_out)
        _check_iou(op, iou)
        sel = _greedy(_iou_matrix(boxes), scores, n, float(iou), float(score_thr))[0]
        return [_pad(sel, n) if pad else sel, np.int32(len(sel))]
    return run


def _nms_v5_make(op, ctx):
    pad = op._attrs["pad_to_max_output_size"]
    dt = op._attrs["T"].as_numpy_dtype

    def run(boxes, scores, max_out, iou, score_thr, sigma):
        boxes, scores, n = _nms_inputs(op, boxes, scores, max_out)
        _check_iou(op, iou)
        if float(sigma) < 0:
            raise errors.InvalidArgumentError(None, op, "soft_nms_sigma must be non-negative, got %s" % float(sigma))
        sel, sc = _greedy(_iou_matrix(boxes), scores, n, float(iou), float(score_thr), float(sigma))
        sc = sc.astype(dt)
        return [_pad(sel, n) if pad else sel, _pad(sc, n) if pad else sc, np.int32(len(sel))]
    return run


def _nms_overlaps_make(op, ctx):
    def run(overlaps, scores, max_out, thr, score_thr):
        ov = np.asarray(overlaps)
        if ov.ndim != 2 or ov.shape[0] != ov.shape[1] or np.shape(scores) != (ov.shape[0],):
            raise errors.InvalidArgumentError(None, op, "overlaps must be square [n, n] with n scores, got %s and %s"
                                              % (list(ov.shape), list(np.shape(scores))))
        return _greedy(ov.astype(np.float64), scores, int(max_out), float(thr), float(score_thr))[0]
    return run


def _combined_make(op, ctx):
    pad_per_class, clip = op._attrs["pad_per_class"], op._attrs["clip_boxes"]

    def run(boxes, scores, per_class, total, iou, score_thr):
        boxes, scores = np.asarray(boxes, np.float32), np.asarray(scores, np.float32)
        if boxes.ndim != 4 or boxes.shape[-1] != 4 or scores.ndim != 3:
            raise errors.InvalidArgumentError(None, op, "boxes must be [batch, num_boxes, q, 4] and scores "
                                              "[batch, num_boxes, num_classes], got %s and %s"
                                              % (list(boxes.shape), list(scores.shape)))
        batch, _, q, _ = boxes.shape
        classes = scores.shape[2]
        if q not in (1, classes):
            raise errors.InvalidArgumentError(None, op, "third dimension of boxes must be either 1 or num classes")
        per_class, total = int(per_class), int(total)
        size = min(total, per_class * classes) if pad_per_class else total
        out_b = np.zeros((batch, size, 4), np.float32)
        out_s, out_c = np.zeros((batch, size), np.float32), np.zeros((batch, size), np.float32)
        valid = np.zeros(batch, np.int32)
        for b in range(batch):
            found = []
            for c in range(classes):
                bx = boxes[b, :, 0 if q == 1 else c]
                sel, sc = _greedy(_iou_matrix(bx), scores[b, :, c], per_class, float(iou), float(score_thr))
                found += [(float(scores[b, i, c]), c, bx[i]) for i in sel]
            found.sort(key=lambda t: -t[0])
            found = found[:size]
            for k, (s, c, bx) in enumerate(found):
                out_b[b, k] = np.clip(bx, 0, 1) if clip else bx
                out_s[b, k], out_c[b, k] = s, c
            valid[b] = len(found)
        return [out_b, out_s, out_c, valid]
    return run


def _vec(op):
    return [TensorShape([None])]


register_op("NonMaxSuppressionV3", make=_nms_v3_make, shape=_vec, not_differentiable=True)
register_op("NonMaxSuppressionV4", make=_nms_v4_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None]), TensorShape([])])
register_op("NonMaxSuppressionV5", make=_nms_v5_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None]), TensorShape([None]), TensorShape([])])
register_op("NonMaxSuppressionWithOverlaps", make=_nms_overlaps_make, shape=_vec, not_differentiable=True)
register_op("CombinedNonMaxSuppression", make=_combined_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None, None, 4]), TensorShape([None, None]), TensorShape([None, None]),
                              TensorShape([None])])


def _nms_args(boxes, scores, max_output_size, iou_threshold, score_threshold):
    return [(convert_to_tensor(boxes, dtype=_dt.float32, name="boxes"), "boxes"),
            (convert_to_tensor(scores, dtype=_dt.float32, name="scores"), "scores"),
            (convert_to_tensor(max_output_size, dtype=_dt.int32, name="max_output_size"), "max_output_size"),
            (convert_to_tensor(iou_threshold, dtype=_dt.float32, name="iou_threshold"), "iou_threshold"),
            (convert_to_tensor(score_threshold, dtype=_dt.float32, name="score_threshold"), "score_threshold")]


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                        name=None):
    """Indices of up to max_output_size boxes, greedily by score, dropping boxes overlapping a kept one."""
    with name_scope(name, "non_max_suppression") as scope:
        ins = _nms_args(boxes, scores, max_output_size, iou_threshold, score_threshold)
        return apply_op("NonMaxSuppressionV3", ins, {"T": _dt.float32, "T_threshold": _dt.float32}, name=scope,
                        dtypes=[_dt.int32], same_dtype=False)


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0, name=None):
    """(indices, scores) of non_max_suppression; soft_nms_sigma > 0 decays overlapping scores instead."""
    with name_scope(name, "non_max_suppression_with_scores") as scope:
        ins = _nms_args(boxes, scores, max_output_size, iou_threshold, score_threshold)
        ins.append((convert_to_tensor(soft_nms_sigma, dtype=_dt.float32, name="soft_nms_sigma"), "soft_nms_sigma"))
        sel, sc, _ = apply_op("NonMaxSuppressionV5", ins, {"T": _dt.float32, "pad_to_max_output_size": False},
                              name=scope, dtypes=[_dt.int32, _dt.float32, _dt.int32], same_dtype=False)
        return sel, sc


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, name=None, sorted_input=False,
                               canonicalized_coordinates=False, tile_size=512):
    """(indices, num_valid) of non_max_suppression, padded with zeros to max_output_size when asked."""
    b = convert_to_tensor(boxes, dtype=_dt.float32, name="boxes")
    if b.shape.ndims not in (None, 2):
        raise ValueError("non_max_suppression_padded: lens takes 2-D boxes [num_boxes, 4], got shape %s" % b.shape)
    with name_scope(name, "non_max_suppression_padded") as scope:
        ins = _nms_args(b, scores, max_output_size, iou_threshold, score_threshold)
        sel, n = apply_op("NonMaxSuppressionV4", ins, {"T": _dt.float32, "T_threshold": _dt.float32,
                                                       "pad_to_max_output_size": bool(pad_to_max_output_size)},
                          name=scope, dtypes=[_dt.int32, _dt.int32], same_dtype=False)
        return sel, n


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=float("-inf"), name=None):
    """non_max_suppression over a given [n, n] overlap matrix instead of boxes' IoU."""
    with name_scope(name, "non_max_suppression_overlaps") as scope:
        ins = _nms_args(overlaps, scores, max_output_size, overlap_threshold, score_threshold)
        ins[0] = (ins[0][0], "overlaps")
        return apply_op("NonMaxSuppressionWithOverlaps", ins, {}, name=scope, dtypes=[_dt.int32], same_dtype=False)


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=float("-inf"), pad_per_class=False, clip_boxes=True, name=None):
    """Per-class NMS over a batch, merged by score: (boxes, scores, classes, valid_detections)."""
    with name_scope(name, "combined_non_max_suppression") as scope:
        ins = [(convert_to_tensor(boxes, dtype=_dt.float32, name="boxes"), "boxes"),
               (convert_to_tensor(scores, dtype=_dt.float32, name="scores"), "scores"),
               (convert_to_tensor(max_output_size_per_class, dtype=_dt.int32), "max_output_size_per_class"),
               (convert_to_tensor(max_total_size, dtype=_dt.int32), "max_total_size"),
               (convert_to_tensor(iou_threshold, dtype=_dt.float32), "iou_threshold"),
               (convert_to_tensor(score_threshold, dtype=_dt.float32), "score_threshold")]
        return tuple(apply_op("CombinedNonMaxSuppression", ins,
                              {"pad_per_class": bool(pad_per_class), "clip_boxes": bool(clip_boxes)}, name=scope,
                              dtypes=[_dt.float32, _dt.float32, _dt.float32, _dt.int32], same_dtype=False))


# ---- DrawBoundingBoxesV2 ------------------------------------------------------------------------
_COLORS = np.array([[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1], [0.5, 0.5, 0, 1],
                    [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]], np.float32)


def _draw_make(op, ctx):
    def run(images, boxes, colors):
        img = np.array(images, copy=True)
        boxes = np.asarray(boxes, np.float32)
        if img.ndim != 4 or not 1 <= img.shape[3] <= 4:
            raise errors.InvalidArgumentError(None, op, "images must be 4-D [batch, height, width, depth] with "
                                              "depth 1 to 4, got shape %s" % list(img.shape))
        if boxes.ndim != 3 or boxes.shape[2] != 4 or boxes.shape[0] != img.shape[0]:
            raise errors.InvalidArgumentError(None, op, "boxes must be [batch, num_boxes, 4] with the images' "
                                              "batch, got shape %s" % list(boxes.shape))
        table = np.asarray(colors, np.float32)
        if table.size == 0:
            table = _COLORS
        if table.ndim != 2 or table.shape[1] < img.shape[3]:
            raise errors.InvalidArgumentError(None, op, "colors must be [num_colors, >= depth], got shape %s"
                                              % list(table.shape))
        _, h, w, depth = img.shape
        for b in range(img.shape[0]):
            for k, box in enumerate(boxes[b]):
                color = table[k % len(table)][:depth].astype(img.dtype)
                r0, c0 = int(box[0] * (h - 1)), int(box[1] * (w - 1))
                r1, c1 = int(box[2] * (h - 1)), int(box[3] * (w - 1))
                if r0 > r1 or c0 > c1 or r0 >= h or r1 < 0 or c0 >= w or c1 < 0:
                    continue
                rc0, rc1, cc0, cc1 = max(r0, 0), min(r1, h - 1), max(c0, 0), min(c1, w - 1)
                if r0 >= 0:
                    img[b, r0, cc0:cc1 + 1] = color
                if r1 < h:
                    img[b, r1, cc0:cc1 + 1] = color
                if c0 >= 0:
                    img[b, rc0:rc1 + 1, c0] = color
                if c1 < w:
                    img[b, rc0:rc1 + 1, c1] = color
        return img
    return run


register_op("DrawBoundingBoxesV2", make=_draw_make, shape=lambda op: [op._inputs[0].shape], not_differentiable=True)


def draw_bounding_boxes(images, boxes, name=None, colors=None):
    """images with each [ymin, xmin, ymax, xmax] box (normalized) outlined, cycling through colors (RGBA rows)."""
    with name_scope(name, "draw_bounding_boxes", [images, boxes]) as scope:
        x = convert_to_tensor(images, name="images")
        if not x.dtype.base_dtype.is_floating:
            raise TypeError("Value passed to parameter 'images' of DrawBoundingBoxesV2 has DataType %s not in list "
                            "of allowed values: float32, half" % x.dtype.base_dtype.name)
        b = convert_to_tensor(boxes, dtype=_dt.float32, name="boxes")
        c = convert_to_tensor(np.zeros((0, 4), np.float32) if colors is None else colors, dtype=_dt.float32,
                              name="colors")
        return apply_op("DrawBoundingBoxesV2", [(x, "images"), (b, "boxes"), (c, "colors")],
                        {"T": x.dtype.base_dtype}, name=scope, dtypes=[x.dtype.base_dtype], same_dtype=False)


# ---- CropAndResize ------------------------------------------------------------------------------
def _crop_coords(box, in_size, crop):
    """Per output index: the source coordinate (float) along one axis, and d coord / d (start, end)."""
    o = np.arange(crop, dtype=np.float64)
    if crop > 1:
        scale = (box[1] - box[0]) * (in_size - 1) / (crop - 1)
        return box[0] * (in_size - 1) + o * scale, (in_size - 1) * (1 - o / (crop - 1)), (in_size - 1) * o / (crop - 1)
    c = np.full(crop, 0.5 * (box[0] + box[1]) * (in_size - 1))
    half = np.full(crop, 0.5 * (in_size - 1))
    return c, half, half


def _check_crop(op, image, boxes, box_ind):
    image, boxes, box_ind = np.asarray(image), np.asarray(boxes, np.float64), np.asarray(box_ind)
    if boxes.ndim != 2 or boxes.shape[1] != 4 or box_ind.shape != (boxes.shape[0],):
        raise errors.InvalidArgumentError(None, op, "boxes must be [num_boxes, 4] and box_ind [num_boxes], got %s "
                                          "and %s" % (list(boxes.shape), list(box_ind.shape)))
    bad = (box_ind < 0) | (box_ind >= image.shape[0])
    if bad.any():
        raise errors.InvalidArgumentError(None, op, "box_ind has values outside [0, batch_size): %s"
                                          % box_ind[bad][0])
    return image, boxes, box_ind.astype(np.int64)


def _crop_make(op, ctx):
    method, extrap = op._attrs["method"], np.float32(op._attrs["extrapolation_value"])

    def run(image, boxes, box_ind, crop_size):
        if np.ndim(image) != 4:
            raise errors.InvalidArgumentError(None, op, "input image must be 4-D, got shape %s"
                                              % list(np.shape(image)))
        image, boxes, box_ind = _check_crop(op, image, boxes, box_ind)
        ch, cw = [int(v) for v in np.ravel(crop_size)]
        if ch <= 0 or cw <= 0:
            raise errors.InvalidArgumentError(None, op, "crop dimensions must be positive, got %s" % [ch, cw])
        _, h, w, d = image.shape
        out = np.empty((len(boxes), ch, cw, d), np.float32)
        for n, (box, bi) in enumerate(zip(boxes, box_ind)):
            ys = _crop_coords(box[[0, 2]], h, ch)[0]
            xs = _crop_coords(box[[1, 3]], w, cw)[0]
            img = image[bi].astype(np.float32)
            valid = (ys >= 0) & (ys <= h - 1)
            xvalid = (xs >= 0) & (xs <= w - 1)
            if method == "bilinear":
                y0, x0 = np.floor(ys).astype(int).clip(0, h - 1), np.floor(xs).astype(int).clip(0, w - 1)
                y1, x1 = np.ceil(ys).astype(int).clip(0, h - 1), np.ceil(xs).astype(int).clip(0, w - 1)
                yl, xl = (ys - np.floor(ys)).astype(np.float32), (xs - np.floor(xs)).astype(np.float32)
                top = img[y0][:, x0] + (img[y0][:, x1] - img[y0][:, x0]) * xl[None, :, None]
                bot = img[y1][:, x0] + (img[y1][:, x1] - img[y1][:, x0]) * xl[None, :, None]
                val = top + (bot - top) * yl[:, None, None]
            else:
                yi = np.floor(ys + 0.5).astype(int).clip(0, h - 1)   # C's roundf: halves away from zero
                xi = np.floor(xs + 0.5).astype(int).clip(0, w - 1)
                val = img[yi][:, xi]
            mask = valid[:, None] & xvalid[None, :]
            out[n] = np.where(mask[:, :, None], val, extrap)
        return out
    return run


def _crop_grad_image_make(op, ctx):
    dt = op._attrs["T"].as_numpy_dtype

    def run(grads, boxes, box_ind, image_size):
        b, h, w, d = [int(v) for v in np.ravel(image_size)]
        grads = np.asarray(grads, np.float64)
        boxes, box_ind = np.asarray(boxes, np.float64), np.asarray(box_ind, np.int64)
        out = np.zeros((b, h, w, d))
        _, ch, cw, _ = grads.shape
        for n, (box, bi) in enumerate(zip(boxes, box_ind)):
            ys = _crop_coords(box[[0, 2]], h, ch)[0]
            xs = _crop_coords(box[[1, 3]], w, cw)[0]
            for i, y in enumerate(ys):
                if not 0 <= y <= h - 1:
                    continue
                y0, y1, yl = int(np.floor(y)), int(np.ceil(y)), y - np.floor(y)
                for j, x in enumerate(xs):
                    if not 0 <= x <= w - 1:
                        continue
                    x0, x1, xl = int(np.floor(x)), int(np.ceil(x)), x - np.floor(x)
                    g = grads[n, i, j]
                    out[bi, y0, x0] += g * (1 - yl) * (1 - xl)
                    out[bi, y0, x1] += g * (1 - yl) * xl
                    out[bi, y1, x0] += g * yl * (1 - xl)
                    out[bi, y1, x1] += g * yl * xl
        return out.astype(dt)
    return run


def _crop_grad_boxes_make(op, ctx):
    def run(grads, image, boxes, box_ind):
        image, boxes, box_ind = _check_crop(op, image, boxes, box_ind)
        grads = np.asarray(grads, np.float64)
        img_all = image.astype(np.float64)
        _, h, w, _ = image.shape
        _, ch, cw, _ = grads.shape
        out = np.zeros((len(boxes), 4))
        for n, (box, bi) in enumerate(zip(boxes, box_ind)):
            ys, dy1, dy2 = _crop_coords(box[[0, 2]], h, ch)
            xs, dx1, dx2 = _crop_coords(box[[1, 3]], w, cw)
            img = img_all[bi]
            for i, y in enumerate(ys):
                if not 0 <= y <= h - 1:
                    continue
                y0, y1, yl = int(np.floor(y)), int(np.ceil(y)), y - np.floor(y)
                for j, x in enumerate(xs):
                    if not 0 <= x <= w - 1:
                        continue
                    x0, x1, xl = int(np.floor(x)), int(np.ceil(x)), x - np.floor(x)
                    tl, tr, bl, br = img[y0, x0], img[y0, x1], img[y1, x0], img[y1, x1]
                    gy = ((1 - xl) * (bl - tl) + xl * (br - tr)) @ grads[n, i, j]
                    gx = ((1 - yl) * (tr - tl) + yl * (br - bl)) @ grads[n, i, j]
                    out[n] += [gy * dy1[i], gx * dx1[j], gy * dy2[i], gx * dx2[j]]
        return out.astype(np.float32)
    return run


def _crop_grad(op, g):
    image, boxes, box_ind, _ = op._inputs
    if op._attrs["method"] != "bilinear":
        return [None, None, None, None]
    from lens.ops.array import shape
    with name_scope(None, "CropAndResizeGrad"):
        gi = apply_op("CropAndResizeGradImage", [(g, "grads"), (boxes, "boxes"), (box_ind, "box_ind"),
                                                 (shape(image), "image_size")],
                      {"T": image.dtype.base_dtype, "method": "bilinear"}, dtypes=[image.dtype.base_dtype],
                      same_dtype=False)
        gb = apply_op("CropAndResizeGradBoxes", [(g, "grads"), (image, "image"), (boxes, "boxes"),
                                                 (box_ind, "box_ind")],
                      {"T": image.dtype.base_dtype, "method": "bilinear"}, dtypes=[_dt.float32], same_dtype=False)
    return [gi, gb, None, None]


def _crop_shape(op):
    from lens.ops.shapes import const_value
    n = op._inputs[1].shape.as_list()[0] if op._inputs[1].shape.ndims == 2 else None
    d = op._inputs[0].shape.as_list()[3] if op._inputs[0].shape.ndims == 4 else None
    size = const_value(op._inputs[3])
    hw = [None, None] if size is None else [int(v) for v in np.ravel(size)]
    return [TensorShape([n] + hw + [d])]


register_op("CropAndResize", make=_crop_make, shape=_crop_shape, grad=_crop_grad)
register_op("CropAndResizeGradImage", make=_crop_grad_image_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None] * 4)])
register_op("CropAndResizeGradBoxes", make=_crop_grad_boxes_make, not_differentiable=True,
            shape=lambda op: [op._inputs[2].shape])


def crop_and_resize(image, boxes, box_ind=None, crop_size=None, method="bilinear", extrapolation_value=0,
                    name=None, box_indices=None):
    """float32 [num_boxes, crop_h, crop_w, depth] crops of image[box_ind] at normalized boxes, resized."""
    if box_ind is None:
        box_ind = box_indices
    if box_ind is None or crop_size is None:
        raise TypeError("crop_and_resize needs box_ind (box_indices) and crop_size")
    if method not in ("bilinear", "nearest"):
        raise ValueError("method must be 'bilinear' or 'nearest', got %r" % (method,))
    with name_scope(name, "CropAndResize", [image, boxes]) as scope:
        x = convert_to_tensor(image, name="image")
        ins = [(x, "image"), (convert_to_tensor(boxes, dtype=_dt.float32, name="boxes"), "boxes"),
               (convert_to_tensor(box_ind, dtype=_dt.int32, name="box_ind"), "box_ind"),
               (convert_to_tensor(crop_size, dtype=_dt.int32, name="crop_size"), "crop_size")]
        return apply_op("CropAndResize", ins, {"T": x.dtype.base_dtype, "method": method,
                                               "extrapolation_value": float(extrapolation_value)},
                        name=scope, dtypes=[_dt.float32], same_dtype=False)


# ---- SampleDistortedBoundingBoxV2 ---------------------------------------------------------------
def _random_crop_box(gen, h, w, boxes, min_cover, ar_range, area_range, attempts):
    """TF's search for a crop (y, x, height, width) covering min_cover of some box, or None."""
    for _ in range(attempts):
        ar = gen.uniform(ar_range[0], ar_range[1])
        min_area, max_area = area_range[0] * h * w, area_range[1] * h * w
        min_h = int(round(np.sqrt(min_area / ar)))
        max_h = int(round(np.sqrt(max_area / ar)))
        if round(max_h * ar) > w:
            max_h = int((w + 0.5 - 1e-7) / ar)
        max_h = min(max_h, h)
        min_h = min(min_h, max_h)
        height = min_h + (int(gen.integers(0, max_h - min_h + 1)) if min_h < max_h else 0)
        width = int(round(height * ar))
        area = width * height
        if area < min_area:
            height += 1
            width = int(round(height * ar))
            area = width * height
        if area > max_area:
            height -= 1
            width = int(round(height * ar))
            area = width * height
        if area < min_area or area > max_area or width > w or height > h or width <= 0 or height <= 0:
            continue
        y = int(gen.integers(0, h - height + 1))
        x = int(gen.integers(0, w - width + 1))
        for by0, bx0, by1, bx1 in boxes:
            iy = max(0, min(y + height, by1) - max(y, by0))
            ix = max(0, min(x + width, bx1) - max(x, bx0))
            box_area = (by1 - by0) * (bx1 - bx0)
            if box_area > 0 and iy * ix / box_area >= min_cover:
                return y, x, height, width
    return None


def _sample_make(op, ctx):
    gen = ctx.rng(op)
    a = op._attrs

    def run(image_size, bounding_boxes, min_object_covered):
        size = np.ravel(image_size)
        if size.shape != (3,):
            raise errors.InvalidArgumentError(None, op, "image_size must be 1-D with 3 elements [height, width, "
                                              "channels], got %s" % list(np.shape(image_size)))
        h, w = int(size[0]), int(size[1])
        bb = np.asarray(bounding_boxes, np.float32).reshape(-1, 4)
        cover = float(min_object_covered)
        if cover < 0:
            raise errors.InvalidArgumentError(None, op, "min_object_covered must be non-negative, got %s" % cover)
        if len(bb) == 0:
            if not a["use_image_if_no_bounding_boxes"]:
                raise errors.InvalidArgumentError(None, op, "No bounding boxes provided as input. One must enable "
                                                  "use_image_if_no_bounding_boxes if you wish to not provide any "
                                                  "bounding boxes.")
            bb = np.array([[0, 0, 1, 1]], np.float32)
        if ((bb < 0) | (bb > 1)).any():
            raise errors.InvalidArgumentError(None, op, "All bounding box coordinates must be in [0.0, 1.0]")
        pix = [(int(b[0] * h), int(b[1] * w), int(b[2] * h), int(b[3] * w)) for b in bb]
        order = gen.permutation(len(pix))
        found = _random_crop_box(gen, h, w, [pix[i] for i in order], cover, a["aspect_ratio_range"],
                                 a["area_range"], a["max_attempts"])
        y, x, ch, cw = found if found else (0, 0, h, w)
        dt = op._attrs["T"].as_numpy_dtype
        box = np.array([[[y / h, x / w, (y + ch) / h, (x + cw) / w]]], np.float32)
        return [np.array([y, x, 0], dt), np.array([ch, cw, -1], dt), box]
    return run


register_op("SampleDistortedBoundingBoxV2", make=_sample_make, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([3]), TensorShape([3]), TensorShape([1, 1, 4])])


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=None, seed2=None, min_object_covered=0.1,
                                  aspect_ratio_range=None, area_range=None, max_attempts=None,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """(begin, size, bboxes) of a random crop covering min_object_covered of one of bounding_boxes."""
    aspect_ratio_range = [0.75, 1.33] if aspect_ratio_range is None else list(aspect_ratio_range)
    area_range = [0.05, 1.0] if area_range is None else list(area_range)
    max_attempts = 100 if max_attempts is None else int(max_attempts)
    if len(aspect_ratio_range) != 2 or aspect_ratio_range[0] <= 0 or aspect_ratio_range[0] > aspect_ratio_range[1]:
        raise ValueError("aspect_ratio_range must be 2 positive floats [min, max], got %s" % aspect_ratio_range)
    if len(area_range) != 2 or not 0 < area_range[0] <= area_range[1] <= 1:
        raise ValueError("area_range must be 2 floats in (0, 1] [min, max], got %s" % area_range)
    if max_attempts <= 0:
        raise ValueError("max_attempts must be positive: %s" % max_attempts)
    with name_scope(name, "sample_distorted_bounding_box", [image_size, bounding_boxes]) as scope:
        size = convert_to_tensor(image_size, name="image_size")
        attrs = {"T": size.dtype.base_dtype, "aspect_ratio_range": [float(v) for v in aspect_ratio_range],
                 "area_range": [float(v) for v in area_range], "max_attempts": max_attempts,
                 "use_image_if_no_bounding_boxes": bool(use_image_if_no_bounding_boxes)}
        attrs.update(_seed_attrs(seed) if seed2 is None else {"seed": int(seed or 0), "seed2": int(seed2)})
        ins = [(size, "image_size"), (convert_to_tensor(bounding_boxes, dtype=_dt.float32), "bounding_boxes"),
               (convert_to_tensor(min_object_covered, dtype=_dt.float32), "min_object_covered")]
        return tuple(apply_op("SampleDistortedBoundingBoxV2", ins, attrs, name=scope,
                              dtypes=[size.dtype.base_dtype] * 2 + [_dt.float32], same_dtype=False))
