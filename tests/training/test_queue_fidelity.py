"""Queue pipelines against TensorFlow's own record (fixtures/queue_pipeline_tf.json): op names and types, and
the class and message of each queue error."""
import json
import pathlib
import re
import sys

import lens as tf

HERE = pathlib.Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(HERE))
from queue_cases import build_pipeline, error_cases  # noqa: E402

RECORD = json.loads((HERE / "queue_pipeline_tf.json").read_text())

# Ops that TensorFlow folds or names in families other than the queues': tf.size/tf.shape of a static shape
# become Consts in TF (lens keeps the Size/Shape op) and TF's Assert keeps its message in an extra Const.
OTHER_FAMILIES = {"input_producer/Size Const", "input_producer/Size Size", "input_producer_1/Shape Const",
                  "input_producer_1/Shape Shape", "input_producer/Assert/Assert/data_0 Const"}


def test_pipeline_ops_are_named_as_tensorflow_names_them():
    ops = build_pipeline(tf)
    want = set(RECORD["ops"]) - OTHER_FAMILIES
    got = set(ops) - OTHER_FAMILIES
    assert sorted(want - got) == [] and sorted(got - want) == []


def test_queue_errors_match_tensorflow():
    got = error_cases(tf)
    for case, (cls, lines) in RECORD["errors"].items():
        lens_cls, lens_lines = got[case]
        assert lens_cls == cls, case
        tf_lines = [re.sub(r"'_\d+_(\w+)'", r"'\1'", ln) for ln in lines]   # TF's queue names carry '_<n>_'
        core = [ln for ln in tf_lines if ln.strip() and not ln.startswith(("Graph execution", "Detected at", "Node:",
                                                                          "\t", " ", "Original stack"))]
        # lens says what TF says, sometimes followed by which component or queue it was.
        assert any(lens_lines[0].startswith(ln) for ln in core), (case, lens_lines[0], core)
