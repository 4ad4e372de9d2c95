"""The tree-ensemble kernels behind tf.estimator.BoostedTrees* (NumPy): bucketize, predict, grow a layer.

The ensemble lives in variables (so checkpoints hold it): per tree and node the split `feature`
(-1 on leaves), the bucket `threshold` (an example goes left when its bucket <= threshold), the
`left` child (the right one is left + 1) and the node's `value` (a child's value is its parent's
plus learning_rate * its weight: a tree's prediction is the value of the leaf reached); per tree
its `size`; `state` = [trees finalized, layer being grown, layers attempted, batches (or examples)
accumulated]. The examples reaching the layer being grown (their buckets, gradients and diagonal
hessians) are kept by the session over n_batches_per_layer batches (or until examples_per_layer
examples); then each node's statistics [feature, bucket, (gradient, hessian), logit] are summed and
every node of that layer splits on the (feature, bucket) of largest gain

    gain = s(G_L, H_L) + s(G_R, H_R) - s(G, H) - tree_complexity,  s(g, h) = shrink(g)^2 / (h + l2)

(shrink(g) = sign(g) max(|g| - l1, 0)) when that gain is positive and both sides weigh at least
min_node_weight, with child weights -shrink(G)/(H + l2), as TF1.15's layer-by-layer boosted trees;
with K logits (multi-class, diagonal hessian) the scores add over the K dimensions.
"""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.variables import _ref_of

__all__ = ["ENSEMBLE_FIELDS", "bucketize", "quantile_bucketize", "ensemble_logits", "grow_layer", "FINALIZED", "LAYER", "ATTEMPTED",
           "BATCHES"]

ENSEMBLE_FIELDS = ("feature", "threshold", "left", "value", "size", "state")
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


def _quantile_make(op, ctx):
    store, name = ctx.variables, op._inputs[1].op.name
    learn = op._attrs["learn"]

    def run(values):
        values = np.asarray(values, np.float32)
        bounds = store[name]
        if learn and np.isnan(bounds).all() and len(values):
            # The first training batch fixes each feature's boundaries: its distinct quantiles.
            levels = np.linspace(0, 1, bounds.shape[1] + 2)[1:-1]
            new = np.full(bounds.shape, np.inf, np.float32)
            for f in range(values.shape[1]):
                q = np.unique(np.quantile(values[:, f], levels).astype(np.float32))
                q = q[q > values[:, f].min()]           # a boundary at the minimum leaves an empty bucket
                new[f, :len(q)] = q
            new.flags.writeable = False
            bounds = store[name] = new
        out = np.zeros(values.shape, np.int32)
        counts = np.ones(values.shape[1], np.int32)
        if not np.isnan(bounds).all():
            for f in range(values.shape[1]):
                b = bounds[f][np.isfinite(bounds[f])]
                out[:, f] = np.searchsorted(b, values[:, f], side="right")
                counts[f] = len(b) + 1
        return out, counts
    return run


register_op("BoostedTreesLensQuantileBucketize", make=_quantile_make, not_differentiable=True, stateful=True,
            handle_inputs=(1,), shape=lambda op: [op._inputs[0].shape, TensorShape([op._inputs[0].shape[-1]])])


def quantile_bucketize(values, boundaries_var, learn, name=None):
    """(bucket ids [n, F], bucket counts [F]) of float values by per-feature boundaries held in
    boundaries_var [F, Q] (NaN until set; padded with +inf), which the first batch sets when learn."""
    g = get_default_graph()
    with name_scope(name, "QuantileBucketize") as scope:
        v = convert_to_tensor(values, dtype=_dt.float32, name="values")
        op = g._create_op("BoostedTreesLensQuantileBucketize", [v, _ref_of(boundaries_var)], [_dt.int32, _dt.int32],
                          {"learn": bool(learn)}, scope)
    return op._outputs[0], op._outputs[1]


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
        out = np.zeros((len(buckets), value.shape[2]), np.float32)
        for t in range(feature.shape[0]):
            if feature[t, 0] < 0 and not value[t, 0].any():
                continue                                # an empty tree adds nothing
            out += value[t, leaves(feature[t], threshold[t], left[t], buckets)]
        return out
    return run


