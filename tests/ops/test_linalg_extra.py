"""Matrix ops beyond the op table: TF1 op names, static shapes, run-time shapes, errors, and
gradients of gradients."""
import numpy as np
import pytest

import lens as tf
from lens import errors
from lens.ops.linalg_extra import (cholesky, eye, matrix_band_part, matrix_determinant,
                                          matrix_diag, matrix_diag_part, matrix_inverse, matrix_set_diag,
                                          matrix_transpose, tensordot, trace)


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def _built(fn):
    """(name, type) of every op fn builds in a fresh graph with a [2,3,3] placeholder 'a'."""
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [2, 3, 3], name="a")
        fn(a)
    return [(o.name, o.type) for o in g.get_operations() if o.name != "a"]


def test_op_names_follow_tf1():
    assert _built(lambda a: eye(3)) == [("eye/ones", "Const"), ("eye/diag", "MatrixDiag")]
    assert _built(lambda a: eye(3, 4, batch_shape=[2])) == [
        ("eye/ones", "Const"), ("eye/zeros", "Const"), ("eye/set_diag", "MatrixSetDiag")]
    assert _built(matrix_transpose) == [("matrix_transpose/transpose/perm", "Const"),
                                        ("matrix_transpose/transpose", "Transpose")]
    assert _built(trace) == [("Trace/diag_part", "MatrixDiagPart"), ("Trace/reduction_indices", "Const"),
                             ("Trace", "Sum")]
    assert _built(lambda a: matrix_band_part(a, 1, 0)) == [
        ("MatrixBandPart/num_lower", "Const"), ("MatrixBandPart/num_upper", "Const"),
        ("MatrixBandPart", "MatrixBandPart")]
    assert _built(matrix_diag) == [("diag", "MatrixDiag")]
    assert _built(matrix_diag_part) == [("diag_part", "MatrixDiagPart")]
    assert _built(matrix_inverse) == [("MatrixInverse", "MatrixInverse")]
    assert _built(matrix_determinant) == [("MatrixDeterminant", "MatrixDeterminant")]
    assert _built(cholesky) == [("Cholesky", "Cholesky")]
    assert _built(lambda a: tensordot(a, np.ones((3, 4), np.float32), 1)) == [
        ("Tensordot/b", "Const"), ("Tensordot/Reshape/shape", "Const"), ("Tensordot/Reshape", "Reshape"),
        ("Tensordot/MatMul", "MatMul"), ("Tensordot/shape", "Const"), ("Tensordot", "Reshape")]


def test_static_shapes_and_dtypes():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [None, 3, 5])
        assert matrix_diag_part(x).shape.as_list() == [None, 3]
        assert matrix_diag(tf.placeholder(tf.float32, [2, None])).shape.as_list() == [2, None, None]
        assert matrix_determinant(tf.placeholder(tf.float32, [4, 2, 2])).shape.as_list() == [4]
        assert trace(x).dtype == tf.float64
        assert eye(2, dtype=tf.int32).dtype == tf.int32
        assert matrix_band_part(tf.placeholder(tf.int64, [2, 2]), 0, 0).dtype == tf.int64


def test_cholesky_reads_only_the_lower_triangle():
    spd = np.array([[4.0, 2.0], [2.0, 3.0]])
    junk_upper = spd + np.array([[0.0, 100.0], [0.0, 0.0]])
    with tf.Graph().as_default():
        got = _run(cholesky(junk_upper))
    np.testing.assert_allclose(got @ got.T, spd, rtol=1e-12)


def test_eye_with_tensor_sizes_runs_at_run_time():
    with tf.Graph().as_default():
        n = tf.placeholder(tf.int32, [])
        out = eye(n, 3, batch_shape=[2], dtype=tf.float64)
        got = _run(out, {n: 4})
    np.testing.assert_array_equal(got, np.broadcast_to(np.eye(4, 3), (2, 4, 3)))


def test_tensordot_with_sizes_known_only_at_run_time():
    rng = np.random.default_rng(3)
    av, bv = rng.normal(size=(5, 3, 4)), rng.normal(size=(4, 3, 2))
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float64, [None, 3, None])
        b = tf.placeholder(tf.float64, [None, 3, 2])
        out = tensordot(a, b, [[1, 2], [1, 0]])
        got = _run(out, {a: av, b: bv})
    np.testing.assert_allclose(got, np.einsum("ijk,kjl->il", av, bv), rtol=1e-12)


def test_matrix_transpose_of_unknown_rank():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        got = _run(matrix_transpose(x), {x: np.arange(24, dtype=np.float32).reshape(2, 3, 4)})
    assert got.shape == (2, 4, 3)
    assert got[1, 3, 2] == 1 * 12 + 2 * 4 + 3


