"""Candidate samplers (uniform, log-uniform, learned and fixed unigram, all), ComputeAccidentalHits,
and the sampled losses built on them as TF builds them: nce_loss and sampled_softmax_loss."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.random import _seed_attrs


# ---- distributions ----------------------------------------------------------------------------
def _uniform_probs(range_max):
    return np.full(range_max, 1.0 / range_max)


def _log_uniform_probs(range_max):
    c = np.arange(range_max, dtype=np.float64)
    return (np.log(c + 2) - np.log(c + 1)) / np.log(range_max + 1)


def _vocab_counts(path):
    counts = []
    with open(path, "rb") as fh:
        for line in fh:
            line = line.strip()
            if line:
                counts.append(float(line.split(b",")[-1]))
    return counts


def _fixed_probs(a):
    if a["vocab_file"]:
        unigrams = _vocab_counts(a["vocab_file"])
    else:
        unigrams = list(a["unigrams"])
    w = [0.0] * a["num_reserved_ids"] + [float(u) ** a["distortion"] for u in unigrams]
    if len(w) != a["range_max"]:
        raise ValueError("fixed_unigram_candidate_sampler: range_max %d != num_reserved_ids + len(unigrams) = %d"
                         % (a["range_max"], len(w)))
    w = np.array(w)
    ids = np.arange(len(w))
    w[ids % a["num_shards"] != a["shard"]] = 0.0
    return w / w.sum()


def _expected(p, num_sampled, tries, unique):
    """TF's expected counts: 1 - (1 - p)^tries for unique sampling, num_sampled * p otherwise."""
    if unique:
        return -np.expm1(tries * np.log1p(-np.minimum(p, 1 - 1e-12)))
    return num_sampled * p


def _draw(gen, probs, num_sampled, unique, op):
    if unique and num_sampled > np.count_nonzero(probs):
        raise errors.InvalidArgumentError(None, op, "Sampler's range is too small: %d unique samples from %d "
                                          "candidates" % (num_sampled, np.count_nonzero(probs)))
    if not unique:
        return gen.choice(len(probs), size=num_sampled, p=probs), num_sampled
    seen, out, tries = set(), [], 0
    while len(out) < num_sampled:
        c = int(gen.choice(len(probs), p=probs))
        tries += 1
        if c not in seen:
            seen.add(c)
            out.append(c)
    return np.array(out), tries


def _sampler_make(kind):
    def make(op, ctx):
        gen = ctx.rng(op)
        a = op._attrs
        state = {}

        def run(true_classes):
            tc = np.asarray(true_classes, np.int64)
            if tc.ndim != 2 or tc.shape[1] != a["num_true"]:
                raise errors.InvalidArgumentError(None, op, "true_classes must be a matrix [batch, num_true=%d], got "
                                                  "shape %s" % (a["num_true"], list(tc.shape)))
            n, unique = a["num_sampled"], a["unique"]
            if kind == "all":
                sampled = np.arange(n, dtype=np.int64)
                return [sampled, np.ones(tc.shape, np.float32), np.ones(n, np.float32)]
            r = a["range_max"]
            if kind == "uniform":
                p = _uniform_probs(r)
            elif kind == "log_uniform":
                p = _log_uniform_probs(r)
            elif kind == "fixed":
                p = state.setdefault("p", _fixed_probs(a))
            else:   # learned: counts start at one each and grow with the true classes seen
                counts = state.setdefault("counts", np.ones(r))
                p = counts / counts.sum()
            if ((tc < 0) | (tc >= r)).any():
                raise errors.InvalidArgumentError(None, op, "true_classes must be in [0, range_max=%d)" % r)
            sampled, tries = _draw(gen, p, n, unique, op)
            out = [sampled.astype(np.int64), _expected(p[tc], n, tries, unique).astype(np.float32),
                   _expected(p[sampled], n, tries, unique).astype(np.float32)]
            if kind == "learned":
                np.add.at(state["counts"], tc.ravel(), 1.0)
            return out
        return run
    return make


def _sampler_shape(op):
    n = op._attrs["num_sampled"]
    tc = op._inputs[0].shape
    batch = tc.as_list()[0] if tc.ndims == 2 else None
    return [TensorShape([n]), TensorShape([batch, op._attrs["num_true"]]), TensorShape([n])]


for _op, _kind in (("UniformCandidateSampler", "uniform"), ("LogUniformCandidateSampler", "log_uniform"),
                   ("LearnedUnigramCandidateSampler", "learned"), ("FixedUnigramCandidateSampler", "fixed"),
                   ("AllCandidateSampler", "all")):
    register_op(_op, make=_sampler_make(_kind), shape=_sampler_shape, not_differentiable=True, stateful=True)