def _logits_shape(op):
    value = op._inputs[1 + ENSEMBLE_FIELDS.index("value")].shape
    return [TensorShape([op._inputs[0].shape[:1].as_list()[0], value.as_list()[-1]])]


register_op("BoostedTreesLensPredict", make=_logits_make, not_differentiable=True,
            handle_inputs=tuple(range(1, 1 + len(ENSEMBLE_FIELDS))), shape=_logits_shape)


def ensemble_logits(buckets, ensemble, name=None):
    """Logits [n, K]: the sum over trees of the value (K numbers) of the leaf each example reaches."""
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
    """(gain, feature, bucket threshold, left (G, H), right (G, H)) of one node's stats [F, B, 2, K], or None.
    With K logits the hessian is taken diagonal: scores add over the K dimensions."""
    cum = np.cumsum(stats, axis=1)                      # left side: buckets <= threshold
    total = cum[0, -1]
    left_g, left_h = cum[:, :, 0], cum[:, :, 1]
    right_g, right_h = total[0] - left_g, total[1] - left_h

    def score(g, h):
        with np.errstate(divide="ignore", invalid="ignore"):
            s = np.square(_shrink(g, l1)) / (h + l2)
        return np.where(h + l2 > 0, s, 0.0).sum(-1)
    gain = score(left_g, left_h) + score(right_g, right_h) - score(total[0], total[1]) - tree_complexity
    valid = (left_h.sum(-1) >= min_node_weight) & (right_h.sum(-1) >= min_node_weight)
    valid &= np.arange(stats.shape[1])[None, :] < (np.asarray(num_buckets)[:, None] - 1)   # right side exists
    gain = np.where(valid, gain, -np.inf)
    f, b = np.unravel_index(int(np.argmax(gain)), gain.shape)
    # Examples of identical gradients give a zero gain that rounding may leave a hair above 0.
    if not np.isfinite(gain[f, b]) or gain[f, b] <= 1e-9 * max(float(score(total[0], total[1])), 1e-30):
        return None
    return (float(gain[f, b]), int(f), int(b), (left_g[f, b], left_h[f, b]), (right_g[f, b], right_h[f, b]))


def _grow_make(op, ctx):
    store, names = ctx.variables, _names(op, 4)
    a = op._attrs
    lr, l1, l2 = a["learning_rate"], a["l1"], a["l2"]
    complexity, min_weight, per_layer = a["tree_complexity"], a["min_node_weight"], a["n_batches_per_layer"]
    max_depth, examples_per_layer = a["max_depth"], a.get("examples_per_layer", 0)
    key = ("boosted_trees_layer_rows", op.name)

    def weight(g, h):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(h + l2 > 0, -_shrink(g, l1) / (h + l2), 0.0)

    def run(buckets, num_buckets, gradients, hessians):
        e = _writable(store, names)
        try:
            state = e["state"]
            if state[FINALIZED] >= e["feature"].shape[0]:
                return np.bool_(False)
            buckets = np.asarray(buckets)
            k = e["value"].shape[2]
            g = np.asarray(gradients, np.float64).reshape(-1, k)
            h = np.asarray(hessians, np.float64).reshape(-1, k)
            if len(g) != len(buckets) or len(h) != len(buckets):
                raise errors.InvalidArgumentError(None, op, "%d examples but %d gradients and %d hessians"
                                                  % (len(buckets), len(g), len(h)))
            rows = ctx.resources.get(key)
            if rows is None:
                # A new session: a layer half-accumulated by an earlier one starts over.
                rows = ctx.resources[key] = []
                state[BATCHES] = 0
            t, layer = int(state[FINALIZED]), int(state[LAYER])
            node = leaves(e["feature"][t], e["threshold"][t], e["left"][t], buckets)
            keep = _depth(e["left"][t], e["feature"][t])[node] == layer
            rows.append((node[keep], buckets[keep], g[keep], h[keep]))
            state[BATCHES] += len(buckets) if examples_per_layer else 1
            if state[BATCHES] < (examples_per_layer or per_layer):
                return np.bool_(False)
            node, buckets, g, h = (np.concatenate(parts) for parts in zip(*rows))
            rows.clear()
            split_any = _grow(e, t, layer, lr, l1, l2, complexity, min_weight, np.asarray(num_buckets),
                              weight, (node, buckets, g, h))
            state[BATCHES] = 0
            state[ATTEMPTED] += 1
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


