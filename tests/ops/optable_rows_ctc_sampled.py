"""Op-table rows: CTC (loss and decoders against enumerating every alignment), ComputeAccidentalHits and
the candidate samplers (self-checking: ranges, uniqueness and expected counts)."""
import itertools

import numpy as np

import lens as tf
from lens.ops import ctc as C
from lens.ops import nn_sampled as S
from optable_lib import custom

_RNG = np.random.default_rng(9)
_X = _RNG.standard_normal((4, 2, 3))          # T=4, batch 2, classes 3 (blank = 2)
_LABELS = [[0, 1], [1]]


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _labelings(probs, merge=True):
    """{labeling: probability} summed over all alignments of a [T, C] distribution (blank = C - 1)."""
    T, C = probs.shape
    out = {}
    for path in itertools.product(range(C), repeat=T):
        lab, prev = [], None
        for c in path:
            if c != C - 1 and (not merge or c != prev):
                lab.append(c)
            prev = c
        p = np.prod([probs[t, c] for t, c in enumerate(path)])
        out[tuple(lab)] = out.get(tuple(lab), 0.0) + p
    return out


def _run(build):
    with tf.Graph().as_default(), tf.Session() as s:
        return s.run(build())


def _ctc_loss():
    idx = [[b, t] for b, lab in enumerate(_LABELS) for t in range(len(lab))]
    vals = [v for lab in _LABELS for v in lab]
    for merge in (True, False):
        got = _run(lambda: C.ctc_loss(tf.SparseTensor(idx, vals, [2, 2]), _X, [4, 3], ctc_merge_repeated=merge))
        for b, lab in enumerate(_LABELS):
            n = [4, 3][b]
            ref = _labelings(_softmax(_X[:n, b]), merge)
            np.testing.assert_allclose(got[b], -np.log(ref[tuple(lab)]), rtol=1e-10)


def _decoders():
    (dec,), lp = _run(lambda: C.ctc_greedy_decoder(_X, [4, 3]))
    (b0, b1), blp = _run(lambda: C.ctc_beam_search_decoder_v2(_X, [4, 3], beam_width=30, top_paths=2))
    for b in range(2):
        n = [4, 3][b]
        best = _X[:n, b].argmax(-1)
        path = [c for i, c in enumerate(best) if c != 2 and (i == 0 or c != best[i - 1])]
        np.testing.assert_array_equal(dec.values[dec.indices[:, 0] == b], path)
        np.testing.assert_allclose(lp[b, 0], -_X[np.arange(n), b, best].sum())
        ranked = sorted(_labelings(_softmax(_X[:n, b])).items(), key=lambda kv: -kv[1])
        for k, sp in enumerate((b0, b1)):
            np.testing.assert_array_equal(sp.values[sp.indices[:, 0] == b], ranked[k][0])
            np.testing.assert_allclose(blp[b, k], np.log(ranked[k][1]), rtol=1e-6)


def _hits():
    rows, ids, w = _run(lambda: S.compute_accidental_hits([[1, 4], [2, 2]], [4, 2, 7, 1], 2))
    np.testing.assert_array_equal(rows, [0, 0, 1])
    np.testing.assert_array_equal(ids, [0, 3, 1])
    assert (w == -np.finfo(np.float32).max).all()


def _samplers():
    true = np.array([[0], [3]])
    for fn, kw in ((S.uniform_candidate_sampler, {"range_max": 6}), (S.log_uniform_candidate_sampler, {"range_max": 6}),
                   (S.learned_unigram_candidate_sampler, {"range_max": 6}),
                   (S.fixed_unigram_candidate_sampler, {"range_max": 6, "unigrams": [1, 1, 2, 2, 3, 3]}),
                   (S.all_candidate_sampler, {})):
        s, te, se = _run(lambda: fn(true, 1, 4, True, seed=1, **kw))
        assert len(set(s.tolist())) == 4 and ((0 <= s) & (s < 6)).all() and te.shape == (2, 1) and se.shape == (4,)
        assert ((0 < se) & (se <= 1)).all() and ((0 < te) & (te <= 1)).all()


ROWS = [custom("CTCLoss", _ctc_loss), custom("CTCGreedyDecoder", _decoders), custom("CTCBeamSearchDecoder", _decoders),
        custom("ComputeAccidentalHits", _hits)] + \
    [custom(op, _samplers) for op in ("UniformCandidateSampler", "LogUniformCandidateSampler",
                                      "LearnedUnigramCandidateSampler", "FixedUnigramCandidateSampler",
                                      "AllCandidateSampler")]


def _edit_distance():
    import pathlib
    import sys
    from lens.ops.edit_distance import edit_distance
    fix = pathlib.Path(__file__).resolve().parent / "fixtures"
    sys.path.insert(0, str(fix))
    from edit_distance_cases import HYP, HYP_I, TRUTH, TRUTH_I
    rec = np.load(fix / "edit_distance_tf.npz")
    for key, (h, t) in {"str": (HYP, TRUTH), "int": (HYP_I, TRUTH_I)}.items():
        got = _run(lambda: [edit_distance(tf.SparseTensor(*h), tf.SparseTensor(*t)),
                            edit_distance(tf.SparseTensor(*h), tf.SparseTensor(*t), normalize=False)])
        np.testing.assert_array_equal(got[0], rec[key])
        np.testing.assert_array_equal(got[1], rec[key + "_raw"])


ROWS.append(custom("EditDistance", _edit_distance))
