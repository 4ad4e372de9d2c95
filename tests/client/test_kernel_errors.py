"""Run-time kernel failures say what TF1's kernels say (checked against TF 2.21's messages)."""
import numpy as np
import pytest

import lens as tf


def _run_error(build, feeds):
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, None, name="a")
        b = tf.placeholder(tf.float32, None, name="b")
        t = build(a, b)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(t, {a: np.zeros(feeds[0]), b: np.zeros(feeds[1])})
    return info.value


def test_matmul_size_mismatch():
    err = _run_error(lambda a, b: tf.matmul(a, b, name="mm"), [(2, 3), (4, 5)])
    assert err.message.startswith("Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]")
    assert err.op.name == "mm" and "[[node mm" in err.message


@pytest.mark.parametrize("shape, tail", [([2, 2], "the requested shape has 4"),
                                         ([-1, 2], "the requested shape requires a multiple of 2"),
                                         ([2, -1, 3], "the requested shape requires a multiple of 6")])
def test_reshape_size_mismatch(shape, tail):
    err = _run_error(lambda a, b: tf.reshape(a, tf.constant(shape)), [(5,), (1,)])
    assert err.message.startswith("Input to reshape is a tensor with 5 values, but " + tail)


def test_other_kernel_failures_keep_numpys_words_with_the_input_shapes():
    err = _run_error(lambda a, b: tf.py_func(lambda x, y: np.concatenate([x, y]), [a, b], tf.float32),
                     [(2, 3), (4,)])
    assert "input shapes: [2, 3], [4]" in err.message
