"""A stand-in for tensorflow.examples.tutorials.mnist.input_data: learnable synthetic digits.

Images are 784 floats in [0, 1]; the label of an image is the argmax of a fixed random linear
map of it, so a linear model can learn it (as it learns MNIST).
"""
import collections

import numpy as np

_DataSet = collections.namedtuple("_DataSet", "images labels num_examples")
_Datasets = collections.namedtuple("_Datasets", "train test")


def _make(rng, proj, n, one_hot):
    images = rng.uniform(0, 1, size=(n, 784)).astype(np.float32)
    labels = np.argmax(images @ proj, axis=1).astype(np.int64)
    if one_hot:
        labels = np.eye(10, dtype=np.float32)[labels]
    return _DataSet(images, labels, n)


def read_data_sets(train_dir, one_hot=False, n_train=2000, n_test=500):
    """Train and test sets shaped as MNIST's (labels as class ids, or one-hot)."""
    rng = np.random.RandomState(0)
    proj = rng.normal(size=(784, 10)).astype(np.float32)
    return _Datasets(_make(rng, proj, n_train, one_hot), _make(rng, proj, n_test, one_hot))
