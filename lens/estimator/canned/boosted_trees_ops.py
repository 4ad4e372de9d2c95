"""The tree-ensemble kernels behind tf.estimator.BoostedTrees* (NumPy): bucketize, predict, grow a layer.

The ensemble lives in variables (so checkpoints hold it): per tree and node the split `feature`
(-1 on leaves), the bucket `threshold` (an example goes left when its bucket <= threshold), the
`left` child (the right one is left + 1) and the node's `value` (a child's value is its parent's
plus learning_rate * its weight: a tree's prediction is the value of the leaf reached); per tree
its `size`; `state` = [trees finalized, layer being grown, layers attempted, batches accumulated].
Statistics [node, feature, bucket, (gradient, hessian)] accumulate over n_batches_per_layer
batches; then every node of the layer being grown splits on the (feature, bucket) of largest gain

    gain = s(G_L, H_L) + s(G_R, H_R) - s(G, H) - tree_complexity,  s(g, h) = shrink(g)^2 / (h + l2)

(shrink(g) = sign(g) max(|g| - l1, 0)) when that gain is positive and both sides weigh at least
min_node_weight, with child weights -shrink(G)/(H + l2), as TF1.15's layer-by-layer boosted trees.
"""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.variables import _ref_of

__all__ = ["ENSEMBLE_FIELDS", "bucketize", "ensemble_logits", "grow_layer", "FINALIZED", "LAYER", "ATTEMPTED",
           "BATCHES"]

ENSEMBLE_FIELDS = ("feature", "threshold", "left", "value", "size", "state", "stats")
FINALIZED, LAYER, ATTEMPTED, BATCHES = range(4)


def _bucketize_make(op, ctx):
    boundaries = [np.asarray(b, np.float32) for b in op._attrs["boundaries"]]

    def run(values):
        values = np.asarray(values, np.float32)
        out = np.empty(values.shape, np.int32)
        for f, b in enumerate(boundaries):
            out[:, f] = np.searchsorted(b, values[:, f], side="right")
        return out
    return run


register_op("BoostedTreesLensBucketize", make=_bucketize_make, not_differentiable=True,
            shape=lambda op: [op._inputs[0].shape])


def bucketize(values, boundaries, name=None):
    """Bucket ids [n, F] of float values [n, F]: the number of feature f's boundaries <= the value."""
    g = get_default_graph()
    with name_scope(name, "Bucketize") as scope:
        v = convert_to_tensor(values, dtype=_dt.float32, name="values")
        op = g._create_op("BoostedTreesLensBucketize", [v], [_dt.int32],
                          {"boundaries": [list(map(float, b)) for b in boundaries]}, scope)
    return op._outputs[0]


def leaves(feature, threshold, left, buckets):
    """The node each row of buckets [n, F] reaches in one tree."""
    node = np.zeros(len(buckets), np.int64)
    rows = np.arange(len(buckets))
    active = feature[node] >= 0
    while active.any():
        r, n = rows[active], node[active]
        node[r] = left[n] + (buckets[r, feature[n]] > threshold[n])
        active = feature[node] >= 0
    return node


def _names(op, start):
    return dict(zip(ENSEMBLE_FIELDS, [t.op.name for t in op._inputs[start:start + len(ENSEMBLE_FIELDS)]]))


def _logits_make(op, ctx):
    store, names = ctx.variables, _names(op, 1)

    def run(buckets):
        buckets = np.asarray(buckets)
        feature, threshold, left, value = (store[names[k]] for k in ("feature", "threshold", "left", "value"))
        out = np.zeros(len(buckets), np.float32)
        for t in range(feature.shape[0]):
            if feature[t, 0] < 0 and value[t, 0] == 0:
                continue                                # an empty tree adds nothing
            out += value[t, leaves(feature[t], threshold[t], left[t], buckets)]
        return out[:, None]
    return run


register_op("BoostedTreesLensPredict", make=_logits_make, not_differentiable=True,
            handle_inputs=tuple(range(1, 1 + len(ENSEMBLE_FIELDS))),
            shape=lambda op: [TensorShape([op._inputs[0].shape[:1].as_list()[0], 1])])


def ensemble_logits(buckets, ensemble, name=None):
    """Logits [n, 1]: the sum over trees of the value of the leaf each example reaches."""
    g = get_default_graph()
    with name_scope(name, "BoostedTreesPredict") as scope:
        refs = [_ref_of(ensemble[k]) for k in ENSEMBLE_FIELDS]
        op = g._create_op("BoostedTreesLensPredict", [convert_to_tensor(buckets, name="buckets")] + refs,
                          [_dt.float32], {}, scope)
    return op._outputs[0]


def _writable(store, names):
    out = {}
    for key, name in names.items():
        arr = store[name]
        if arr.base is not None or not arr.flags.owndata:
            arr = store[name] = np.array(arr, copy=True)
        arr.flags.writeable = True
        out[key] = arr
    return out


def _shrink(g, l1):
    return np.sign(g) * np.maximum(np.abs(g) - l1, 0.0) if l1 > 0 else g


def best_split(stats, num_buckets, l1, l2, tree_complexity, min_node_weight):
    """(gain, feature, bucket threshold, left (G, H), right (G, H)) of one node's stats [F, B, 2], or None."""
    cum = np.cumsum(stats, axis=1)                      # left side: buckets <= threshold
    total = cum[0, -1]
    left_g, left_h = cum[..., 0], cum[..., 1]
    right_g, right_h = total[0] - left_g, total[1] - left_h

    def score(g, h):
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.square(_shrink(g, l1)) / (h + l2)
        return np.where(h + l2 > 0, s, 0.0)
    gain = score(left_g, left_h) + score(right_g, right_h) - score(total[0], total[1]) - tree_complexity
    valid = (left_h >= min_node_weight) & (right_h >= min_node_weight)
    valid &= np.arange(stats.shape[1])[None, :] < (np.asarray(num_buckets)[:, None] - 1)   # right side exists
    gain = np.where(valid, gain, -np.inf)
    f, b = np.unravel_index(int(np.argmax(gain)), gain.shape)
    if not np.isfinite(gain[f, b]) or gain[f, b] <= 0:
        return None
    return (float(gain[f, b]), int(f), int(b), (left_g[f, b], left_h[f, b]), (right_g[f, b], right_h[f, b]))


