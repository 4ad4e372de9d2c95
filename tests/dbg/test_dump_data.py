"""Dump writer layout and DebugDumpDir on real dump directories."""

import json
import os

import numpy as np
import pytest

from lens.dbg import dump as dump_module
from lens.dbg.debug_data import (DebugDumpDir, DebugTensorDatum,
                                 WatchKeyDoesNotExistInDebugDumpDirError)
from lens.dbg.device_names import device_to_dir, dir_to_device
from lens.dbg.dump import DumpWriter
from lens.dbg.filters import has_inf_or_nan

from conftest import DEVICE, listing, mlp_values, write_mlp_dump

DEVICE_DIR = "_tfdbg_device_,job_localhost,replica_0,task_0,device_CPU_0"


def test_device_folder_names_round_trip():
    assert device_to_dir(DEVICE) == DEVICE_DIR
    assert dir_to_device(DEVICE_DIR) == DEVICE
    assert device_to_dir("") == DEVICE_DIR
    assert device_to_dir("/cpu:0") == DEVICE_DIR
    with pytest.raises(ValueError, match="_tfdbg_device_"):
        dir_to_device("somewhere_else")


def test_layout_matches_tfdbg(mlp_dump):
    files = listing(mlp_dump)
    assert any(f.startswith("_tfdbg_core_metadata_sessionrun00000000000001_") for f in files)
    assert "_tfdbg_fetches_info_" in files and "_tfdbg_feed_keys_info_" in files
    assert any(f.startswith(DEVICE_DIR + "/_tfdbg_graph_hash") for f in files)
    logs = [f for f in files if f.startswith(DEVICE_DIR + "/cross_entropy/Log_0_DebugIdentity_")]
    assert len(logs) == 1  # the scope became a sub-directory
    assert logs[0].rsplit("_", 1)[1].isdigit()


def test_tensor_file_is_one_event_readable_by_tensorboard(mlp_dump):
    """TensorBoard's own protobuf classes (the interop oracle) parse lens's dump file."""
    from tensorboard.compat.proto import event_pb2
    from tensorboard.util import tensor_util
    path = next(os.path.join(mlp_dump, f) for f in listing(mlp_dump)
                if "/cross_entropy/Log_0_" in f)
    event = event_pb2.Event.FromString(open(path, "rb").read())
    value = event.summary.value[0]
    assert value.node_name == "cross_entropy/Log:0:DebugIdentity"
    assert value.tag == "cross_entropy/Log"
    assert value.metadata.plugin_data.plugin_name == "debugger"
    content = json.loads(value.metadata.plugin_data.content)
    assert content == {"device": DEVICE, "outputSlot": 0, "numChunks": 1, "chunkIndex": 0}
    assert int(event.wall_time) == int(path.rsplit("_", 1)[1])  # µs, like tfdbg
    np.testing.assert_array_equal(tensor_util.make_ndarray(value.tensor),
                                  mlp_values()["cross_entropy/Log"])


def test_core_metadata_and_run_info(mlp_dump_dir):
    meta = mlp_dump_dir.core_metadata
    assert meta.session_run_index == 1 and meta.global_step == -1
    assert meta.input_names == ["x:0", "y_:0"]
    assert meta.target_nodes == ["train"]
    assert mlp_dump_dir.run_fetches_info == repr(["train", "cross_entropy/Neg:0"])
    assert mlp_dump_dir.run_feed_keys_info == repr(["x:0", "y_:0"])