def node_stats(buckets, g, h, num_features, max_buckets):
    """Summed (gradient, hessian) per feature and bucket of one node's examples: [F, B, 2, K]."""
    idx = (np.arange(num_features)[None, :] * max_buckets + buckets).reshape(-1)
    size = num_features * max_buckets
    out = np.zeros((2, g.shape[1], size))
    for j, vals in enumerate((g, h)):
        for k in range(vals.shape[1]):
            out[j, k] = np.bincount(idx, weights=np.repeat(vals[:, k], num_features), minlength=size)
    return out.reshape(2, g.shape[1], num_features, max_buckets).transpose(2, 3, 0, 1)


def _depth(left, feature):
    """Depth of every node of one tree (nodes are numbered so a parent precedes its children)."""
    depth = np.zeros(len(left), np.int64)
    for n in np.nonzero(feature >= 0)[0]:
        depth[left[n]] = depth[left[n] + 1] = depth[n] + 1
    return depth


def _grow(e, t, layer, lr, l1, l2, complexity, min_weight, num_buckets, weight, rows):
    """Split every leaf at depth layer of tree t on its best (feature, bucket); True when one split."""
    feature, threshold, left, value, size = e["feature"][t], e["threshold"][t], e["left"][t], e["value"][t], e["size"]
    depth = _depth(left, feature)
    candidates = [n for n in range(int(size[t])) if feature[n] < 0 and depth[n] == layer]
    split_any = False
    for n in candidates:
        node, buckets, g, h = rows
        sel = node == n
        if not sel.any():
            continue
        stats = node_stats(buckets[sel], g[sel], h[sel], len(num_buckets), int(num_buckets.max()))
        best = best_split(stats, num_buckets, l1, l2, complexity, min_weight)
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
            handle_inputs=tuple(range(4, 4 + len(ENSEMBLE_FIELDS))), shape=lambda op: [TensorShape([])])


def grow_layer(buckets, gradients, hessians, ensemble, learning_rate, l1, l2, tree_complexity, min_node_weight,
               n_batches_per_layer, max_depth, num_buckets, examples_per_layer=0, name=None):
    """Accumulate one batch's gradient statistics ([n, K] gradients and diagonal hessians); every
    n_batches_per_layer batches grow a layer (num_buckets [F]: each feature's bucket count).
    Returns True on the batches that grew (or tried to grow) a layer."""
    g = get_default_graph()
    with name_scope(name, "BoostedTreesGrow") as scope:
        inputs = [convert_to_tensor(buckets, name="buckets"),
                  convert_to_tensor(num_buckets, dtype=_dt.int32, name="num_buckets"),
                  convert_to_tensor(gradients, dtype=_dt.float32, name="gradients"),
                  convert_to_tensor(hessians, dtype=_dt.float32, name="hessians")]
        refs = [_ref_of(ensemble[k]) for k in ENSEMBLE_FIELDS]
        attrs = {"learning_rate": float(learning_rate), "l1": float(l1), "l2": float(l2),
                 "tree_complexity": float(tree_complexity), "min_node_weight": float(min_node_weight),
                 "n_batches_per_layer": int(n_batches_per_layer), "max_depth": int(max_depth),
                 "examples_per_layer": int(examples_per_layer)}
        op = g._create_op("BoostedTreesLensGrow", inputs + refs, [_dt.bool], attrs, scope)
    return op._outputs[0]
