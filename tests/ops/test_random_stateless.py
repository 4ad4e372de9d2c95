"""tf.random.Algorithm: lens's stateless ops are Philox; other algorithms are refused, not ignored."""
import pytest

import lens as tf


def test_random_algorithm_is_philox_only():
    with tf.Graph().as_default():
        tf.random.experimental.stateless_split([1, 2], alg=tf.random.Algorithm.PHILOX)
        tf.random.fold_in([1, 2], 3, alg="auto_select")
        with pytest.raises(ValueError, match="Philox"):
            tf.random.split([1, 2], alg=tf.random.Algorithm.THREEFRY)