def _grow_make(op, ctx):
    store, names = ctx.variables, _names(op, 3)
    a = op._attrs
    lr, l1, l2 = a["learning_rate"], a["l1"], a["l2"]
    complexity, min_weight, per_layer = a["tree_complexity"], a["min_node_weight"], a["n_batches_per_layer"]
    max_depth, num_buckets = a["max_depth"], a["num_buckets"]

    def weight(g, h):
        return -_shrink(g, l1) / (h + l2) if h + l2 > 0 else 0.0

    def run(buckets, gradients, hessians):
        e = _writable(store, names)
        try:
            state = e["state"]
            n_trees = e["feature"].shape[0]
            if state[FINALIZED] >= n_trees:
                return np.bool_(False)
            buckets = np.asarray(buckets)
            g = np.asarray(gradients, np.float64).reshape(-1)
            h = np.asarray(hessians, np.float64).reshape(-1)
            if len(g) != len(buckets) or len(h) != len(buckets):
                raise errors.InvalidArgumentError(None, op, "%d examples but %d gradients and %d hessians"
                                                  % (len(buckets), len(g), len(h)))
            t, layer = int(state[FINALIZED]), int(state[LAYER])
            node = leaves(e["feature"][t], e["threshold"][t], e["left"][t], buckets)
            depth_ok = _depth(e["left"][t], e["feature"][t])[node] == layer
            rows = np.nonzero(depth_ok)[0]
            n_feat = buckets.shape[1]
            for k, vals in ((0, g), (1, h)):
                np.add.at(e["stats"], (np.repeat(node[rows], n_feat), np.tile(np.arange(n_feat), len(rows)),
                                       buckets[rows].reshape(-1), k), np.repeat(vals[rows], n_feat))
            state[BATCHES] += 1
            if state[BATCHES] < per_layer:
                return np.bool_(False)
            split_any = _grow(e, t, layer, lr, l1, l2, complexity, min_weight, num_buckets, weight)
            state[BATCHES] = 0
            state[ATTEMPTED] += 1
            e["stats"][...] = 0
            if split_any and layer + 1 < max_depth:
                state[LAYER] = layer + 1
            else:
                state[FINALIZED] += 1
                state[LAYER] = 0
            return np.bool_(True)
        finally:
            for arr in e.values():
                arr.flags.writeable = False
    return run


def _depth(left, feature):
    """Depth of every node of one tree (nodes are numbered so a parent precedes its children)."""
    depth = np.zeros(len(left), np.int64)
    for n in np.nonzero(feature >= 0)[0]:
        depth[left[n]] = depth[left[n] + 1] = depth[n] + 1
    return depth


def _grow(e, t, layer, lr, l1, l2, complexity, min_weight, num_buckets, weight):
    """Split every leaf at depth layer of tree t on its best (feature, bucket); True when one split."""
    feature, threshold, left, value, size = e["feature"][t], e["threshold"][t], e["left"][t], e["value"][t], e["size"]
    depth = _depth(left, feature)
    candidates = [n for n in range(int(size[t])) if feature[n] < 0 and depth[n] == layer]
    split_any = False
    for n in candidates:
        best = best_split(e["stats"][n], num_buckets, l1, l2, complexity, min_weight)
        if best is None or int(size[t]) + 2 > feature.shape[0]:
            continue
        _, f, b, (lg, lh), (rg, rh) = best
        child = int(size[t])
        feature[n], threshold[n], left[n] = f, b, child
        value[child] = value[n] + lr * weight(lg, lh)
        value[child + 1] = value[n] + lr * weight(rg, rh)
        size[t] += 2
        split_any = True
    return split_any


register_op("BoostedTreesLensGrow", make=_grow_make, not_differentiable=True, stateful=True,
            handle_inputs=tuple(range(3, 3 + len(ENSEMBLE_FIELDS))), shape=lambda op: [TensorShape([])])


def grow_layer(buckets, gradients, hessians, ensemble, learning_rate, l1, l2, tree_complexity, min_node_weight,
               n_batches_per_layer, max_depth, num_buckets, name=None):
    """Accumulate one batch's gradient statistics; every n_batches_per_layer batches grow a layer.
    Returns True on the batches that grew (or tried to grow) a layer."""
    g = get_default_graph()
    with name_scope(name, "BoostedTreesGrow") as scope:
        inputs = [convert_to_tensor(buckets, name="buckets"),
                  convert_to_tensor(gradients, dtype=_dt.float32, name="gradients"),
                  convert_to_tensor(hessians, dtype=_dt.float32, name="hessians")]
        refs = [_ref_of(ensemble[k]) for k in ENSEMBLE_FIELDS]
        attrs = {"learning_rate": float(learning_rate), "l1": float(l1), "l2": float(l2),
                 "tree_complexity": float(tree_complexity), "min_node_weight": float(min_node_weight),
                 "n_batches_per_layer": int(n_batches_per_layer), "max_depth": int(max_depth),
                 "num_buckets": [int(b) for b in num_buckets]}
        op = g._create_op("BoostedTreesLensGrow", inputs + refs, [_dt.bool], attrs, scope)
    return op._outputs[0]
