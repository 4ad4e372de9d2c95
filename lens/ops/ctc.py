"""Connectionist temporal classification: CTCLoss (log-space forward-backward, the gradient with respect
to the logits as its second output), CTCGreedyDecoder, CTCBeamSearchDecoder (prefix beam search), and
TF's ctc_loss / ctc_loss_v2 / decoders, collapse_repeated and ctc_unique_labels."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.sparse_tensor import SparseTensor
from lens.framework.tensor_shape import TensorShape
from lens.ops import array as A
from lens.ops import math as M

_NEG = -np.inf


def _lse(*xs):
    m = max(xs)
    return m if m == _NEG else m + np.log(sum(np.exp(x - m) for x in xs))


def _log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


# ---- CTCLoss ----------------------------------------------------------------------------------
def _labels_by_batch(op, indices, values, batch):
    rows = [[] for _ in range(batch)]
    indices = np.asarray(indices, np.int64).reshape(-1, 2)
    for (b, t), v in zip(indices, np.ravel(values)):
        if not 0 <= b < batch:
            raise errors.InvalidArgumentError(None, op, "labels batch index %d out of range [0, %d)" % (b, batch))
        rows[b].append((t, int(v)))
    return [[v for _, v in sorted(r)] for r in rows]


def _one_sequence(logp, labels, blank, merge):
    """(-log p(labels | logp), d loss / d logits) by forward-backward over the blank-extended labels."""
    T, C = logp.shape
    ext = [blank]
    for lab in labels:
        ext += [lab, blank]
    S = len(ext)
    alpha = np.full((T, S), _NEG)
    beta = np.full((T, S), _NEG)
    alpha[0, 0] = logp[0, blank]
    if S > 1:
        alpha[0, 1] = logp[0, ext[1]]

    def allowed_skip(u):
        return u > 1 and ext[u] != blank and not (merge and ext[u] == ext[u - 2])
    for t in range(1, T):
        for u in range(S):
            terms = [alpha[t - 1, u]] if (merge or ext[u] == blank) else []
            if u > 0:
                terms.append(alpha[t - 1, u - 1])
            if allowed_skip(u):
                terms.append(alpha[t - 1, u - 2])
            s = _lse(*terms) if terms else _NEG
            alpha[t, u] = s + logp[t, ext[u]] if s != _NEG else _NEG
    beta[T - 1, S - 1] = logp[T - 1, ext[S - 1]]
    if S > 1:
        beta[T - 1, S - 2] = logp[T - 1, ext[S - 2]]
    for t in range(T - 2, -1, -1):
        for u in range(S):
            terms = [beta[t + 1, u]] if (merge or ext[u] == blank) else []
            if u < S - 1:
                terms.append(beta[t + 1, u + 1])
            if u + 2 < S and allowed_skip(u + 2):
                terms.append(beta[t + 1, u + 2])
            s = _lse(*terms) if terms else _NEG
            beta[t, u] = s + logp[t, ext[u]] if s != _NEG else _NEG
    log_p = _lse(alpha[T - 1, S - 1], alpha[T - 1, S - 2]) if S > 1 else alpha[T - 1, 0]
    grad = np.exp(logp)
    if log_p == _NEG:
        return np.inf, grad
    occupancy = np.full((T, C), _NEG)
    ab = alpha + beta
    for u in range(S):
        col = ext[u]
        occupancy[:, col] = np.logaddexp(occupancy[:, col], ab[:, u])
    with np.errstate(invalid="ignore"):
        grad = grad - np.exp(occupancy - log_p - logp)
    return -log_p, np.nan_to_num(grad)


def _collapse(seq):
    out = []
    for v in seq:
        if not out or out[-1] != v:
            out.append(v)
    return out


def _ctc_loss_make(op, ctx):
    a = op._attrs

    def run(logits, indices, values, seq_len):
        x = np.asarray(logits)
        if x.ndim != 3:
            raise errors.InvalidArgumentError(None, op, "inputs is not a 3-Tensor: shape %s" % list(x.shape))
        T, B, C = x.shape
        seq_len = np.asarray(seq_len, np.int64).ravel()
        if seq_len.shape != (B,):
            raise errors.InvalidArgumentError(None, op, "len(sequence_length) != batch_size. len(sequence_length): "
                                              " %d batch_size: %d" % (len(seq_len), B))
        if (seq_len > T).any():
            raise errors.InvalidArgumentError(None, op, "sequence_length(%d) <= %d" % (int(np.argmax(seq_len > T)), T))
        labels = _labels_by_batch(op, indices, values, B)
        loss = np.zeros(B, x.dtype)
        grad = np.zeros_like(x)
        blank = C - 1
        for b in range(B):
            lab = _collapse(labels[b]) if a["preprocess_collapse_repeated"] else labels[b]
            if any(not 0 <= v < blank for v in lab):
                raise errors.InvalidArgumentError(None, op, "Labels must be in [0, num_classes - 1 = %d) (the last "
                                                  "class is the blank); batch %d has %s" % (blank, b, lab))
            need = len(lab) + sum(1 for i in range(1, len(lab)) if lab[i] == lab[i - 1] and a["ctc_merge_repeated"])
            n = int(seq_len[b])
            if need > n:
                if a["ignore_longer_outputs_than_inputs"]:
                    continue
                raise errors.InvalidArgumentError(None, op, "Not enough time for target transition sequence (required: "
                                                  "%d, available: %d)%d You can turn this error into a warning by "
                                                  "using the flag ignore_longer_outputs_than_inputs" % (need, n, b))
            if n == 0:
                continue
            lp = _log_softmax(x[:n, b].astype(np.float64))
            loss[b], g = _one_sequence(lp, lab, blank, a["ctc_merge_repeated"])
            grad[:n, b] = g
        return [loss, grad]
    return run


def _ctc_loss_grad(op, grad_loss, _):
    # the op's second output is d loss / d logits; scale it by each example's incoming gradient
    return [M.multiply(A.expand_dims(grad_loss, -1), op._outputs[1]), None, None, None]


def _ctc_loss_shape(op):
    s = op._inputs[0].shape
    dims = s.as_list() if s.ndims == 3 else [None] * 3
    return [TensorShape([dims[1]]), TensorShape(dims)]


register_op("CTCLoss", make=_ctc_loss_make, shape=_ctc_loss_shape, grad=_ctc_loss_grad)


# ---- decoders ---------------------------------------------------------------------------------
def _sparse_out(paths, batch):
    idx, vals = [], []
    for b, p in enumerate(paths):
        for t, v in enumerate(p):
            idx.append((b, t))
            vals.append(v)
    width = max([len(p) for p in paths] + [0])
    return (np.array(idx, np.int64).reshape(-1, 2), np.array(vals, np.int64), np.array([batch, width], np.int64))


def _check_decoder(op, x, seq_len):
    x = np.asarray(x)
    if x.ndim != 3:
        raise errors.InvalidArgumentError(None, op, "inputs is not a 3-Tensor: shape %s" % list(x.shape))
    seq_len = np.asarray(seq_len, np.int64).ravel()
    if seq_len.shape != (x.shape[1],) or (seq_len > x.shape[0]).any():
        raise errors.InvalidArgumentError(None, op, "sequence_length must be [batch] with values <= max_time %d, "
                                          "got %s" % (x.shape[0], seq_len.tolist()))
    return x, seq_len


def _greedy_make(op, ctx):
    merge = op._attrs["merge_repeated"]
    blank_attr = op._attrs.get("blank_index", -1)

    def run(logits, seq_len):
        x, seq_len = _check_decoder(op, logits, seq_len)
        T, B, C = x.shape
        blank = C - 1 if blank_attr < 0 else blank_attr
        paths, score = [], np.zeros((B, 1), x.dtype)
        for b in range(B):
            best = x[:seq_len[b], b].argmax(-1)
            score[b, 0] = -x[np.arange(seq_len[b]), b, best].sum()
            path, prev = [], None
            for c in best:
                if c != blank and not (merge and c == prev):
                    path.append(int(c))
                prev = c
            paths.append(path)
        return list(_sparse_out(paths, B)) + [score]
    return run


def _beam_search(logp, beam_width, top_paths):
    """CTC prefix beam search on [T, C] log-probabilities (blank = C - 1): [(labels, log prob)] best first."""
    T, C = logp.shape
    blank = C - 1
    beams = {(): (0.0, _NEG)}   # prefix -> (log p ending in blank, log p ending in a label)
    for t in range(T):
        nxt = {}

        def add(prefix, pb, pnb):
            ob, onb = nxt.get(prefix, (_NEG, _NEG))
            nxt[prefix] = (np.logaddexp(ob, pb), np.logaddexp(onb, pnb))
        for prefix, (pb, pnb) in beams.items():
            total = np.logaddexp(pb, pnb)
            add(prefix, total + logp[t, blank], _NEG)
            for c in range(C - 1):
                p = logp[t, c]
                if prefix and prefix[-1] == c:
                    add(prefix, _NEG, pnb + p)            # repeat collapses into the same label
                    add(prefix + (c,), _NEG, pb + p)      # a new label after a blank
                else:
                    add(prefix + (c,), _NEG, total + p)
        ranked = sorted(nxt.items(), key=lambda kv: -np.logaddexp(*kv[1]))
        beams = dict(ranked[:beam_width])
    ranked = sorted(beams.items(), key=lambda kv: -np.logaddexp(*kv[1]))[:top_paths]
    return [(list(p), float(np.logaddexp(*v))) for p, v in ranked]


def _beam_make(op, ctx):
    a = op._attrs
    k = a["top_paths"]

    def run(logits, seq_len):
        x, seq_len = _check_decoder(op, logits, seq_len)
        T, B, C = x.shape
        if k > a["beam_width"]:
            raise errors.InvalidArgumentError(None, op, "top_paths %d > beam_width %d" % (k, a["beam_width"]))
        per_path = [[] for _ in range(k)]
        logprob = np.full((B, k), -np.inf, np.float32)
        for b in range(B):
            found = _beam_search(_log_softmax(x[:seq_len[b], b].astype(np.float64)), a["beam_width"], k)
            for i in range(k):
                labels, lp = found[i] if i < len(found) else ([], -np.inf)
                per_path[i].append(_collapse(labels) if a["merge_repeated"] else labels)
                logprob[b, i] = lp
        outs = [_sparse_out(p, B) for p in per_path]
        return [o[0] for o in outs] + [o[1] for o in outs] + [o[2] for o in outs] + [logprob.astype(x.dtype)]
    return run


register_op("CTCGreedyDecoder", make=_greedy_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None, 2]), TensorShape([None]), TensorShape([2]),
                              TensorShape([op._inputs[0].shape.as_list()[1] if op._inputs[0].shape.ndims == 3
                                           else None, 1])])
register_op("CTCBeamSearchDecoder", make=_beam_make, not_differentiable=True,
            shape=lambda op: [TensorShape([None, 2])] * op._attrs["top_paths"] + [TensorShape([None])] *
            op._attrs["top_paths"] + [TensorShape([2])] * op._attrs["top_paths"] +
            [TensorShape([None, op._attrs["top_paths"]])])


# ---- wrappers ---------------------------------------------------------------------------------
def _time_major(x, time_major):
    return x if time_major else A.transpose(x, [1, 0, 2])


def ctc_loss(labels, inputs=None, sequence_length=None, preprocess_collapse_repeated=False, ctc_merge_repeated=True,
             ignore_longer_outputs_than_inputs=False, time_major=True, logits=None):
    """TF1's CTC loss per example: SparseTensor labels in [0, num_classes - 1), the last class the blank."""
    inputs = logits if inputs is None else inputs
    if not isinstance(labels, SparseTensor):
        raise TypeError("Expected labels (first argument) to be a SparseTensor")
    with name_scope(None, "CTCLoss", [inputs, sequence_length]) as scope:
        x = _time_major(convert_to_tensor(inputs, name="inputs"), time_major)
        attrs = {"preprocess_collapse_repeated": bool(preprocess_collapse_repeated),
                 "ctc_merge_repeated": bool(ctc_merge_repeated),
                 "ignore_longer_outputs_than_inputs": bool(ignore_longer_outputs_than_inputs),
                 "T": x.dtype.base_dtype}
        ins = [(x, "inputs"), (M.cast(labels.indices, _dt.int64), "labels_indices"),
               (M.cast(labels.values, _dt.int32), "labels_values"),
               (convert_to_tensor(sequence_length, dtype=_dt.int32, name="sequence_length"), "sequence_length")]
        loss, _ = apply_op("CTCLoss", ins, attrs, name=scope, dtypes=[x.dtype.base_dtype] * 2, same_dtype=False)
        return loss


