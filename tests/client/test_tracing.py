"""RunMetadata from traced runs: every executed op once, consistent times, memory, devices,
partition graphs, cost graph, and real TensorBoard reading it."""
import numpy as np
import pytest

import lens as tf
from lens.client import parallel
from lens.client.partition import placed_graph_def

CPU = "/job:localhost/replica:0/task:0/device:CPU:%d"
FULL = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)


def _model():
    """A small two-device training step: layer on CPU:1, loss and update on CPU:0."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    with tf.device("/cpu:1"):
        w = tf.Variable(tf.ones([3, 2]), name="w")
        h = tf.nn.relu(tf.matmul(x, w), name="h")
    loss = tf.reduce_mean(tf.square(h), name="loss")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    return x, w, h, loss, train


def _stats(meta):
    return {ns.node_name: (ds.device, ns) for ds in meta.step_stats.dev_stats for ns in ds.node_stats}


@pytest.fixture(params=["sequential", "parallel"])
def executor(request, monkeypatch):
    if request.param == "parallel":
        monkeypatch.setattr(parallel, "MIN_OVERLAP_FLOPS", 0)
        monkeypatch.setattr(parallel, "MIN_FLOPS_PER_OP", 0)
    return 2 if request.param == "parallel" else 1


def test_every_executed_op_appears_once_with_consistent_times(executor):
    x, w, h, loss, train = _model()
    cfg = tf.ConfigProto(device_count={"CPU": 2}, inter_op_parallelism_threads=executor)
    with tf.Session(config=cfg) as sess:
        sess.run(tf.global_variables_initializer())
        meta = tf.RunMetadata()
        sess.run([train, loss], {x: np.ones((4, 3))}, options=FULL, run_metadata=meta)
        plan = [c.plan for k, c in sess._runs.items() if "trace" in k][0]
        plan_ops = plan.ops
    assert isinstance(plan, parallel.ParallelPlan) == (executor == 2)
    names = [ns.node_name for ds in meta.step_stats.dev_stats for ns in ds.node_stats]
    assert sorted(names) == sorted(op.name for op in plan_ops)          # each executed op exactly once
    assert len(names) == len(set(names))
    kinds = {op.type for op in plan_ops}
    assert {"Const", "VariableV2", "NoOp", "MatMul"} <= kinds
    stats = _stats(meta)
    graph = tf.get_default_graph()
    for name, (dev, ns) in stats.items():
        assert ns.scheduled_micros <= ns.all_start_micros
        assert 0 <= ns.op_start_rel_micros <= ns.op_end_rel_micros <= ns.all_end_rel_micros
        assert ns.all_start_micros > 1.6e15 and ns.all_end_rel_micros < 1e7     # wall-clock microseconds
        assert ns.timeline_label.startswith("%s = %s(" % (name, graph.get_operation_by_name(name).type))
        op = graph.get_operation_by_name(name)
        for t in op.inputs:     # a consumer starts only after its producers finished
            if t.op.name in stats:
                p = stats[t.op.name][1]
                assert p.all_start_micros + p.all_end_rel_micros <= ns.all_start_micros + 1
    assert stats["h"][0] == CPU % 1 and stats["w"][0] == CPU % 1 and stats["loss"][0] == CPU % 0
    assert [ds.device for ds in meta.step_stats.dev_stats] == [CPU % 0, CPU % 1]
    for ds in meta.step_stats.dev_stats:
        assert {ns.thread_id for ns in ds.node_stats} <= set(ds.thread_names)


def test_memory_and_outputs_equal_the_output_bytes():
    a = tf.placeholder(tf.float32, [None, 5], name="a")
    b = tf.cast(a, tf.float64, name="b")
    parts = tf.split(b, [2, 3], axis=1, name="parts")
    with tf.Session() as sess:
        meta = tf.RunMetadata()
        vals = sess.run([b] + parts, {a: np.ones((7, 5))}, options=FULL, run_metadata=meta)
    stats = _stats(meta)
    _, nb = stats["b"]
    assert nb.memory[0].total_bytes == nb.memory[0].peak_bytes == vals[0].nbytes == 7 * 5 * 8
    assert nb.memory[0].allocator_name == "cpu"
    desc = nb.output[0].tensor_description
    assert desc.dtype == tf.float64.as_datatype_enum and [d.size for d in desc.shape.dim] == [7, 5]
    assert desc.allocation_description.allocated_bytes == 280
    _, ns = stats["parts"]
    assert [o.slot for o in ns.output] == [0, 1]
    assert ns.memory[0].total_bytes == vals[1].nbytes + vals[2].nbytes
    assert "a" not in stats   # the fed placeholder does not run


def test_variable_memory_is_referenced_not_allocated():
    v = tf.Variable(np.zeros((10, 10), np.float32), name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        meta = tf.RunMetadata()
        sess.run(v.read_value() if hasattr(v, "read_value") else v._snapshot, options=FULL, run_metadata=meta)
    _, ns = _stats(meta)["v"]
    assert ns.referenced_tensor[0].allocated_bytes == 400 and not ns.memory
    assert ns.memory_stats.persistent_memory_size == 400


def test_partition_graphs_and_cost_graph():
    x, w, h, loss, train = _model()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(tf.global_variables_initializer())
        meta = tf.RunMetadata()
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
        sess.run(loss, {x: np.ones((4, 3))}, options=opts, run_metadata=meta)
        plain = tf.RunMetadata()
        sess.run(loss, {x: np.ones((4, 3))}, options=tf.RunOptions(trace_level=tf.RunOptions.SOFTWARE_TRACE),
                 run_metadata=plain)
    assert len(meta.partition_graphs) == 2 and not plain.partition_graphs and not plain.cost_graph.node
    devices = [{n.device for n in gd.node} for gd in meta.partition_graphs]
    assert devices[0] == {CPU % 0} and devices[1] == {CPU % 1}
    nodes = {n.name: n for gd in meta.partition_graphs for n in gd.node}
    recv = [n for n in nodes.values() if n.op == "_Recv" and n.attr["send_device"].s == (CPU % 1).encode()]
    assert len(recv) == 1 and recv[0].device == CPU % 0
    send = [n for n in nodes.values() if n.op == "_Send"]
    assert len(send) == 1 and send[0].input == ["h"] and send[0].device == CPU % 1
    assert nodes[loss.op.inputs[0].op.name].input[0] == recv[0].name     # Square reads h through the _Recv
    assert "_recv_x_0" in nodes and nodes["_recv_x_0"].attr["client_terminated"].b
    shape = nodes["h"].attr["_output_shapes"].list.shape[0]
    assert [d.size for d in shape.dim] == [4, 2]     # the run's shape, not the static [?, 2]
    cost = {n.name: n for n in meta.cost_graph.node}
    assert set(cost) == set(_stats(meta))
    assert cost["h"].device == CPU % 1 and cost["h"].output_info[0].size == 4 * 2 * 4
    mm = cost[h.op.inputs[0].op.name]
    assert {cost_node.name for cost_node in meta.cost_graph.node if cost_node.id in
            [i.preceding_node for i in mm.input_info]} == {"w/read"}
    assert cost["loss"].is_final and not cost["h"].is_final


def test_tensorboard_reads_run_metadata_and_placed_graph(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    x, w, h, loss, train = _model()
    writer = tf.summary.FileWriter(str(tmp_path))
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(tf.global_variables_initializer())
        meta = tf.RunMetadata()
        sess.run(train, {x: np.ones((5, 3))}, options=FULL, run_metadata=meta)
        writer.add_run_metadata(meta, "step1", 1)
        writer.add_graph(None, graph_def=placed_graph_def(sess))
    writer.close()
    acc = EventAccumulator(str(tmp_path))
    acc.Reload()
    assert acc.Tags()["run_metadata"] == ["step1"]
    got = acc.RunMetadata("step1")
    assert {d.device for d in got.step_stats.dev_stats} == {CPU % 0, CPU % 1}
    assert sum(len(d.node_stats) for d in got.step_stats.dev_stats) == len(_stats(meta))
    gd = acc.Graph()
    nodes = {n.name: n for n in gd.node}
    assert nodes["h"].device == CPU % 1 and nodes["loss"].device == CPU % 0
    assert all(n.device for n in gd.node)
    dims = [d.size for d in nodes["h"].attr["_output_shapes"].list.shape[0].dim]
    assert dims == [5, 2]


def test_tracing_off_leaves_metadata_empty():
    a = tf.placeholder(tf.float32, [2])
    with tf.Session() as sess:
        meta = tf.RunMetadata()
        sess.run(a * 2.0, {a: [1, 2]}, options=tf.RunOptions(), run_metadata=meta)
    assert not meta.step_stats.dev_stats
