"""Gradient graphs name their nodes as TF1.15's do (tfdbg listings compare with TensorFlow's).

EXPECTED holds TF1.15's names and op types under gradients/ for d(sum(expr))/dx, x: float32 [2, 3]
(facts read from r1.15's math_grad.py, nn_grad.py, array_grad.py and gradients_util.py; see
fixtures/record_grad_names_tf.py for the TF 2.x side and where it differs from TF1.15).
"""
import importlib.util
import os

import numpy as np
import pytest

import lens as tf

_spec = importlib.util.spec_from_file_location(
    "record_grad_names_tf", os.path.join(os.path.dirname(__file__), "fixtures", "record_grad_names_tf.py"))
_rec = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_rec)

# TF1.15's default grad_ys: gradients/Shape (a Const: the shape is static), grad_ys_0, Fill.
SEED = [("Fill", "Fill"), ("Shape", "Const"), ("grad_ys_0", "Const")]
# The Sum that makes the loss a scalar: TF1.15's _SumGrad fast path, Reshape to ones then Tile.
LOSS = [("loss_grad/Const", "Const"), ("loss_grad/Reshape", "Reshape"), ("loss_grad/Reshape/shape", "Const"),
        ("loss_grad/Tile", "Tile")]

# case -> (whether the loss Sum's gradient is in the graph, the op's own gradient nodes)
EXPECTED = {
    'log': (True, [
        ('Log_grad/Reciprocal', 'Reciprocal'), ('Log_grad/mul', 'Mul'),
    ]),
    'exp': (True, [
        ('Exp_grad/mul', 'Mul'),
    ]),
    'sigmoid': (True, [
        ('Sigmoid_grad/SigmoidGrad', 'SigmoidGrad'),
    ]),
    'tanh': (True, [
        ('Tanh_grad/TanhGrad', 'TanhGrad'),
    ]),
    'sqrt': (True, [
        ('Sqrt_grad/SqrtGrad', 'SqrtGrad'), ('add_grad/Reshape', 'Reshape'),
        ('add_grad/Reshape/shape', 'Const'), ('add_grad/Sum', 'Sum'),
        ('add_grad/Sum/reduction_indices', 'Const'),
    ]),
    'rsqrt': (True, [
        ('Rsqrt_grad/RsqrtGrad', 'RsqrtGrad'), ('add_grad/Reshape', 'Reshape'),
        ('add_grad/Reshape/shape', 'Const'), ('add_grad/Sum', 'Sum'),
        ('add_grad/Sum/reduction_indices', 'Const'),
    ]),
    'reciprocal': (True, [
        ('Reciprocal_grad/ReciprocalGrad', 'ReciprocalGrad'), ('add_grad/Reshape', 'Reshape'),
        ('add_grad/Reshape/shape', 'Const'), ('add_grad/Sum', 'Sum'),
        ('add_grad/Sum/reduction_indices', 'Const'),
    ]),
    'relu': (True, [
        ('Relu_grad/ReluGrad', 'ReluGrad'),
    ]),
    'square': (True, [
        ('Square_grad/Const', 'Const'), ('Square_grad/Mul', 'Mul'), ('Square_grad/Mul_1', 'Mul'),
    ]),
    'softmax': (True, [
        ('Softmax_grad/Sum', 'Sum'), ('Softmax_grad/Sum/reduction_indices', 'Const'),
        ('Softmax_grad/mul', 'Mul'), ('Softmax_grad/mul_1', 'Mul'), ('Softmax_grad/sub', 'Sub'),
    ]),
    'log_softmax': (True, [
        ('LogSoftmax_grad/Exp', 'Exp'), ('LogSoftmax_grad/Sum', 'Sum'),
        ('LogSoftmax_grad/Sum/reduction_indices', 'Const'), ('LogSoftmax_grad/mul', 'Mul'),
        ('LogSoftmax_grad/sub', 'Sub'),
    ]),
    'add_same': (True, [

    ]),
    'add_bcast': (True, [
        ('add_grad/Reshape', 'Reshape'), ('add_grad/Reshape/shape', 'Const'), ('add_grad/Sum', 'Sum'),
        ('add_grad/Sum/reduction_indices', 'Const'),
    ]),
    'sub_same': (True, [
        ('sub_grad/Neg', 'Neg'),
    ]),
    'mul_same': (True, [
        ('mul_grad/Mul', 'Mul'), ('mul_grad/Mul_1', 'Mul'),
    ]),
    'mul_bcast': (True, [
        ('mul_grad/Mul', 'Mul'), ('mul_grad/Mul_1', 'Mul'), ('mul_grad/Reshape', 'Reshape'),
        ('mul_grad/Reshape/shape', 'Const'), ('mul_grad/Sum', 'Sum'),
        ('mul_grad/Sum/reduction_indices', 'Const'),
    ]),
    'div_same': (True, [
        ('truediv_grad/BroadcastGradientArgs', 'BroadcastGradientArgs'), ('truediv_grad/Neg', 'Neg'),
        ('truediv_grad/RealDiv', 'RealDiv'), ('truediv_grad/RealDiv_1', 'RealDiv'),
        ('truediv_grad/RealDiv_2', 'RealDiv'), ('truediv_grad/Reshape', 'Reshape'),
        ('truediv_grad/Reshape_1', 'Reshape'), ('truediv_grad/Shape', 'Const'),
        ('truediv_grad/Shape_1', 'Const'), ('truediv_grad/Sum', 'Sum'), ('truediv_grad/Sum_1', 'Sum'),
        ('truediv_grad/mul', 'Mul'),
    ]),
    'matmul': (True, [
        ('MatMul_grad/MatMul', 'MatMul'), ('MatMul_grad/MatMul_1', 'MatMul'),
    ]),
    'reduce_sum': (False, [
        ('Sum_grad/Const', 'Const'), ('Sum_grad/Reshape', 'Reshape'), ('Sum_grad/Reshape/shape', 'Const'),
        ('Sum_grad/Tile', 'Tile'),
    ]),
    'reduce_mean': (False, [
        ('Mean_grad/Const', 'Const'), ('Mean_grad/Const_1', 'Const'), ('Mean_grad/Reshape', 'Reshape'),
        ('Mean_grad/Reshape/shape', 'Const'), ('Mean_grad/Tile', 'Tile'), ('Mean_grad/truediv', 'RealDiv'),
    ]),
    'reduce_mean_ax': (True, [
        ('Mean_grad/Const', 'Const'), ('Mean_grad/Reshape', 'Reshape'), ('Mean_grad/Reshape/shape', 'Const'),
        ('Mean_grad/Tile', 'Tile'), ('Mean_grad/Tile/multiples', 'Const'), ('Mean_grad/truediv', 'RealDiv'),
    ]),
    'abs': (True, [
        ('Abs_grad/Sign', 'Sign'), ('Abs_grad/mul', 'Mul'),
    ]),
    'neg': (True, [
        ('Neg_grad/Neg', 'Neg'),
    ]),
    'l2_loss': (False, [
        ('L2Loss_grad/mul', 'Mul'),
    ]),
    'squared_difference': (True, [
        ('SquaredDifference_grad/Mul', 'Mul'), ('SquaredDifference_grad/Neg', 'Neg'),
        ('SquaredDifference_grad/mul_1', 'Mul'), ('SquaredDifference_grad/scalar', 'Const'),
        ('SquaredDifference_grad/sub', 'Sub'),
    ]),
    'reshape': (True, [
        ('Reshape_grad/Reshape', 'Reshape'), ('Reshape_grad/Shape', 'Const'),
    ]),
    'expand': (True, [
        ('ExpandDims_grad/Reshape', 'Reshape'), ('ExpandDims_grad/Shape', 'Const'),
    ]),
    'tile': (True, [
        ('Tile_grad/Reshape', 'Reshape'), ('Tile_grad/Reshape/shape', 'Const'),
        ('Tile_grad/Reshape_1', 'Reshape'), ('Tile_grad/Shape', 'Const'), ('Tile_grad/Size', 'Const'),
        ('Tile_grad/Sum', 'Sum'), ('Tile_grad/range', 'Range'), ('Tile_grad/range/delta', 'Const'),
        ('Tile_grad/range/start', 'Const'), ('Tile_grad/stack', 'Pack'), ('Tile_grad/transpose', 'Transpose'),
        ('Tile_grad/transpose/perm', 'Const'),
    ]),
    'concat': (True, [
        ('concat_grad/ConcatOffset', 'ConcatOffset'), ('concat_grad/Rank', 'Const'), ('concat_grad/Shape', 'Const'),
        ('concat_grad/Shape_1', 'Const'), ('concat_grad/Slice', 'Slice'), ('concat_grad/Slice_1', 'Slice'),
        ('concat_grad/mod', 'FloorMod'),
    ]),
    'gather': (True, [   # axis 0: IndexedSlices of Reshape'd grad; TF1.15 casts the int64 Shape to int32
        ('GatherV2_grad/Cast', 'Cast'), ('GatherV2_grad/ExpandDims', 'ExpandDims'),
        ('GatherV2_grad/ExpandDims/dim', 'Const'), ('GatherV2_grad/Reshape', 'Reshape'),
        ('GatherV2_grad/Reshape_1', 'Reshape'), ('GatherV2_grad/Shape', 'Const'), ('GatherV2_grad/Size', 'Const'),
        ('GatherV2_grad/concat', 'ConcatV2'), ('GatherV2_grad/concat/axis', 'Const'),
        ('GatherV2_grad/strided_slice', 'StridedSlice'), ('GatherV2_grad/strided_slice/stack', 'Const'),
        ('GatherV2_grad/strided_slice/stack_1', 'Const'), ('GatherV2_grad/strided_slice/stack_2', 'Const'),
    ]),
    'slice': (True, [   # the forward op's begin/end/strides are reused
        ('strided_slice_grad/Shape', 'Const'), ('strided_slice_grad/StridedSliceGrad', 'StridedSliceGrad'),
    ]),
    'pow': (True, [
        ('Pow_grad/Greater', 'Greater'), ('Pow_grad/Greater/y', 'Const'), ('Pow_grad/Log', 'Log'),
        ('Pow_grad/Pow', 'Pow'), ('Pow_grad/Reshape', 'Reshape'), ('Pow_grad/Reshape/shape', 'Const'),
        ('Pow_grad/Select', 'Select'), ('Pow_grad/Select_1', 'Select'), ('Pow_grad/Sum', 'Sum'),
        ('Pow_grad/Sum/reduction_indices', 'Const'), ('Pow_grad/mul', 'Mul'), ('Pow_grad/mul_1', 'Mul'),
        ('Pow_grad/mul_2', 'Mul'), ('Pow_grad/mul_3', 'Mul'), ('Pow_grad/ones_like', 'Fill'),
        ('Pow_grad/ones_like/Const', 'Const'), ('Pow_grad/ones_like/Shape', 'Const'), ('Pow_grad/sub', 'Sub'),
        ('Pow_grad/sub/y', 'Const'), ('Pow_grad/zeros_like', 'Const'), ('add_grad/Reshape', 'Reshape'),
        ('add_grad/Reshape/shape', 'Const'), ('add_grad/Sum', 'Sum'),
        ('add_grad/Sum/reduction_indices', 'Const'),
    ]),
    'sigmoid_xent': (True, [
        ('AddN', 'AddN'), ('logistic_loss/Exp_grad/mul', 'Mul'),
        ('logistic_loss/Log1p_grad/Reciprocal', 'Reciprocal'), ('logistic_loss/Log1p_grad/add', 'AddV2'),
        ('logistic_loss/Log1p_grad/add/x', 'Const'), ('logistic_loss/Log1p_grad/mul', 'Mul'),
        ('logistic_loss/Neg_grad/Neg', 'Neg'), ('logistic_loss/Select_1_grad/Select', 'Select'),
        ('logistic_loss/Select_1_grad/Select_1', 'Select'),
        ('logistic_loss/Select_1_grad/zeros_like', 'Const'), ('logistic_loss/Select_grad/Select', 'Select'),
        ('logistic_loss/Select_grad/Select_1', 'Select'), ('logistic_loss/Select_grad/zeros_like', 'Const'),
        ('logistic_loss/mul_grad/Mul', 'Mul'), ('logistic_loss/mul_grad/Mul_1', 'Mul'),
        ('logistic_loss/sub_grad/Neg', 'Neg'),
    ]),
    'transpose': (True, [
        ('transpose_grad/InvertPermutation', 'InvertPermutation'), ('transpose_grad/transpose', 'Transpose'),
    ]),
    'bias_add': (True, [
        ('BiasAdd_grad/BiasAddGrad', 'BiasAddGrad'),
    ]),
    'cast': (True, [
        ('Cast_1_grad/Cast', 'Cast'), ('Cast_grad/Cast', 'Cast'),
    ]),
    'xent': (True, [
        ('softmax_cross_entropy_with_logits/Reshape_2_grad/Reshape', 'Reshape'),
        ('softmax_cross_entropy_with_logits/Reshape_2_grad/Shape', 'Const'),
        ('softmax_cross_entropy_with_logits/Reshape_grad/Reshape', 'Reshape'),
        ('softmax_cross_entropy_with_logits/Reshape_grad/Shape', 'Const'),
        ('softmax_cross_entropy_with_logits_grad/ExpandDims', 'ExpandDims'),
        ('softmax_cross_entropy_with_logits_grad/ExpandDims/dim', 'Const'),
        ('softmax_cross_entropy_with_logits_grad/ExpandDims_1', 'ExpandDims'),
        ('softmax_cross_entropy_with_logits_grad/ExpandDims_1/dim', 'Const'),
        ('softmax_cross_entropy_with_logits_grad/LogSoftmax', 'LogSoftmax'),
        ('softmax_cross_entropy_with_logits_grad/Neg', 'Neg'),
        ('softmax_cross_entropy_with_logits_grad/mul', 'Mul'),
        ('softmax_cross_entropy_with_logits_grad/mul_1', 'Mul'), ('zeros_like', 'ZerosLike'),
    ]),
    'sparse_xent': (True, [

        ('SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits_grad/ExpandDims', 'ExpandDims'),
        ('SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits_grad/ExpandDims/dim', 'Const'),
        ('SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits_grad/mul', 'Mul'),
        ('zeros_like', 'ZerosLike'),
    ]),
    'maximum': (True, [
        ('Maximum_grad/BroadcastGradientArgs', 'BroadcastGradientArgs'),
        ('Maximum_grad/GreaterEqual', 'GreaterEqual'), ('Maximum_grad/Reshape', 'Reshape'),
        ('Maximum_grad/Reshape_1', 'Reshape'), ('Maximum_grad/Select', 'Select'),
        ('Maximum_grad/Select_1', 'Select'), ('Maximum_grad/Shape', 'Const'),
        ('Maximum_grad/Shape_1', 'Const'), ('Maximum_grad/Shape_2', 'Const'), ('Maximum_grad/Sum', 'Sum'),
        ('Maximum_grad/Sum_1', 'Sum'), ('Maximum_grad/zeros', 'Fill'), ('Maximum_grad/zeros/Const', 'Const'),
    ]),
    'dropout_like': (True, [
        ('mul_grad/Mul', 'Mul'), ('mul_grad/Mul_1', 'Mul'),
    ]),
}


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_gradient_node_names_match_tf115(case):
    has_loss, own = EXPECTED[case]
    want = sorted("gradients/%s %s" % nt for nt in SEED + (LOSS if has_loss else []) + own)
    assert _rec.grad_names(tf, _rec.CASES[case]) == want