def _dense_to_sparse(labels, label_length):
    from lens.ops.indexing import gather_nd
    from lens.ops.logic import where
    from lens.ops.indexing import sequence_mask
    labels = convert_to_tensor(labels, name="labels")
    mask = sequence_mask(label_length, maxlen=A.shape(labels)[1])
    idx = where(mask)
    return SparseTensor(idx, gather_nd(labels, idx), M.cast(A.shape(labels), _dt.int64))


def ctc_loss_v2(labels, logits, label_length, logit_length, logits_time_major=True, unique=None, blank_index=None,
                name=None):
    """TF2's CTC loss: dense [batch, max_label] labels with label_length (blank_index 0 by default) or a
    SparseTensor (blank_index required); unique is an optional speed-up and does not change the result."""
    from lens.ops.logic import less, where
    from lens.ops.slicing import slice as _slice
    with name_scope(name, "ctc_loss_dense" if not isinstance(labels, SparseTensor) else "ctc_loss"):
        x = convert_to_tensor(logits, name="logits")
        if isinstance(labels, SparseTensor):
            if blank_index is None:
                raise ValueError("blank_index must be given when using SparseTensor labels.")
            sparse = labels
        else:
            if label_length is None:
                raise ValueError("label_length must be given for dense labels")
            blank_index = 0 if blank_index is None else blank_index
            sparse = _dense_to_sparse(labels, label_length)
        num_classes = x.shape.as_list()[2]
        if num_classes is None:
            raise ValueError("ctc_loss_v2 needs the static number of classes (logits' last dim)")
        if blank_index < 0:
            blank_index += num_classes
        vals = sparse.values
        if blank_index != num_classes - 1:   # move the blank to the end, as the CTCLoss op expects
            x = A.concat([_slice(x, [0, 0, 0], [-1, -1, blank_index]),
                          _slice(x, [0, 0, blank_index + 1], [-1, -1, -1]),
                          _slice(x, [0, 0, blank_index], [-1, -1, 1])], 2)
            vals = where(less(vals, M.cast(blank_index, vals.dtype)), vals, M.subtract(vals, M.cast(1, vals.dtype)))
        sparse = SparseTensor(sparse.indices, vals, sparse.dense_shape)
        return ctc_loss(sparse, x, logit_length, ctc_merge_repeated=True, time_major=logits_time_major)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True, blank_index=None):
    """([SparseTensor of best-path labels], -sum of the best logits [batch, 1]) (blank: the last class)."""
    with name_scope(None, "CTCGreedyDecoder", [inputs, sequence_length]) as scope:
        x = convert_to_tensor(inputs, name="inputs")
        attrs = {"merge_repeated": bool(merge_repeated), "T": x.dtype.base_dtype,
                 "blank_index": -1 if blank_index is None else int(blank_index)}
        ix, vals, shape, lp = apply_op("CTCGreedyDecoder", [(x, "inputs"), (convert_to_tensor(
            sequence_length, dtype=_dt.int32), "sequence_length")], attrs, name=scope,
            dtypes=[_dt.int64, _dt.int64, _dt.int64, x.dtype.base_dtype], same_dtype=False)
        return [SparseTensor(ix, vals, shape)], lp