def test_dump_queries(mlp_dump_dir):
    d = mlp_dump_dir
    assert d.size == 13
    names = [x.tensor_name for x in d.dumped_tensor_data]
    assert names[0] == "x:0" and names[-1] == "cross_entropy/Neg:0"
    assert d.t0 == d.dumped_tensor_data[0].timestamp
    np.testing.assert_array_equal(d.get_tensors("Softmax", 0, "DebugIdentity")[0],
                                  mlp_values()["Softmax"])
    assert d.get_rel_timestamps("Softmax", 0, "DebugIdentity") == [900]
    sizes = d.get_dump_sizes_bytes("Softmax", 0, "DebugIdentity")
    assert sizes == [os.path.getsize(d.watch_key_to_data("Softmax:0:DebugIdentity")[0].file_path)]
    assert d.debug_watch_keys("Softmax") == ["Softmax:0:DebugIdentity"]
    with pytest.raises(WatchKeyDoesNotExistInDebugDumpDirError, match="nope:0:DebugIdentity"):
        d.get_tensors("nope", 0, "DebugIdentity")
    bad = d.find(has_inf_or_nan)
    assert [x.tensor_name for x in bad] == ["cross_entropy/Log:0", "cross_entropy/mul:0",
                                           "cross_entropy/Neg:0"]
    assert [x.tensor_name for x in d.find(has_inf_or_nan, first_n=1)] == ["cross_entropy/Log:0"]
    assert d.find(has_inf_or_nan, exclude_node_names="cross_entropy/.*") == []


def test_graph_queries(mlp_dump_dir):
    d = mlp_dump_dir
    assert d.devices() == [DEVICE]
    assert d.node_op_type("cross_entropy/Log") == "Log"
    assert d.node_device("Softmax") == DEVICE
    assert d.node_inputs("hidden/MatMul") == ["x", "W1/read"]
    assert d.node_recipients("cross_entropy/Neg") == []
    assert d.node_recipients("cross_entropy/Neg", is_control=True) == ["train"]
    assert d.node_inputs("train", is_control=True) == ["cross_entropy/Neg"]
    assert d.node_attributes("hidden/MatMul")["transpose_a"].b is False
    assert set(d.transitive_inputs("Softmax")) == {"logits/MatMul", "hidden/Relu", "W2/read",
                                                   "W2", "hidden/MatMul", "x", "W1/read", "W1"}
    assert d.find_some_path("x", "cross_entropy/Log")[0] == "x"
    with pytest.raises(ValueError, match='no node named "ghost"'):
        d.node_op_type("ghost")


def test_graphs_instrumented_by_tensorflow_read_as_the_original_graph(tmp_path):
    """TensorFlow's tfdbg dumps the graph it instrumented: a __copy_ node between a watched
    tensor and its consumers, a __dbg_ node reading the copy (reference tfdbg.md §1)."""
    from lens.proto import graph_pb2
    graph_def = graph_pb2.GraphDef()
    for name, op, inputs in [
            ("x", "Placeholder", []), ("Log", "Log", ["x"]),
            ("__copy_Log_0", "CopyHost", ["Log"]),
            ("__dbg_Log:0_0_DebugIdentity", "DebugIdentity", ["__copy_Log_0"]),
            ("loss", "Mean", ["__copy_Log_0", "^__copy_Log_0"]), ("train", "NoOp", ["^loss"])]:
        graph_def.node.add(name=name, op=op, device=DEVICE).input.extend(inputs)
    writer = DumpWriter(str(tmp_path))
    writer.write_graph(graph_def, DEVICE)
    writer.write_tensor("Log", 0, "DebugIdentity", np.zeros(2, np.float32), 1000, DEVICE)
    writer.flush()
    d = DebugDumpDir(str(tmp_path))
    assert sorted(d.nodes()) == ["Log", "loss", "train", "x"]
    assert d.node_inputs("loss") == ["Log"] and d.node_inputs("loss", is_control=True) == ["Log"]
    assert d.node_recipients("Log") == ["loss"]
    assert set(d.transitive_inputs("train")) == {"loss", "Log", "x"}


def test_datum_parses_path():
    datum = DebugTensorDatum("/r", DEVICE_DIR + "/a/b/my_node_1_DebugNanCount_123-2")
    assert (datum.node_name, datum.output_slot, datum.debug_op, datum.timestamp) == (
        "a/b/my_node", 1, "DebugNanCount", 123)
    assert datum.extended_timestamp == "123-2"
    assert datum.watch_key == "a/b/my_node:1:DebugNanCount"
    assert str(datum) == "{DebugTensorDatum (%s) a/b/my_node:1 @ DebugNanCount @ 123}" % DEVICE
    with pytest.raises(ValueError, match="naming pattern"):
        DebugTensorDatum("/r", DEVICE_DIR + "/bad_name")


