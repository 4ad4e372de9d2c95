"""tf.linalg.LinearOperator*: dense matrices, shapes, adjoints, traces, matmul, solve and (log) determinants
equal TF 2.21's on the cases of fixtures/linear_operator_cases.py (fixtures/record_linear_operator_tf.py)."""
import importlib.util
import json
import pathlib

import numpy as np
import pytest

import lens as tf

HERE = pathlib.Path(__file__).parent / "fixtures"
_spec = importlib.util.spec_from_file_location("linear_operator_cases", HERE / "linear_operator_cases.py")
cases = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cases)
WANT = json.loads((HERE / "linear_operator_tf.json").read_text())


@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_matches_tensorflow(name):
    want = WANT[name]
    with tf.Graph().as_default():
        op = cases.CASES[name](tf.linalg)
        dense = op.to_dense()
        n = dense.shape.as_list()[-1]
        rhs = np.broadcast_to(cases.RHS[:n] if n == 3 else np.ones((n, 2)), tuple(want["shape"][:-2]) + (n, 2))
        fetch = {"dense": dense, "trace": op.trace(), "matmul": op.matmul(rhs), "adjoint": op.adjoint().to_dense()}
        if "det" in want:
            fetch.update(det=op.determinant(), logdet=op.log_abs_determinant(), solve=op.solve(rhs))
        assert op.shape.as_list() == want["shape"]
        with tf.Session() as sess:
            got = sess.run(fetch)
    for key, value in got.items():
        np.testing.assert_allclose(value, want[key], rtol=1e-9, atol=1e-12, err_msg="%s %s" % (name, key))


def test_hints_errors_and_operator_algebra():
    la = tf.linalg
    with pytest.raises(ValueError, match="non-singular"):
        la.LinearOperatorFullMatrix(np.eye(2), is_positive_definite=True, is_non_singular=False)
    with pytest.raises(ValueError, match="square"):
        la.LinearOperatorFullMatrix(np.eye(2), is_self_adjoint=True, is_square=False)
    with tf.Graph().as_default():
        a = la.LinearOperatorFullMatrix(np.array([[2.0, 1.0], [1.0, 3.0]]), is_self_adjoint=True,
                                        is_positive_definite=True)
        assert a.is_non_singular and a.is_square and a.adjoint() is a
        comp = a.matmul(la.LinearOperatorDiag(np.array([1.0, 2.0])))
        assert isinstance(comp, la.LinearOperatorComposition)
        with tf.Session() as sess:
            np.testing.assert_allclose(sess.run(comp.to_dense()), [[2.0, 2.0], [1.0, 6.0]])
            np.testing.assert_allclose(sess.run(a.cholesky().to_dense()), np.linalg.cholesky([[2.0, 1.0], [1.0, 3.0]]))
            np.testing.assert_allclose(sess.run(a.eigvals()), np.linalg.eigvalsh([[2.0, 1.0], [1.0, 3.0]]))
            np.testing.assert_allclose(sess.run(a.solvevec([1.0, 1.0])), np.linalg.solve([[2, 1], [1, 3]], [1, 1]))
        with pytest.raises(TypeError, match="same dtype"):
            la.LinearOperatorComposition([a, la.LinearOperatorDiag(np.array([1.0, 2.0], np.float32))])
        with pytest.raises(ValueError, match="singular"):
            la.LinearOperatorZeros(2).inverse()