def test_static_broadcast_gradient_reduces_only_the_broadcast_side():
    # TF1.15's SmartBroadcastGradientArgs: x's gradient is the incoming one, b's a Sum + Reshape.
    x = tf.placeholder(tf.float32, [2, 3])
    b = tf.placeholder(tf.float32, [3])
    gx, gb = tf.gradients(tf.reduce_sum((x + b) * 2.0), [x, b])
    xv, bv = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones(3, np.float32)
    with tf.Session() as sess:
        vx, vb = sess.run([gx, gb], {x: xv, b: bv})
    np.testing.assert_array_equal(vx, np.full((2, 3), 2, np.float32))
    np.testing.assert_array_equal(vb, np.full(3, 4, np.float32))
    assert gb.op.type == "Reshape" and gb.op.inputs[0].op.type == "Sum"


def test_dynamic_shapes_keep_shape_and_broadcast_gradient_args():
    # Unknown shapes: Shape, Shape_1, BroadcastGradientArgs, Sum, Reshape, Sum_1, Reshape_1 (values as numpy).
    x = tf.placeholder(tf.float32, [None, 3])
    b = tf.placeholder(tf.float32, [3])
    gx, gb = tf.gradients(tf.reduce_mean(x * b), [x, b])
    names = {op.name for op in tf.get_default_graph().get_operations()}
    assert {"gradients/mul_grad/Shape", "gradients/mul_grad/BroadcastGradientArgs",
            "gradients/mul_grad/Sum_1", "gradients/mul_grad/Reshape_1"} <= names
    xv = np.arange(12, dtype=np.float32).reshape(4, 3)
    bv = np.array([1, 2, 3], np.float32)
    with tf.Session() as sess:
        vx, vb = sess.run([gx, gb], {x: xv, b: bv})
    np.testing.assert_allclose(vx, np.broadcast_to(bv / 12, (4, 3)), rtol=1e-6)
    np.testing.assert_allclose(vb, xv.sum(0) / 12, rtol=1e-6)


def test_concat_gradient_slices_by_concat_offset_for_unknown_shapes_and_negative_axis():
    a = tf.placeholder(tf.float32, [None, 2])
    b = tf.placeholder(tf.float32, [None, 3])
    w = tf.constant(np.arange(5, dtype=np.float32))
    ga, gb = tf.gradients(tf.reduce_sum(tf.concat([a, b], -1) * w), [a, b])
    with tf.Session() as sess:
        va, vb = sess.run([ga, gb], {a: np.ones((4, 2), np.float32), b: np.ones((4, 3), np.float32)})
    np.testing.assert_array_equal(va, np.tile([0, 1], (4, 1)))
    np.testing.assert_array_equal(vb, np.tile([2, 3, 4], (4, 1)))
