"""Op-table rows: tf.nn activations, softmax, bias_add and losses (NumPy references written here)."""
import numpy as np

import lens as tf
from lens.framework.convert import apply_op
from lens.ops import nn
from optable_lib import AWAY0, FIX, F, Row

SELU_SCALE, SELU_ALPHA = 1.0507009873554805, 1.6732632423543772


def _act(op, fn, ref, away=AWAY0, lo=-3.0, hi=3.0):
    return Row(op, fn, ref, [[F(3, 4, lo=lo, hi=hi, away=away)], [F(6, lo=lo, hi=hi, away=away)]])


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis=-1):
    z = x - x.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def _xent(x, labels):
    return -(labels * _log_softmax(x)).sum(-1), _softmax(x) - labels


def _dist(lab):
    """Labels normalized to distributions (TF's xent gradient assumes each row sums to 1)."""
    return lab / tf.reduce_sum(lab, -1, keepdims=True)


def _np_dist(lab):
    return lab / lab.sum(-1, keepdims=True)


def _sparse_xent(x, labels):
    return _xent(x, np.eye(x.shape[-1], dtype=x.dtype)[labels])


def _sig_xent(z, x):
    return np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))


ROWS = [
    _act("Relu", nn.relu, lambda x: np.maximum(x, 0)),
    Row("ReluGrad", nn.relu_grad, lambda g, f: np.where(f > 0, g, 0), [[F(3, 4), F(3, 4, away=AWAY0)]]),
    _act("Relu6", nn.relu6, lambda x: np.clip(x, 0, 6), away=[(0.0, 0.1), (6.0, 0.1)], lo=-2.0, hi=8.0),
    _act("LeakyRelu", nn.leaky_relu, lambda x: np.where(x > 0, x, 0.2 * x)),
    Row("LeakyRelu", lambda x: nn.leaky_relu(x, alpha=0.01), lambda x: np.where(x > 0, x, 0.01 * x),
        [[F(5, away=AWAY0)]], label="LeakyRelu-alpha"),
    _act("Elu", nn.elu, lambda x: np.where(x > 0, x, np.expm1(x))),
    _act("Selu", nn.selu, lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    _act("Softplus", nn.softplus, lambda x: np.log1p(np.exp(x)), away=None),
    _act("Softsign", nn.softsign, lambda x: x / (1 + np.abs(x)), away=None),
    Row("Softmax", nn.softmax, _softmax, [[F(3, 4)], [F(5)], [F(2, 3, 4)]]),
    Row("Softmax", lambda x: nn.softmax(x, axis=0), lambda x: _softmax(x, 0), [[F(3, 4)]], label="Softmax-axis0"),
    Row("LogSoftmax", nn.log_softmax, _log_softmax, [[F(3, 4)], [F(2, 2, 3)]]),
    Row("LogSoftmax", lambda x: nn.log_softmax(x, axis=1), lambda x: _log_softmax(x, 1), [[F(2, 3, 2)]],
        label="LogSoftmax-axis1"),
    Row("BiasAdd", nn.bias_add, lambda x, b: x + b, [[F(2, 3), F(3)], [F(2, 2, 2, 3), F(3)]]),
    Row("BiasAdd", lambda x, b: nn.bias_add(x, b, data_format="NCHW"), lambda x, b: x + b[None, :, None, None],
        [[F(2, 3, 2, 2), F(3)]], label="BiasAdd-NCHW"),
    Row("BiasAddGrad", nn.bias_add_grad, lambda g: g.sum(axis=(0, 1)), [[F(2, 2, 3)]]),
    Row("BiasAddGrad", lambda g: nn.bias_add_grad(g, data_format="NCHW"), lambda g: g.sum(axis=(0, 2, 3)),
        [[F(2, 3, 2, 1)]], label="BiasAddGrad-NCHW"),
    Row("L2Loss", nn.l2_loss, lambda x: np.sum(x * x) / 2, [[F(3, 4)], [F()]]),
    # v2 differentiates both logits and labels; the table perturbs both.
    Row("SoftmaxCrossEntropyWithLogits", lambda lab, x: nn.softmax_cross_entropy_with_logits_v2(labels=_dist(lab), logits=x),
        lambda lab, x: _xent(x, _np_dist(lab))[0],
        [[F(3, 4, lo=0.1, hi=1.0), F(3, 4)], [F(2, 2, 3, lo=0.1, hi=1.0), F(2, 2, 3)]]),
    # The raw op with both outputs: the backprop output's own gradient (second order) is checked too.
    Row("SoftmaxCrossEntropyWithLogits",
        lambda x, lab: apply_op("SoftmaxCrossEntropyWithLogits", [(x, "features"), (_dist(lab), "labels")],
                                dtypes=[x.dtype.base_dtype] * 2),
        lambda x, lab: _xent(x, _np_dist(lab)), [[F(3, 4), F(3, 4, lo=0.1, hi=1.0)]], label="SoftmaxCrossEntropyWithLogits-raw"),
    Row("SparseSoftmaxCrossEntropyWithLogits",
        lambda x, lab: apply_op("SparseSoftmaxCrossEntropyWithLogits", [(x, "features"), (lab, "labels")],
                                dtypes=[x.dtype.base_dtype] * 2, same_dtype=False),
        _sparse_xent, [[F(3, 4), FIX([3, 0, 1], np.int32)]], label="SparseSoftmaxCrossEntropyWithLogits-raw"),
    Row("SparseSoftmaxCrossEntropyWithLogits",
        lambda x, lab: nn.sparse_softmax_cross_entropy_with_logits(labels=lab, logits=x),
        lambda x, lab: _sparse_xent(x.reshape(-1, 3), lab.ravel())[0].reshape(lab.shape),
        [[F(2, 2, 3), FIX([[2, 0], [1, 1]], np.int64)]]),
    # Compositions over registered ops (kept in the table so their gradients are checked).
    Row("Select", lambda z, x: nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x), _sig_xent,
        [[F(3, 4, lo=0.0, hi=1.0), F(3, 4, away=AWAY0)]], label="sigmoid_cross_entropy_with_logits"),
    Row("Relu", lambda z, x: nn.weighted_cross_entropy_with_logits(labels=z, logits=x, pos_weight=2.5),
        lambda z, x: 2.5 * z * np.log1p(np.exp(-x)) + (1 - z) * np.log1p(np.exp(x)),
        [[F(3, 4, lo=0.0, hi=1.0), F(3, 4, away=AWAY0)]], label="weighted_cross_entropy_with_logits"),
    Row("Mean", lambda x: list(nn.moments(x, [0, 1])), lambda x: [x.mean((0, 1)), x.var((0, 1))], [[F(3, 2, 2)]],
        label="moments"),
    Row("Rsqrt", lambda x: nn.l2_normalize(x, axis=1), lambda x: x / np.sqrt((x * x).sum(1, keepdims=True)),
        [[F(3, 4, away=AWAY0)]], label="l2_normalize"),
    Row("Minimum", lambda x: tf.clip_by_value(x, -0.5, 1.0), lambda x: np.clip(x, -0.5, 1.0),
        [[F(3, 4, away=[(-0.5, 0.05), (1.0, 0.05)])]], label="clip_by_value"),
    Row("Less", lambda n: tf.sequence_mask(n, 4), lambda n: np.arange(4) < n[:, None],
        [[FIX([1, 3, 0], np.int32)]], grad=False, label="sequence_mask"),
    Row("GatherV2", lambda x, m: tf.boolean_mask(x, m), lambda x, m: x[m],
        [[F(3, 2), FIX([True, False, True])], [F(2, 3, 2), FIX([[True, False, True], [False, True, True]])]],
        label="boolean_mask"),
]