def test_same_timestamp_gets_suffix_and_keeps_order(tmp_path):
    writer = DumpWriter(str(tmp_path))
    first = writer.write_tensor("n", 0, "DebugIdentity", np.ones(2), 5, DEVICE)
    second = writer.write_tensor("n", 0, "DebugIdentity", np.zeros(2), 5, DEVICE)
    assert second == first + "-1"
    dump = DebugDumpDir(str(tmp_path))
    values = dump.get_tensors("n", 0, "DebugIdentity")
    assert [v.sum() for v in values] == [2.0, 0.0]


def test_corrupt_and_partial_dump_loads_the_rest(tmp_path):
    root = write_mlp_dump(str(tmp_path / "d"))
    log = next(os.path.join(root, f) for f in listing(root) if "/Softmax_0_" in f)
    with open(log, "wb") as f:
        f.write(b"\x08garbage-not-an-event")
    empty = os.path.join(root, DEVICE_DIR, "hidden", "Relu_0_DebugIdentity_1")
    open(empty, "wb").close()
    stray = os.path.join(root, DEVICE_DIR, "README")
    open(stray, "w").write("hello")
    with pytest.warns(UserWarning, match="README"):
        dump = DebugDumpDir(root)
    assert any(p == stray and "naming pattern" in m for p, m in dump.load_errors)
    with pytest.raises(ValueError, match="Softmax_0_DebugIdentity.*corrupt"):
        dump.get_tensors("Softmax", 0, "DebugIdentity")
    with pytest.raises(ValueError, match="Relu_0_DebugIdentity_1 is empty"):
        dump.watch_key_to_data("hidden/Relu:0:DebugIdentity")[0].get_tensor()
    np.testing.assert_array_equal(dump.get_tensors("x", 0, "DebugIdentity")[0],
                                  mlp_values()["x"])
    hits = dump.find(has_inf_or_nan)  # the corrupt files are skipped and recorded
    assert hits[0].tensor_name == "cross_entropy/Log:0"
    assert any("Softmax" in p for p, _ in dump.load_errors)


def test_missing_root_is_ioerror(tmp_path):
    with pytest.raises(IOError, match="does not exist"):
        DebugDumpDir(str(tmp_path / "nothing"))


def test_node_missing_from_graph_is_reported_not_fatal(tmp_path):
    root = write_mlp_dump(str(tmp_path / "d"))
    DumpWriter(root).write_tensor("intruder", 0, "DebugIdentity", np.ones(1), 1, DEVICE)
    with pytest.warns(UserWarning, match="intruder"):
        dump = DebugDumpDir(root)
    assert "intruder" not in dump.nodes_with_dumps()
    assert dump.size == 13


def test_disk_budget_stops_before_exceeding(tmp_path, monkeypatch):
    monkeypatch.setenv("TFDBG_DISK_BYTES_LIMIT", "2000")
    dump_module.reset_disk_byte_usage()
    writer = DumpWriter(str(tmp_path))
    writer.write_tensor("a", 0, "DebugIdentity", np.ones(10, np.float32), 1, DEVICE)
    with pytest.raises(dump_module.DiskBudgetExceededError, match="TFDBG_DISK_BYTES_LIMIT=2000"):
        writer.write_tensor("b", 0, "DebugIdentity", np.ones(1000, np.float32), 2, DEVICE)
    assert dump_module.disk_bytes_used() <= 2000
    assert not any("b_0_" in f for f in listing(str(tmp_path)))
    monkeypatch.setenv("TFDBG_DISK_BYTES_LIMIT", "lots")
    with pytest.raises(ValueError, match="not an integer"):
        dump_module.disk_bytes_limit()
    dump_module.reset_disk_byte_usage()
