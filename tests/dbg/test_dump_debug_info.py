"""tf.debugging.experimental.enable_dump_debug_info: lens's DebugEvent dumps against
TensorFlow's protos (its debug_event.proto descriptor, recorded once) and against dumps
TensorFlow 2.21 wrote for the same graph program (tests/board/fixtures/debugger_v2)."""

import glob
import importlib.util
import os

import numpy as np
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

import lens as tf
from lens.dbg import dumping_callback
from lens.events.debug_events.data import DebugData
from lens.events.records import iter_records
from lens.proto import debug_event_pb2

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "board", "fixtures",
                        "debugger_v2")
OPS = ("x", "dense/MatMul", "dense/Relu", "loss/Log", "loss/Mean")
MODES = ("NO_TENSOR", "CURT_HEALTH", "CONCISE_HEALTH", "FULL_HEALTH", "SHAPE", "FULL_TENSOR")


def _fixture_module():
    spec = importlib.util.spec_from_file_location(
        "make_fixtures", os.path.join(FIXTURES, "make_fixtures.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def _disabled():
    yield
    dumping_callback.disable_dump_debug_info()


def _tf_pool():
    """TensorFlow's own debug_event.proto (and imports) in a private descriptor pool."""
    files = descriptor_pb2.FileDescriptorSet()
    with open(os.path.join(FIXTURES, "tf_debug_event.desc"), "rb") as f:
        files.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in files.file:
        pool.Add(fd)
    return pool


def _dump(tmp_path, mode, **kwargs):
    root = str(tmp_path / mode)
    tf.debugging.experimental.enable_dump_debug_info(root, tensor_debug_mode=mode, **kwargs)
    _fixture_module().graph_program(tf, np)
    tf.debugging.experimental.disable_dump_debug_info()
    return root


def _fields(descriptor):
    return {f.name: (f.number, f.type, f.is_repeated, f.message_type.full_name if f.message_type
                     else None, f.containing_oneof.name if f.containing_oneof else None)
            for f in descriptor.fields}


def test_debug_event_proto_matches_tensorflow():
    pool = _tf_pool()
    tf_file = pool.FindFileByName("tensorflow/core/protobuf/debug_event.proto")
    ours = debug_event_pb2.DESCRIPTOR
    assert sorted(tf_file.message_types_by_name) == sorted(ours.message_types_by_name)
    for name, message in tf_file.message_types_by_name.items():
        assert _fields(message) == _fields(ours.message_types_by_name[name]), name
    theirs = tf_file.enum_types_by_name["TensorDebugMode"]
    mine = ours.enum_types_by_name["TensorDebugMode"]
    assert [(v.name, v.number) for v in theirs.values] == [(v.name, v.number) for v in mine.values]


def test_tensorflow_protos_parse_every_lens_record(tmp_path):
    root = _dump(tmp_path, "FULL_HEALTH")
    DebugEvent = message_factory.GetMessageClass(
        _tf_pool().FindMessageTypeByName("tensorflow.DebugEvent"))
    kinds = {}
    for path in glob.glob(os.path.join(root, "*")):
        suffix = path.rsplit(".", 1)[1]
        for data in iter_records(path):
            event = DebugEvent.FromString(data)
            assert event.SerializeToString() == data or DebugEvent.FromString(
                event.SerializeToString()) == event
            kinds.setdefault(suffix, set()).add(event.WhichOneof("what"))
    assert kinds == {"metadata": {"debug_metadata"}, "source_files": {"source_file"},
                     "stack_frames": {"stack_frame_with_id"},
                     "graphs": {"debugged_graph", "graph_op_creation", "debugged_device"},
                     "execution": {"execution"},
                     "graph_execution_traces": {"graph_execution_trace"}}


def _values_by_op(root):
    data = DebugData(root)
    data.update()
    out = {}
    for i, trace in enumerate(data.traces):
        if trace[4] in OPS:
            mode, values, _ = data.trace_values[i]
            value = data.trace_tensor(i).tolist() if mode == 7 else values
            # Tensor ids are numbered differently by each writer (TF counts its own ops).
            if value is not None and mode != 7:
                value = value[1:]
            out.setdefault(trace[4], []).append((trace[3], value))
    return out


@pytest.mark.parametrize("mode", MODES)
def test_values_match_tensorflow_for_the_same_program(tmp_path, mode):
    ours = _values_by_op(_dump(tmp_path, mode))
    theirs = _values_by_op(os.path.join(FIXTURES, "tf_graph_" + mode))
    assert ours == theirs
    assert set(ours) == set(OPS)


def test_graph_ops_stack_frames_and_sources(tmp_path):
    root = _dump(tmp_path, "NO_TENSOR")
    data = DebugData(root)
    data.update()
    (graph,) = data.graphs.values()
    matmul = graph.ops["dense/MatMul"]
    assert matmul["op_type"] == "MatMul"
    assert matmul["input_names"] == ["x:0", "w/read:0"]
    frames = [data.stack_frames[f] for f in matmul["stack_frame_ids"]]
    assert frames[-1][1] == os.path.join(FIXTURES, "make_fixtures.py")
    assert frames[-1][3] == "graph_program"
    lines = data.source_lines(frames[-1][0], frames[-1][1])
    assert "tf.matmul(x, w" in lines[frames[-1][2] - 1]
    # Every Session.run is one execution, the fed placeholder its input.
    assert [e[2] for e in data.executions] == ["Session.run"] * 3


def test_circular_buffer_keeps_the_last_n_until_disable(tmp_path):
    root = str(tmp_path / "ring")
    tf.debugging.experimental.enable_dump_debug_info(root, "CURT_HEALTH",
                                                     circular_buffer_size=4)
    _fixture_module().graph_program(tf, np)
    traces = glob.glob(os.path.join(root, "*.graph_execution_traces"))[0]
    assert os.path.getsize(traces) == 0  # nothing written before the flush
    tf.debugging.experimental.disable_dump_debug_info()
    data = DebugData(root)
    data.update()
    assert [t[4] for t in data.traces] == ["dense/MatMul", "dense/Relu", "loss/Log", "loss/Mean"]
    assert len(data.executions) == 3


def test_op_regex_and_tensor_dtypes_filter_traces(tmp_path):
    root = str(tmp_path / "filtered")
    dumping = tf.debugging.experimental
    dumping.enable_dump_debug_info(root, "FULL_HEALTH", op_regex="(MatMul|Log)$",
                                   tensor_dtypes=[tf.float32])
    _fixture_module().graph_program(tf, np)
    dumping.disable_dump_debug_info()
    data = DebugData(root)
    data.update()
    assert {t[4] for t in data.traces} == {"dense/MatMul", "loss/Log"}
    root2 = str(tmp_path / "ints")
    dumping.enable_dump_debug_info(root2, "SHAPE", tensor_dtypes=lambda d: d.is_integer)
    _fixture_module().graph_program(tf, np)
    dumping.disable_dump_debug_info()
    data = DebugData(root2)
    data.update()
    assert {t[4] for t in data.traces} == {"loss/Mean/reduction_indices"}


def test_bad_arguments_fail_as_tensorflow():
    dumping = tf.debugging.experimental
    with pytest.raises(ValueError, match=r"Invalid value in tensor_debug_mode \('BAD'\)"):
        dumping.enable_dump_debug_info("/tmp/unused", tensor_debug_mode="BAD")
    with pytest.raises(NotImplementedError, match="FULL_NUMERICS"):
        dumping.enable_dump_debug_info("/tmp/unused", tensor_debug_mode="FULL_NUMERICS")
    with pytest.raises(ValueError, match="tensor_dtypes is expected to be a list"):
        dumping.enable_dump_debug_info("/tmp/unused", tensor_dtypes="float32")


def test_reenabling_with_other_settings_is_refused(tmp_path):
    dumping = tf.debugging.experimental
    dumping.enable_dump_debug_info(str(tmp_path / "a"), "CURT_HEALTH")
    with pytest.raises(ValueError, match="different circular-buffer size"):
        dumping.enable_dump_debug_info(str(tmp_path / "a"), "CURT_HEALTH",
                                       circular_buffer_size=5)
    with pytest.raises(ValueError, match="different tensor-debug mode"):
        dumping.enable_dump_debug_info(str(tmp_path / "a"), "FULL_HEALTH")
    assert tf.debugging.experimental.disable_dump_debug_info is \
        dumping_callback.disable_dump_debug_info


def test_a_source_file_that_no_longer_exists_is_recorded_without_lines(tmp_path):
    root = str(tmp_path / "gone")
    tf.debugging.experimental.enable_dump_debug_info(root, "NO_TENSOR")
    graph = tf.Graph()
    code = compile("y = tf.square(x, name='sq')\n", "/no/such/dir/gone.py", "exec")
    with graph.as_default():
        scope = {"tf": tf, "x": tf.constant([1.0, 2.0])}
        exec(code, scope)
        tf.Session().run(scope["y"])
    tf.debugging.experimental.disable_dump_debug_info()
    data = DebugData(root)
    data.update()
    hosts = {path: host for host, path in data.source_files}
    assert data.source_lines(hosts["/no/such/dir/gone.py"], "/no/such/dir/gone.py") == []
    assert __file__ in hosts and data.source_lines(hosts[__file__], __file__)


def test_buffered_traces_reach_the_disk_at_exit(tmp_path):
    import subprocess
    import sys
    root = str(tmp_path / "atexit")
    script = ("import numpy as np, lens as tf\n"
              "tf.debugging.experimental.enable_dump_debug_info(%r, 'CURT_HEALTH')\n"
              "g = tf.Graph()\n"
              "with g.as_default():\n"
              "    x = tf.placeholder(tf.float32, [2], name='x')\n"
              "    tf.Session().run(tf.log(x, name='log'), {x: np.zeros(2, np.float32)})\n"
              % root)
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    data = DebugData(root)
    data.update()
    assert [t[4] for t in data.traces] == ["x", "log"]
    assert [a.op_type for a in data.alerts] == ["Log", "Session.run"]
