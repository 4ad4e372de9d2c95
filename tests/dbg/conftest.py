"""Fixtures for lens.dbg tests: real dump directories written by lens's own DumpWriter."""

import os
import time

import numpy as np
import pytest

from lens.dbg.dump import DumpWriter

DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"

# A small MLP's forward pass, as (node, op type, inputs).
MLP_NODES = [
    ("x", "Placeholder", []),
    ("y_", "Placeholder", []),
    ("W1", "VariableV2", []),
    ("W1/read", "Identity", ["W1"]),
    ("hidden/MatMul", "MatMul", ["x", "W1/read"]),
    ("hidden/Relu", "Relu", ["hidden/MatMul"]),
    ("W2", "VariableV2", []),
    ("W2/read", "Identity", ["W2"]),
    ("logits/MatMul", "MatMul", ["hidden/Relu", "W2/read"]),
    ("Softmax", "Softmax", ["logits/MatMul"]),
    ("cross_entropy/Log", "Log", ["Softmax"]),
    ("cross_entropy/mul", "Mul", ["y_", "cross_entropy/Log"]),
    ("cross_entropy/Neg", "Neg", ["cross_entropy/mul"]),
    ("train", "NoOp", ["^cross_entropy/Neg"]),
]


def mlp_values(seed=0, bad=True):
    """Forward values of the MLP; with bad=True one softmax output is exactly 0 -> -inf."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(4, 6)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[[0, 1, 2, 0]]
    w1 = rng.normal(size=(6, 5)).astype(np.float32)
    w2 = rng.normal(size=(5, 3)).astype(np.float32)
    h = x @ w1
    r = np.maximum(h, 0)
    logits = r @ w2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    soft = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    if bad:
        soft[1, 2] = 0.0
    with np.errstate(divide="ignore"):
        log = np.log(soft)
    with np.errstate(invalid="ignore"):
        mul = y * log
    return {"x": x, "y_": y, "W1": w1, "W1/read": w1, "hidden/MatMul": h, "hidden/Relu": r,
            "W2": w2, "W2/read": w2, "logits/MatMul": logits, "Softmax": soft,
            "cross_entropy/Log": log, "cross_entropy/mul": mul, "cross_entropy/Neg": -mul}


def mlp_graph_def():
    from lens.proto import graph_pb2
    graph_def = graph_pb2.GraphDef()
    for name, op, inputs in MLP_NODES:
        node = graph_def.node.add(name=name, op=op, device=DEVICE)
        node.input.extend(inputs)
        if op == "MatMul":
            node.attr["transpose_a"].b = False
    return graph_def


def write_mlp_dump(root, bad=True, repeat_relu=False):
    """A run's dump directory of the MLP, in execution order; returns the root."""
    writer = DumpWriter(root)
    writer.write_graph(mlp_graph_def(), DEVICE)
    writer.write_core_metadata(1, 1, ["x:0", "y_:0"], ["cross_entropy/Neg:0"], ["train"])
    writer.write_fetches_info(["train", "cross_entropy/Neg:0"])
    writer.write_feed_keys_info({"x:0": 1, "y_:0": 2})
    t = int(time.time() * 1e6)
    values = mlp_values(bad=bad)
    for i, (name, op, _) in enumerate(MLP_NODES):
        if op == "NoOp":
            continue
        writer.write_tensor(name, 0, "DebugIdentity", values[name], t + 100 * i, DEVICE)
        if repeat_relu and name == "hidden/Relu":
            writer.write_tensor(name, 0, "DebugIdentity", values[name] * 2, t + 100 * i + 50,
                                DEVICE)
    return root


@pytest.fixture(autouse=True)
def _private_home(tmp_path, monkeypatch):
    """Keep ~/.tfdbg_history and ~/.tfdbg_config of tests out of the real home."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("LENS_DBG_NO_PAGER", "1")


@pytest.fixture
def mlp_dump(tmp_path):
    """Path of a real dump directory of the MLP whose cross_entropy/Log:0 holds -inf."""
    return write_mlp_dump(str(tmp_path / "dump"))


@pytest.fixture
def mlp_dump_dir(mlp_dump):
    """The loaded DebugDumpDir of mlp_dump."""
    from lens.dbg.debug_data import DebugDumpDir
    return DebugDumpDir(mlp_dump)


def listing(root):
    """Every file under root, relative (for layout assertions)."""
    out = []
    for folder, _, files in os.walk(root):
        for name in files:
            out.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(out)


@pytest.fixture
def dumped_values(monkeypatch):
    """{node name: value} of every dump that a DebugDumpDir loads during the test."""
    from lens import dbg as tf_debug
    seen = {}
    original = tf_debug.DebugDumpDir.__init__

    def spy(self, *args, **kwargs):
        original(self, *args, **kwargs)
        for datum in self.dumped_tensor_data:
            seen[datum.node_name] = datum.get_tensor()
    monkeypatch.setattr(tf_debug.DebugDumpDir, "__init__", spy)
    return seen
