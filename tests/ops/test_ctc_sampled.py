"""CTC losses and decoders and the sampled losses against TensorFlow's outputs (recorded by
fixtures/record_cases_tf.py nn); the candidate samplers by their distributions; CTC's gradient by central
differences."""
import pathlib
import sys

import numpy as np
import pytest

import lens as tf

FIX = pathlib.Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIX))
from nn_cases import CASES, LAB_IDX, LAB_VAL, LOGITS, SEQ  # noqa: E402

RECORDED = np.load(FIX / "nn_tf.npz")


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_tensorflow(name):
    out = CASES[name](tf)
    with tf.Session() as sess:
        got = sess.run(out)
    exp = RECORDED[name]
    assert got.shape == exp.shape, (got.shape, exp.shape)
    if exp.dtype.kind == "f":
        np.testing.assert_allclose(got, exp, rtol=1e-4, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, exp)


def test_ctc_loss_gradient_matches_central_differences():
    x0 = LOGITS[:5, :2].astype(np.float64)
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float64, x0.shape)
        labels = tf.SparseTensor(LAB_IDX[:5], LAB_VAL[:5], [2, 4])
        loss = tf.reduce_sum(tf.nn.ctc_loss(labels, x, [5, 4]) * [1.0, 0.7])
        grad = tf.gradients(loss, x)[0]
        with tf.Session(graph=g) as sess:
            got = sess.run(grad, {x: x0})
            num = np.zeros_like(x0)
            for k in np.ndindex(*x0.shape):
                p, m = x0.copy(), x0.copy()
                p[k] += 1e-6
                m[k] -= 1e-6
                num[k] = (sess.run(loss, {x: p}) - sess.run(loss, {x: m})) / 2e-6
    np.testing.assert_allclose(got, num, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("sampler,kw", [
    ("uniform_candidate_sampler", {"range_max": 10}),
    ("log_uniform_candidate_sampler", {"range_max": 10}),
    ("fixed_unigram_candidate_sampler", {"range_max": 10, "unigrams": [1, 2, 3, 4, 5, 5, 4, 3, 2, 1]}),
    ("learned_unigram_candidate_sampler", {"range_max": 10}),
])
@pytest.mark.parametrize("unique", [True, False])
def test_candidate_samplers_draw_from_their_distribution(sampler, kw, unique):
    true = np.array([[1], [4]], np.int64)
    s, te, se = getattr(tf.nn, sampler)(true, 1, 4, unique, seed=3, **kw)
    counts = np.zeros(10)
    with tf.Session() as sess:
        for _ in range(300):
            got_s, got_te, got_se = sess.run([s, te, se])
            assert got_s.dtype == np.int64 and got_s.shape == (4,) and ((0 <= got_s) & (got_s < 10)).all()
            if unique:
                assert len(set(got_s)) == 4
            np.add.at(counts, got_s, 1)
    if sampler == "uniform_candidate_sampler":
        p = np.full(10, 0.1)
    elif sampler == "log_uniform_candidate_sampler":
        p = (np.log(np.arange(10) + 2) - np.log(np.arange(10) + 1)) / np.log(11)
    elif sampler == "fixed_unigram_candidate_sampler":
        p = np.array(kw["unigrams"], float) / sum(kw["unigrams"])
    else:
        return   # the learned distribution moves with every batch; its ranges are checked above
    if not unique:
        np.testing.assert_allclose(got_se, 4 * p[got_s], rtol=1e-5)
        np.testing.assert_allclose(got_te[:, 0], 4 * p[true[:, 0]], rtol=1e-5)
        assert np.abs(counts / counts.sum() - p).max() < 0.05
    else:
        assert ((0 < got_se) & (got_se <= 1)).all()


def test_all_candidate_sampler_and_errors():
    s, te, se = tf.nn.all_candidate_sampler([[1, 2]], 2, 3, True)
    with tf.Session() as sess:
        got = sess.run([s, te, se])
        with pytest.raises(tf.errors.InvalidArgumentError, match="Not enough time"):
            sess.run(tf.nn.ctc_loss(tf.SparseTensor(LAB_IDX, LAB_VAL, [3, 4]), LOGITS, [7, 5, 3]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="range is too small"):
            sess.run(tf.nn.uniform_candidate_sampler([[1]], 1, 5, True, 3)[0])
    np.testing.assert_array_equal(got[0], [0, 1, 2])
    np.testing.assert_array_equal(got[1], [[1, 1]])
    with pytest.raises(TypeError, match="SparseTensor"):
        tf.nn.ctc_loss(np.zeros((3, 4)), LOGITS, SEQ)
    with pytest.raises(ValueError, match="blank_index"):
        tf.nn.ctc_loss_v2(tf.SparseTensor(LAB_IDX, LAB_VAL, [3, 4]), LOGITS, None, SEQ)
