"""The random-tree kernels behind tf.contrib.tensor_forest (NumPy, one tree per op).

A tree lives in ordinary variables, so Saver checkpoints it and global_variables_initializer
starts it: per node its split `feature` (-1 on leaves), `threshold` (go left when x <= threshold),
`left` child (the right one is left + 1) and class `counts`; the tree's `size`. While a leaf is
fertile its stats hold up to num_splits_to_consider candidate splits (a random feature, the
value of the example that created it as threshold) with the class counts each has seen in total
and on its left side. Once a leaf has seen split_after_samples examples and all its candidates
exist, it splits on the candidate of least weighted Gini impurity, as TF's online random trees.
"""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.variables import _ref_of

__all__ = ["TREE_FIELDS", "STATS_FIELDS", "train_tree", "tree_predictions"]

TREE_FIELDS = ("feature", "threshold", "left", "counts", "size")
STATS_FIELDS = ("seen", "cand_n", "cand_feature", "cand_threshold", "cand_left", "cand_total")


def traverse(tree, x):
    """The leaf each row of x reaches."""
    feature, threshold, left = tree["feature"], tree["threshold"], tree["left"]
    node = np.zeros(len(x), np.int64)
    rows = np.arange(len(x))
    active = feature[node] >= 0
    while active.any():
        r, n = rows[active], node[active]
        go_right = x[r, feature[n]] > threshold[n]
        node[r] = left[n] + go_right
        active = feature[node] >= 0
    return node


def _writable(store, names):
    """The session's arrays for names, made writable in place (copied once if shared)."""
    out = {}
    for key, name in names.items():
        arr = store[name]
        if arr.base is not None or not arr.flags.owndata:
            arr = store[name] = np.array(arr, copy=True)
        arr.flags.writeable = True
        out[key] = arr
    return out


def _freeze(arrays):
    for arr in arrays.values():
        arr.flags.writeable = False


def _seed_candidates(st, leaves, x, gen, num_splits):
    """Each example at a leaf still short of candidates creates one (random feature, its value)."""
    order = np.argsort(leaves, kind="stable")
    sorted_leaves = leaves[order]
    first = np.searchsorted(sorted_leaves, sorted_leaves, side="left")
    rank = np.empty(len(leaves), np.int64)
    rank[order] = np.arange(len(leaves)) - first
    slot = st["cand_n"][leaves] + rank
    new = np.nonzero(slot < num_splits)[0]
    if len(new) == 0:
        return
    feats = gen.integers(x.shape[1], size=len(new))
    st["cand_feature"][leaves[new], slot[new]] = feats
    st["cand_threshold"][leaves[new], slot[new]] = x[new, feats]
    np.maximum.at(st["cand_n"], leaves[new], (slot[new] + 1).astype(st["cand_n"].dtype))


def _best_split(left, total):
    """Index of the candidate with least weighted Gini impurity (None when none splits the data)."""
    right = total - left
    n_l, n_r = left.sum(1), right.sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = (n_l - (left * left).sum(1) / n_l) + (n_r - (right * right).sum(1) / n_r)
    score[(n_l <= 0) | (n_r <= 0)] = np.inf
    best = int(np.argmin(score))
    return None if not np.isfinite(score[best]) else best


def _grow(tree, st, leaf, best):
    """Split leaf on candidate best: two new leaves start from the candidate's side counts."""
    size = int(tree["size"])
    left = st["cand_left"][leaf, best]
    tree["feature"][leaf] = st["cand_feature"][leaf, best]
    tree["threshold"][leaf] = st["cand_threshold"][leaf, best]
    tree["left"][leaf] = size
    tree["counts"][size] = left
    tree["counts"][size + 1] = st["cand_total"][leaf, best] - left
    tree["size"][...] = size + 2


def _clear(st, leaf):
    for key in ("cand_left", "cand_total", "cand_feature", "cand_threshold"):
        st[key][leaf] = 0
    st["cand_n"][leaf] = 0
    st["seen"][leaf] = 0


