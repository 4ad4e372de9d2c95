"""The random-tree kernels behind tf.contrib.tensor_forest (NumPy, one tree per op).

A tree lives in ordinary variables, so Saver checkpoints it and global_variables_initializer
starts it: per node its split `feature` (-1 on leaves), `threshold` (go left when x <= threshold),
`left` child (the right one is left + 1) and class `counts`; the tree's `size`. While a leaf is
fertile the session holds its stats (FertileStats; TF leaves them out of checkpoints by default):
up to num_splits_to_consider candidate splits (a random feature, the value of the example that
created it as threshold) with the class counts each has seen in total and on its left side. Once a leaf has seen split_after_samples examples and all its candidates
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

__all__ = ["TREE_FIELDS", "FertileStats", "train_tree", "tree_predictions"]

TREE_FIELDS = ("feature", "threshold", "left", "counts", "size")


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


class FertileStats:
    """The candidate splits of a tree's fertile leaves, held by the session (as TF's fertile-stats
    resource, which checkpoints leave out by default): one slot per leaf that has seen examples."""

    def __init__(self, max_nodes, num_splits, num_classes):
        self.slot_of = np.full(max_nodes, -1, np.int64)
        self.num_splits, self.num_classes = num_splits, num_classes
        self.free = []
        self._alloc(16)

    def _alloc(self, cap):
        s, c = self.num_splits, self.num_classes
        new = {"seen": np.zeros(cap), "cand_n": np.zeros(cap, np.int64),
               "cand_feature": np.zeros((cap, s), np.int64), "cand_threshold": np.zeros((cap, s), np.float32),
               "cand_left": np.zeros((cap, s, c)), "cand_total": np.zeros((cap, s, c))}
        old = getattr(self, "arrays", None)
        if old is not None:
            for key, arr in old.items():
                new[key][:len(arr)] = arr
            self.free.extend(range(len(old["seen"]), cap))
        else:
            self.free.extend(range(cap))
        self.arrays = new

    def slots(self, leaves):
        """The slot of each leaf in leaves, giving one to leaves that have none yet."""
        missing = np.unique(leaves[self.slot_of[leaves] < 0])
        while len(self.free) < len(missing):
            self._alloc(2 * len(self.arrays["seen"]))
        for leaf in missing:
            self.slot_of[leaf] = self.free.pop()
        return self.slot_of[leaves]

    def release(self, leaf):
        """Forget a leaf's candidates (it split, or must start over)."""
        slot = self.slot_of[leaf]
        for arr in self.arrays.values():
            arr[slot] = 0
        self.slot_of[leaf] = -1
        self.free.append(int(slot))


def _seed_candidates(st, slots, x, gen, num_splits):
    """Each example at a leaf still short of candidates creates one (random feature, its value)."""
    order = np.argsort(slots, kind="stable")
    sorted_slots = slots[order]
    first = np.searchsorted(sorted_slots, sorted_slots, side="left")
    rank = np.empty(len(slots), np.int64)
    rank[order] = np.arange(len(slots)) - first
    k = st["cand_n"][slots] + rank
    new = np.nonzero(k < num_splits)[0]
    if len(new) == 0:
        return
    feats = gen.integers(x.shape[1], size=len(new))
    st["cand_feature"][slots[new], k[new]] = feats
    st["cand_threshold"][slots[new], k[new]] = x[new, feats]
    np.maximum.at(st["cand_n"], slots[new], k[new] + 1)


def _best_split(left, total):
    """Index of the candidate with least weighted Gini impurity (None when none splits the data)."""
    right = total - left
    n_l, n_r = left.sum(1), right.sum(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = (n_l - (left * left).sum(1) / n_l) + (n_r - (right * right).sum(1) / n_r)
    score[(n_l <= 0) | (n_r <= 0)] = np.inf
    best = int(np.argmin(score))
    return None if not np.isfinite(score[best]) else best


def _grow(tree, st, leaf, slot, best):
    """Split leaf on candidate best: two new leaves start from the candidate's side counts."""
    size = int(tree["size"])
    left = st["cand_left"][slot, best]
    tree["feature"][leaf] = st["cand_feature"][slot, best]
    tree["threshold"][leaf] = st["cand_threshold"][slot, best]
    tree["left"][leaf] = size
    tree["counts"][size] = left
    tree["counts"][size + 1] = st["cand_total"][slot, best] - left
    tree["size"][...] = size + 2


def _train_make(op, ctx):
    store, gen = ctx.variables, ctx.rng(op)
    tree_names = dict(zip(TREE_FIELDS, [t.op.name for t in op._inputs[2:]]))
    split_after = float(op._attrs["split_after_samples"])
    # Keyed by the tree's own (graph-unique) variable: two forests in a graph keep apart.
    num_splits, key = op._attrs["num_splits_to_consider"], ("tensor_forest_stats", tree_names["feature"])

    def run(x, labels):
        x, labels = np.asarray(x), np.asarray(labels).astype(np.int64).reshape(-1)
        tree = _writable(store, tree_names)
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
                ctx.resources.pop(key, None)            # the tree is full: only leaf counts still learn
                return np.zeros([0], np.int32)
            stats = ctx.resources.get(key)
            if stats is None:
                stats = ctx.resources[key] = FertileStats(max_nodes, num_splits, num_classes)
            slots = stats.slots(leaves)
            st = stats.arrays
            _seed_candidates(st, slots, x, gen, num_splits)
            np.add.at(st["seen"], slots, 1)
            valid = np.arange(num_splits)[None, :] < st["cand_n"][slots][:, None]
            values = np.take_along_axis(x, st["cand_feature"][slots], axis=1)
            goes_left = (values <= st["cand_threshold"][slots]) & valid
            rows, cols = np.nonzero(valid)
            np.add.at(st["cand_total"], (slots[rows], cols, labels[rows]), 1)
            rows, cols = np.nonzero(goes_left)
            np.add.at(st["cand_left"], (slots[rows], cols, labels[rows]), 1)
            ready = np.unique(leaves[(st["seen"][slots] >= split_after) & (st["cand_n"][slots] >= num_splits)])
            grown = []
            for leaf in ready:
                if int(tree["size"]) + 2 > max_nodes:
                    break
                slot = stats.slot_of[leaf]
                best = _best_split(st["cand_left"][slot], st["cand_total"][slot])
                if best is not None:
                    _grow(tree, st, leaf, slot, best)
                    grown.append(leaf)
                stats.release(leaf)
            return np.asarray(grown, np.int32)
        finally:
            _freeze(tree)
    return run


register_op("TensorForestTrainTree", make=_train_make, handle_inputs=tuple(range(2, 2 + len(TREE_FIELDS))),
            not_differentiable=True, stateful=True, shape=lambda op: [TensorShape([None])])


def train_tree(x, labels, tree_vars, stats_name, split_after_samples, num_splits_to_consider, seed, name=None):
    """One training step of one tree on a batch; returns the ids of the leaves it split."""
    g = get_default_graph()
    with name_scope(name, "TensorForestTrainTree", [x, labels]) as scope:
        xs = convert_to_tensor(x, dtype=_dt.float32, name="input_data")
        ys = convert_to_tensor(labels, name="input_labels")
        refs = [_ref_of(tree_vars[k]) for k in TREE_FIELDS]
        attrs = {"split_after_samples": int(split_after_samples), "num_splits_to_consider": int(num_splits_to_consider),
                 "stats_name": str(stats_name), "seed": int(seed), "seed2": int(seed) and 1}
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