def ctc_beam_search_decoder(inputs, sequence_length, beam_width=100, top_paths=1, merge_repeated=True):
    """(top_paths SparseTensors of labels, their log probabilities [batch, top_paths]) by prefix beam search."""
    if top_paths < 1 or beam_width < 1:
        raise ValueError("top_paths and beam_width must be positive, got %d and %d" % (top_paths, beam_width))
    with name_scope(None, "CTCBeamSearchDecoder", [inputs, sequence_length]) as scope:
        x = convert_to_tensor(inputs, name="inputs")
        attrs = {"beam_width": int(beam_width), "top_paths": int(top_paths), "merge_repeated": bool(merge_repeated),
                 "T": x.dtype.base_dtype}
        outs = apply_op("CTCBeamSearchDecoder", [(x, "inputs"), (convert_to_tensor(
            sequence_length, dtype=_dt.int32), "sequence_length")], attrs, name=scope,
            dtypes=[_dt.int64] * (3 * top_paths) + [x.dtype.base_dtype], same_dtype=False)
        k = top_paths
        decoded = [SparseTensor(outs[i], outs[k + i], outs[2 * k + i]) for i in range(k)]
        return decoded, outs[-1]


def ctc_beam_search_decoder_v2(inputs, sequence_length, beam_width=100, top_paths=1):
    """ctc_beam_search_decoder without merging repeated labels in the output (TF2's)."""
    return ctc_beam_search_decoder(inputs, sequence_length, beam_width, top_paths, merge_repeated=False)


