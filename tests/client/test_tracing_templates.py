"""Traced runs that repeat the last run's shapes write their times into cached message
templates: the RunMetadata must be byte for byte what encoding every op afresh gives."""
import time

import numpy as np
import pytest

import lens as tf
from lens.client import parallel, tracing
from test_tracing import _model  # the same two-device training step

FULL = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


def _fresh(sess, compiled, rec, wall0, perf0):
    """The RunMetadata of one recorded run with every op encoded afresh (no templates)."""
    plan = compiled.plan
    saved = plan._trace_state
    plan._trace_state = None
    signature = tracing._signature
    tracing._signature = lambda pt, values: None
    try:
        meta = tf.RunMetadata()
        tracing.fill_run_metadata(sess, plan, rec, meta, FULL, wall0, perf0)
    finally:
        tracing._signature = signature
        plan._trace_state = saved
    return meta


@pytest.mark.parametrize("inter", [1, 2])
def test_templated_metadata_equals_fresh_encoding(inter, monkeypatch):
    if inter == 2:  # the parallel executor even for this tiny graph
        monkeypatch.setattr(parallel, "MIN_OVERLAP_FLOPS", 0)
        monkeypatch.setattr(parallel, "MIN_FLOPS_PER_OP", 0)
    x, _, _, loss, train = _model()
    cfg = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=inter)
    rng = np.random.default_rng(0)
    with tf.Session(config=cfg) as sess:
        sess.run(tf.global_variables_initializer())
        sess.run([train, loss], {x: np.ones((2, 3), np.float32)}, options=FULL,
                 run_metadata=tf.RunMetadata())
        compiled = next(c for k, c in sess._runs.items() if "trace" in k)
        # Same shapes (templates reused), new shapes (re-encoded), and back again.
        for batch in (4, 4, 4, 7, 7, 4, 1, 4):
            feed = {x: rng.normal(size=(batch, 3)).astype(np.float32)}
            rec = tracing._Recorder()
            wall0, perf0 = time.time(), rec.t0
            sess._execute(compiled, feed, rec)
            meta = tf.RunMetadata()
            tracing.fill_run_metadata(sess, compiled.plan, rec, meta, FULL, wall0, perf0)
            assert tuple(sess.graph._run_shapes["h:0"]) == (batch, 2)
            fresh = _fresh(sess, compiled, rec, wall0, perf0)
            assert meta.SerializeToString() == fresh.SerializeToString()
            sizes = {ns.node_name: ns.output[0].tensor_description.shape.dim[0].size
                     for ds in meta.step_stats.dev_stats for ns in ds.node_stats
                     if ns.node_name == "h"}
            assert sizes == {"h": batch}
        if inter == 1:
            assert compiled.plan._trace_state.templates  # the fast path did run
