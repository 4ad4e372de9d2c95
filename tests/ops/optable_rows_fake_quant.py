"""Op-table rows: the fake-quantization ops and their gradient ops against TensorFlow's recorded values."""
import pathlib

import numpy as np

import lens as tf
from lens.ops import fake_quant as Q
from optable_lib import custom

_REC = np.load(pathlib.Path(__file__).resolve().parent / "fixtures" / "fake_quant_tf.npz")
X, G = _REC["x"], _REC["g"]


def _run(build):
    with tf.Graph().as_default(), tf.Session() as s:
        return s.run(build())


def _flat(vs):
    return np.concatenate([np.ravel(v) for v in vs])


def _check():
    def build():
        xt, lo, hi = tf.constant(X), tf.constant(-2.5), tf.constant(4.0)
        y = Q.fake_quant_with_min_max_vars(xt, lo, hi)
        return {
            "args": Q.fake_quant_with_min_max_args(X, -3.7, 5.1, num_bits=5),
            "args_narrow": Q.fake_quant_with_min_max_args(X, 0.3, 2.0, num_bits=8, narrow_range=True),
            "args_grad": Q.fake_quant_with_min_max_args_gradient(G, X, -3.7, 5.1, num_bits=5),
            "vars": Q.fake_quant_with_min_max_vars(X, -2.5, 4.0, num_bits=6),
            "vars_grad": list(Q.fake_quant_with_min_max_vars_gradient(G, X, -2.5, 4.0, num_bits=6)),
            "pc": Q.fake_quant_with_min_max_vars_per_channel(X, [-1.0, -3.0, 0.5], [2.0, 3.3, 6.0]),
            "pc_grad": list(Q.fake_quant_with_min_max_vars_per_channel_gradient(
                G, X, [-1.0, -3.0, 0.5], [2.0, 3.3, 6.0], narrow_range=True)),
            "autograd": tf.gradients(tf.reduce_sum(y * G), [xt, lo, hi])}
    got = _run(build)
    for k, v in got.items():
        np.testing.assert_allclose(_flat(v) if isinstance(v, list) else v, _REC[k], rtol=1e-6, atol=1e-6, err_msg=k)


ROWS = [custom(op, _check) for op in (
    "FakeQuantWithMinMaxArgs", "FakeQuantWithMinMaxArgsGradient", "FakeQuantWithMinMaxVars",
    "FakeQuantWithMinMaxVarsGradient", "FakeQuantWithMinMaxVarsPerChannel", "FakeQuantWithMinMaxVarsPerChannelGradient")]
