"""Eager ops under tf.debugging.experimental.enable_dump_debug_info: one Execution per op."""
import numpy as np

import lens as tf
from lens.events.debug_events.data import DebugData
from lens.events.records import iter_records
from lens.proto import debug_event_pb2


def test_eager_ops_become_executions_with_values_and_code(eager_mode, tmp_path):
    root = str(tmp_path / "dump")
    tf.debugging.experimental.enable_dump_debug_info(root, "FULL_TENSOR", circular_buffer_size=-1)
    try:
        x = tf.constant([[1.0, -2.0]])
        y = tf.nn.relu(tf.matmul(x, tf.constant([[3.0], [4.0]])) + 1.0)
    finally:
        tf.debugging.experimental.disable_dump_debug_info()
    assert y.numpy().tolist() == [[0.0]]
    data = DebugData(root)
    data.update()
    assert [e[2] for e in data.executions] == ["Const", "Const", "MatMul", "Const", "AddV2", "Relu"] or \
        [e[2] for e in data.executions] == ["Const", "Const", "MatMul", "Const", "Add", "Relu"]
    path = data.files.files["execution"].path
    events = [debug_event_pb2.DebugEvent.FromString(r).execution for r in iter_records(path)]
    matmul, relu = events[2], events[5]
    assert list(matmul.input_tensor_ids) == [events[0].output_tensor_ids[0], events[1].output_tensor_ids[0]]
    from lens.proto import tensor_util
    np.testing.assert_array_equal(tensor_util.make_ndarray(matmul.tensor_protos[0]), [[-5.0]])
    np.testing.assert_array_equal(tensor_util.make_ndarray(relu.tensor_protos[0]), [[0.0]])
    frames = [data.stack_frames[f] for f in relu.code_location.stack_frame_ids]
    assert frames[-1][1] == __file__ and frames[-1][3] == "test_eager_ops_become_executions_with_values_and_code"