def test_second_derivative_of_determinant():
    # d2 det / dA2 of a 2x2 matrix: d(det)/dA = [[d, -c], [-b, a]], whose sum's gradient is
    # [[1, -1], [-1, 1]] (each entry of A appears once in that sum, with these signs).
    with tf.Graph().as_default():
        a = tf.constant([[1.0, 2.0], [3.0, 5.0]], dtype=tf.float64)
        g = tf.gradients(matrix_determinant(a), a)[0]
        h = tf.gradients(tf.reduce_sum(g), a)[0]
        got_g, got_h = _run([g, h])
    np.testing.assert_allclose(got_g, [[5.0, -3.0], [-2.0, 1.0]], rtol=1e-12)
    np.testing.assert_allclose(got_h, [[1.0, -1.0], [-1.0, 1.0]], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("build,message", [
    (lambda: matrix_inverse(np.array([[1.0, 2.0], [2.0, 4.0]])), "Input is not invertible"),
    (lambda: cholesky(-np.eye(2)), "Cholesky decomposition was not successful"),
    (lambda: matrix_band_part(np.ones((3, 3)), 5, 0), "num_lower must be negative or less or equal to "
                                                      "number of rows (3) got: 5"),
    (lambda: matrix_band_part(np.ones((3, 2)), 0, 4), "number of columns (2) got: 4"),
])
def test_run_time_errors_are_tf1s(build, message):
    with tf.Graph().as_default():
        t = build()
        with pytest.raises(errors.InvalidArgumentError, match=message.replace("(", r"\(").replace(")", r"\)")):
            _run(t)


def test_run_time_shape_errors_name_the_shapes():
    with tf.Graph().as_default():
        x, d = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
        with pytest.raises(errors.InvalidArgumentError, match=r"diagonal must have shape \[3\].*got \[2\]"):
            _run(matrix_set_diag(x, d), {x: np.zeros((3, 4)), d: np.zeros(2)})
        with pytest.raises(errors.InvalidArgumentError, match=r"square matrices, got input of shape \[2, 3\]"):
            _run(matrix_inverse(x), {x: np.zeros((2, 3))})


@pytest.mark.parametrize("build,exc,message", [
    (lambda: matrix_inverse(np.zeros((2, 3))), ValueError, "Dimensions must be equal, but are 3 and 2"),
    (lambda: matrix_determinant(np.zeros(3)), ValueError, "at least rank 2 but is rank 1"),
    (lambda: matrix_diag(3.0), ValueError, "at least rank 1 but is rank 0"),
    (lambda: matrix_diag_part([3.0]), ValueError, "at least rank 2 but is rank 1"),
    (lambda: matrix_set_diag(np.zeros((3, 4)), np.zeros(2)), ValueError, "diagonal has shape"),
    (lambda: matrix_inverse(np.eye(2, dtype=np.int32)), TypeError, "int32 not in list of allowed values"),
    (lambda: matrix_transpose([1.0, 2.0]), ValueError, "rank >= 2"),
    (lambda: matrix_band_part(np.ones((2, 2)), 0.5, 0), TypeError, "num_lower must be an integer scalar"),
    (lambda: matrix_diag([1.0], k=1), ValueError, "only the main diagonal"),
    (lambda: tensordot(np.ones((2, 3)), np.ones((4, 5)), 1), ValueError, "must have the same size"),
    (lambda: tensordot(np.ones((2, 3)), np.ones((3, 5)), 3), ValueError, "not larger than the rank"),
    (lambda: tensordot(np.ones((2, 3)), np.ones((3, 5)), [[1], [0, 1]]), ValueError,
     "Different number of contraction axes"),
    (lambda: tensordot(np.ones((2, 3)), np.ones((3, 5)), [[4], [0]]), ValueError, "out of range"),
    (lambda: eye(2.5), TypeError, "num_rows must be a non-negative integer"),
])
def test_build_time_errors(build, exc, message):
    with tf.Graph().as_default():
        with pytest.raises(exc, match=message):
            build()


def test_float16_inverse_keeps_its_dtype():
    with tf.Graph().as_default():
        a = np.array([[2.0, 1.0], [1.0, 3.0]], np.float16)
        got = _run(matrix_inverse(a))
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float64) @ a.astype(np.float64), np.eye(2), atol=2e-3)


def test_einsum_names_and_shapes():
    from lens.ops.linalg_einsum import einsum
    with tf.Graph().as_default() as g:
        a = tf.placeholder(tf.float32, [None, 3], name="a")
        b = tf.placeholder(tf.float32, [3, 4], name="b")
        out = einsum("ij,jk->ik", a, b)
        assert [(o.name, o.type) for o in g.get_operations()][2:] == [("einsum/Einsum", "Einsum")]
        assert out.shape.as_list() == [None, 4]
        assert out.dtype == tf.float32


@pytest.mark.parametrize("equation,shapes,exc,message", [
    ("ii->i", [(3, 3)], ValueError, r"repeats an index within 'ii'"),
    ("...ij,jk->...ik", [(2, 3), (3, 4)], ValueError, "ellipsis"),
    ("ij,jk->ik", [(2, 3)], ValueError, "has 2 operand"),
    ("ij,jk->iz", [(2, 3), (3, 4)], ValueError, r"output index \['z'\]"),
    ("ij,jk->ik", [(2, 3), (4, 4)], ValueError, "index 'j' has size 3 in one input and 4"),
    ("ijk,jk->i", [(2, 3), (3, 4)], ValueError, "subscript 'ijk' needs rank 3"),
])
def test_einsum_rejects_unsupported_or_bad_equations(equation, shapes, exc, message):
    from lens.ops.linalg_einsum import einsum
    with tf.Graph().as_default():
        with pytest.raises(exc, match=message):
            einsum(equation, *[np.ones(s, np.float32) for s in shapes])


def test_einsum_size_mismatch_at_run_time():
    from lens.ops.linalg_einsum import einsum
    with tf.Graph().as_default():
        a, b = tf.placeholder(tf.float64), tf.placeholder(tf.float64)
        out = einsum("ij,jk->ik", a, b)
        with pytest.raises(errors.InvalidArgumentError, match="index 'j' has size 3 in one input and 2"):
            _run(out, {a: np.ones((2, 3)), b: np.ones((2, 2))})
