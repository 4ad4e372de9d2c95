"""The programs of structured_cases.py under lens against TensorFlow's recorded outputs (structured_tf.json,
made by fixtures/make_structured_fixtures.py with TF1 behaviour): values, dtypes, shapes, errors."""
import json
import os

import numpy as np
import pytest

import lens as tf
import structured_cases as C

with open(os.path.join(os.path.dirname(__file__), "fixtures", "structured_tf.json")) as _f:
    TF = json.load(_f)
EXTRA = {"contrib_lookup": tf.contrib.lookup}
# Where lens deliberately fails earlier than TF (same class): TF logs and fails in the kernel.
EARLIER = {"ta_wrong_dtype"}


def _compare(got, exp, where):
    if isinstance(exp, list):
        assert isinstance(got, list) and len(got) == len(exp), "%s: %r vs %r" % (where, got, exp)
        for k, (g, e) in enumerate(zip(got, exp)):
            _compare(g, e, "%s[%d]" % (where, k))
    elif "indices" in exp:
        for part in ("indices", "values", "dense_shape"):
            _compare(got[part], exp[part], "%s.%s" % (where, part))
    elif "str" in exp:
        assert got == exp, where
    else:
        assert got["dtype"] == exp["dtype"], "%s: dtype %s, TF %s" % (where, got["dtype"], exp["dtype"])
        assert got["shape"] == exp["shape"], "%s: shape %s, TF %s" % (where, got["shape"], exp["shape"])
        g = np.array([np.nan if x is None else x for x in got["data"]], np.float64)
        e = np.array([np.nan if x is None else x for x in exp["data"]], np.float64)
        tol = 1e-5 if got["dtype"] in ("float32", "float16") else 1e-9
        np.testing.assert_allclose(g, e, rtol=tol, atol=tol, err_msg=where)


@pytest.mark.parametrize("case", C.CASES, ids=lambda c: c.__name__)
def test_case_matches_tensorflow(case):
    got = C.run_case(tf, EXTRA, case)
    exp = TF[case.__name__]
    assert sorted(got) == sorted(exp)
    for name in exp:
        _compare(got[name], exp[name], "%s/%s" % (case.__name__, name))


def test_sparse_optimizer_steps_match_tensorflow():
    got = C.run_optimizers(tf, EXTRA)
    for name, exp in TF["optimizer_steps"].items():
        _compare(got[name], exp, "optimizer %s" % name)


def test_variable_scatter_updates_match_tensorflow():
    _compare(C.run_variable_updates(tf, EXTRA), TF["variable_updates"], "variable updates")


def test_errors_match_tensorflow():
    got = C.run_errors(tf, EXTRA)
    for name, exp in TF["errors"].items():
        if name in EARLIER:
            assert got[name][1] == exp[1], (name, got[name], exp)
        else:
            assert got[name] == exp, (name, got[name], exp)