def _train_make(op, ctx):
    store, gen = ctx.variables, ctx.rng(op)
    names = [t.op.name for t in op._inputs[2:]]
    tree_names = dict(zip(TREE_FIELDS, names[:len(TREE_FIELDS)]))
    stats_names = dict(zip(STATS_FIELDS, names[len(TREE_FIELDS):]))
    split_after = float(op._attrs["split_after_samples"])

    def run(x, labels):
        x, labels = np.asarray(x), np.asarray(labels).astype(np.int64).reshape(-1)
        tree, st = _writable(store, tree_names), _writable(store, stats_names)
        try:
            num_classes, max_nodes = tree["counts"].shape[1], tree["counts"].shape[0]
            if len(labels) != len(x):
                raise errors.InvalidArgumentError(None, op, "tree training got %d labels for %d examples"
                                                  % (len(labels), len(x)))
            bad = np.nonzero((labels < 0) | (labels >= num_classes))[0]
            if len(bad):
                raise errors.InvalidArgumentError(None, op, "label %d of example %d is not a class id in [0, %d)"
                                                  % (labels[bad[0]], bad[0], num_classes))
            leaves = traverse(tree, x)
            np.add.at(tree["counts"], (leaves, labels), 1)
            if int(tree["size"]) + 2 > max_nodes:
                return np.zeros([0], np.int32)          # the tree is full: only leaf counts still learn
            num_splits = st["cand_feature"].shape[1]
            _seed_candidates(st, leaves, x, gen, num_splits)
            np.add.at(st["seen"], leaves, 1)
            slots = np.arange(num_splits)[None, :]
            valid = slots < st["cand_n"][leaves][:, None]
            values = np.take_along_axis(x, st["cand_feature"][leaves].astype(np.int64), axis=1)
            goes_left = (values <= st["cand_threshold"][leaves]) & valid
            rows, cols = np.nonzero(valid)
            np.add.at(st["cand_total"], (leaves[rows], cols, labels[rows]), 1)
            rows, cols = np.nonzero(goes_left)
            np.add.at(st["cand_left"], (leaves[rows], cols, labels[rows]), 1)
            ready = np.unique(leaves[(st["seen"][leaves] >= split_after) & (st["cand_n"][leaves] >= num_splits)])
            grown = []
            for leaf in ready:
                if int(tree["size"]) + 2 > max_nodes:
                    break
                best = _best_split(st["cand_left"][leaf], st["cand_total"][leaf])
                if best is not None:
                    _grow(tree, st, leaf, best)
                    grown.append(leaf)
                _clear(st, leaf)
            return np.asarray(grown, np.int32)
        finally:
            _freeze(tree)
            _freeze(st)
    return run


_N_STATE = len(TREE_FIELDS) + len(STATS_FIELDS)
register_op("TensorForestTrainTree", make=_train_make, handle_inputs=tuple(range(2, 2 + _N_STATE)),
            not_differentiable=True, stateful=True, shape=lambda op: [TensorShape([None])])


def train_tree(x, labels, tree_vars, stats_vars, split_after_samples, seed, name=None):
    """One training step of one tree on a batch; returns the ids of the leaves it split."""
    g = get_default_graph()
    with name_scope(name, "TensorForestTrainTree", [x, labels]) as scope:
        xs = convert_to_tensor(x, dtype=_dt.float32, name="input_data")
        ys = convert_to_tensor(labels, name="input_labels")
        refs = [_ref_of(tree_vars[k]) for k in TREE_FIELDS] + [_ref_of(stats_vars[k]) for k in STATS_FIELDS]
        attrs = {"split_after_samples": int(split_after_samples), "seed": int(seed), "seed2": int(seed) and 1}
        op = g._create_op("TensorForestTrainTree", [xs, ys] + refs, [_dt.int32], attrs, scope)
    return op._outputs[0]


def _predict_make(op, ctx):
    store = ctx.variables
    names = dict(zip(TREE_FIELDS, [t.op.name for t in op._inputs[1:]]))

    def run(x):
        tree = {k: store[n] for k, n in names.items()}
        leaves = traverse(tree, np.asarray(x))
        counts = tree["counts"][leaves].astype(np.float32)
        # Laplace smoothing: an empty leaf predicts the uniform distribution.
        probs = (counts + 1.0) / (counts.sum(1, keepdims=True) + counts.shape[1])
        return probs, leaves.astype(np.int32)
    return run


def _predict_shape(op):
    rows = op._inputs[0].shape[:1]
    return [rows.concatenate(op._inputs[1 + TREE_FIELDS.index("counts")].shape[1:]), rows]


register_op("TensorForestTreePredict", make=_predict_make, handle_inputs=tuple(range(1, 1 + len(TREE_FIELDS))),
            not_differentiable=True, shape=_predict_shape)


def tree_predictions(x, tree_vars, name=None):
    """(class probabilities [n, num_classes], leaf id [n]) of one tree."""
    g = get_default_graph()
    with name_scope(name, "TensorForestTreePredict", [x]) as scope:
        xs = convert_to_tensor(x, dtype=_dt.float32, name="input_data")
        refs = [_ref_of(tree_vars[k]) for k in TREE_FIELDS]
        op = g._create_op("TensorForestTreePredict", [xs] + refs, [_dt.float32, _dt.int32], {}, scope)
    return op._outputs[0], op._outputs[1]