def collapse_repeated(labels, seq_length, name=None):
    """(labels with consecutive repeats merged and left-aligned, new lengths) for dense [batch, max] labels."""
    from lens.ops.indexing import boolean_mask, scatter_nd
    from lens.ops.logic import logical_and, not_equal
    from lens.ops.reduce import reduce_max, reduce_sum
    from lens.ops.indexing import sequence_mask
    from lens.ops.sequence import range as _range
    with name_scope(name, "collapse_repeated_labels", [labels, seq_length]):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        first = A.fill(A.shape(labels[:, :1]), True)
        label_mask = A.concat([first, not_equal(labels[:, 1:], labels[:, :-1])], 1)
        label_mask = logical_and(label_mask, sequence_mask(seq_length, maxlen=A.shape(labels)[1]))
        new_len = reduce_sum(M.cast(label_mask, _dt.int32), axis=1)
        new_max = reduce_max(new_len)
        idx_mask = A.reshape(sequence_mask(new_len, maxlen=new_max), [-1])
        idx = _range(A.shape(idx_mask)[0])
        flat = scatter_nd(A.expand_dims(boolean_mask(idx, idx_mask), 1),
                          boolean_mask(A.reshape(labels, [-1]), A.reshape(label_mask, [-1])), A.shape(idx_mask))
        return A.reshape(flat, A.stack([A.shape(labels)[0], new_max])), M.cast(new_len, seq_length.dtype)


def ctc_unique_labels(labels, name=None):
    """Per row of dense labels: (its unique labels zero-padded to the row length as int64, each label's index)."""
    from lens.ops.control_flow_functional import map_fn
    from lens.ops.scan_ops import unique
    with name_scope(name, "ctc_unique_labels", [labels]):
        labels = convert_to_tensor(labels, name="labels")

        def one(row):
            y, idx = unique(row)
            y = A.pad(y, A.reshape(A.stack([0, M.subtract(A.shape(idx)[0], A.shape(y)[0])]), [1, 2]))
            return [M.cast(y, _dt.int64), idx]
        return tuple(map_fn(one, labels, dtype=[_dt.int64, _dt.int32]))