def _sampler(op_type, true_classes, attrs, seed, name):
    with name_scope(name, op_type, [true_classes]) as scope:
        tc = convert_to_tensor(true_classes, dtype=_dt.int64, name="true_classes")
        if attrs["num_sampled"] < 1 or attrs["num_true"] < 1:
            raise ValueError("num_sampled and num_true must be positive, got %d and %d"
                             % (attrs["num_sampled"], attrs["num_true"]))
        attrs = dict(attrs, **_seed_attrs(seed))
        return tuple(apply_op(op_type, [(tc, "true_classes")], attrs, name=scope,
                              dtypes=[_dt.int64, _dt.float32, _dt.float32], same_dtype=False))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """(sampled_candidates, true_expected_count, sampled_expected_count) drawn uniformly from [0, range_max)."""
    return _sampler("UniformCandidateSampler", true_classes, {"num_true": num_true, "num_sampled": num_sampled,
                                                              "unique": bool(unique), "range_max": range_max},
                    seed, name)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Candidates from the Zipfian P(c) = log((c + 2) / (c + 1)) / log(range_max + 1)."""
    return _sampler("LogUniformCandidateSampler", true_classes, {"num_true": num_true, "num_sampled": num_sampled,
                                                                 "unique": bool(unique), "range_max": range_max},
                    seed, name)


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None, name=None):
    """Candidates from the unigram distribution of the true classes this op has seen so far."""
    return _sampler("LearnedUnigramCandidateSampler", true_classes,
                    {"num_true": num_true, "num_sampled": num_sampled, "unique": bool(unique),
                     "range_max": range_max}, seed, name)


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, vocab_file="",
                                    distortion=1.0, num_reserved_ids=0, num_shards=1, shard=0, unigrams=(),
                                    seed=None, name=None):
    """Candidates from given unigram counts (or a vocab file's last CSV column) raised to distortion."""
    if not 0 <= shard < num_shards:
        raise ValueError("shard must be in [0, num_shards), got %d of %d" % (shard, num_shards))
    if bool(vocab_file) == bool(len(unigrams)):
        raise ValueError("fixed_unigram_candidate_sampler needs exactly one of vocab_file and unigrams")
    attrs = {"num_true": num_true, "num_sampled": num_sampled, "unique": bool(unique), "range_max": range_max,
             "vocab_file": vocab_file, "distortion": float(distortion), "num_reserved_ids": num_reserved_ids,
             "num_shards": num_shards, "shard": shard, "unigrams": [float(u) for u in unigrams]}
    return _sampler("FixedUnigramCandidateSampler", true_classes, attrs, seed, name)


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Candidates 0 .. num_sampled - 1 with expected counts of 1 (for testing)."""
    return _sampler("AllCandidateSampler", true_classes, {"num_true": num_true, "num_sampled": num_sampled,
                                                          "unique": bool(unique)}, seed, name)


# ---- accidental hits --------------------------------------------------------------------------
def _hits_make(op, ctx):
    def run(true_classes, sampled):
        tc, sampled = np.asarray(true_classes, np.int64), np.asarray(sampled, np.int64).ravel()
        if tc.ndim != 2 or tc.shape[1] != op._attrs["num_true"]:
            raise errors.InvalidArgumentError(None, op, "true_classes must be a matrix [batch, num_true=%d], got %s"
                                              % (op._attrs["num_true"], list(tc.shape)))
        rows, cols = [], []
        for i, row in enumerate(tc):
            for j, c in enumerate(sampled):
                if c in row:
                    rows.append(i)
                    cols.append(j)
        return [np.array(rows, np.int32), np.array(cols, np.int64),
                np.full(len(rows), -np.finfo(np.float32).max, np.float32)]
    return run


register_op("ComputeAccidentalHits", make=_hits_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None])] * 3)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """(row indices, positions in sampled_candidates, -FLT_MAX weights) where a sample is a true class."""
    with name_scope(name, "ComputeAccidentalHits", [true_classes, sampled_candidates]) as scope:
        tc = convert_to_tensor(true_classes, dtype=_dt.int64, name="true_classes")
        sc = convert_to_tensor(sampled_candidates, dtype=_dt.int64, name="sampled_candidates")
        attrs = dict({"num_true": num_true}, **_seed_attrs(seed))
        return tuple(apply_op("ComputeAccidentalHits", [(tc, "true_classes"), (sc, "sampled_candidates")], attrs,
                              name=scope, dtypes=[_dt.int32, _dt.int64, _dt.float32], same_dtype=False))


# ---- sampled losses ---------------------------------------------------------------------------
def _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true, sampled_values,
                            subtract_log_q, remove_accidental_hits, partition_strategy, name, seed=None):
    """(logits [batch, num_true + num_sampled], labels) of the true and sampled classes, as TF's helper."""
    from lens.ops.core import stop_gradient
    from lens.ops.linalg import matmul
    from lens.ops.nn_extra import embedding_lookup
    from lens.ops.reduce import reduce_sum
    from lens.ops.scatter_ops import sparse_to_dense
    from lens.ops.slicing import slice as _slice
    if not isinstance(weights, (list, tuple)):
        weights = [weights]
    with name_scope(name, "compute_sampled_logits", list(weights) + [biases, inputs, labels]):
        labels = M.cast(convert_to_tensor(labels, name="labels"), _dt.int64)
        inputs = convert_to_tensor(inputs, name="inputs")
        labels_flat = A.reshape(labels, [-1])
        if sampled_values is None:
            sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True, num_classes,
                                                           seed=seed)
        sampled, true_expected, sampled_expected = (stop_gradient(convert_to_tensor(s)) for s in sampled_values)
        sampled = M.cast(sampled, _dt.int64)
        all_ids = A.concat([labels_flat, sampled], 0)
        all_w = embedding_lookup(list(weights) if len(weights) > 1 else weights[0], all_ids,
                                 partition_strategy=partition_strategy)
        n_true = A.size(labels_flat)
        true_w = _slice(all_w, A.stack([0, 0]), A.stack([n_true, -1]))
        sampled_w = _slice(all_w, A.stack([n_true, 0]), [-1, -1])
        sampled_logits = matmul(inputs, sampled_w, transpose_b=True)
        all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
        true_b = _slice(all_b, [0], A.reshape(n_true, [1]))
        sampled_b = _slice(all_b, A.reshape(n_true, [1]), [-1])
        dim = A.shape(true_w)[1:2]
        row_dots = M.multiply(A.expand_dims(inputs, 1), A.reshape(true_w, A.concat([[-1, num_true], dim], 0)))
        dots = A.reshape(row_dots, A.concat([[-1], dim], 0))
        true_logits = A.reshape(reduce_sum(dots, 1), [-1, num_true])
        true_logits = M.add(true_logits, A.reshape(true_b, [-1, num_true]))
        sampled_logits = M.add(sampled_logits, sampled_b)
        if remove_accidental_hits:
            idx, ids, w = compute_accidental_hits(labels, sampled, num_true=num_true)
            sparse = A.concat([A.reshape(idx, [-1, 1]), A.reshape(M.cast(ids, _dt.int32), [-1, 1])], 1)
            shape = A.concat([A.shape(labels)[:1], A.expand_dims(num_sampled, 0)], 0)
            sampled_logits = M.add(sampled_logits, sparse_to_dense(sparse, shape, M.cast(w, sampled_logits.dtype),
                                                                   default_value=0.0, validate_indices=False))
        if subtract_log_q:
            true_logits = M.subtract(true_logits, M.log(M.cast(true_expected, true_logits.dtype)))
            sampled_logits = M.subtract(sampled_logits, M.log(M.cast(sampled_expected, sampled_logits.dtype)))
        out_logits = A.concat([true_logits, sampled_logits], 1)
        out_labels = A.concat([M.truediv(A.ones_like(true_logits), float(num_true)), A.zeros_like(sampled_logits)], 1)
        return out_logits, out_labels


def nce_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1, sampled_values=None,
             remove_accidental_hits=False, partition_strategy="mod", name="nce_loss"):
    """The noise-contrastive estimation loss per example: [batch_size]."""
    from lens.ops.nn import sigmoid_cross_entropy_with_logits
    from lens.ops.reduce import reduce_sum
    logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                             sampled_values, True, remove_accidental_hits, partition_strategy, name)
    xent = sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="sampled_losses")
    return reduce_sum(xent, 1)


def sampled_softmax_loss(weights, biases, labels, inputs, num_sampled, num_classes, num_true=1,
                         sampled_values=None, remove_accidental_hits=True, partition_strategy="mod",
                         name="sampled_softmax_loss", seed=None):
    """The softmax loss over the true and num_sampled sampled classes per example: [batch_size]."""
    from lens.ops.core import stop_gradient
    from lens.ops.nn import softmax_cross_entropy_with_logits_v2
    logits, labels = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled, num_classes, num_true,
                                             sampled_values, True, remove_accidental_hits, partition_strategy, name,
                                             seed=seed)
    return softmax_cross_entropy_with_logits_v2(labels=stop_gradient(labels), logits=logits, name="sampled_losses")
