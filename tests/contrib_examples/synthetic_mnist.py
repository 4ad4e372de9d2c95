"""A stand-in for tensorflow.examples.tutorials.mnist.input_data: ten separable blobs of digits.

Each class has a fixed random prototype image in [0, 1]; an example is its class prototype plus
small noise, so clustering finds the classes and trees separate them (as they do on MNIST).
"""
import collections

import numpy as np

_Datasets = collections.namedtuple("_Datasets", "train test")


class _DataSet:
    """images, labels and MNIST's next_batch (a shuffled pass, then the next)."""

    def __init__(self, images, labels, seed):
        self.images, self.labels, self.num_examples = images, labels, len(images)
        self._rng = np.random.RandomState(seed)
        self._order, self._pos = self._rng.permutation(self.num_examples), 0

    def next_batch(self, batch_size):
        if self._pos + batch_size > self.num_examples:
            self._order, self._pos = self._rng.permutation(self.num_examples), 0
        rows = self._order[self._pos:self._pos + batch_size]
        self._pos += batch_size
        return self.images[rows], self.labels[rows]


def _make(rng, protos, n, one_hot, seed):
    ids = rng.randint(0, 10, size=n)
    images = np.clip(protos[ids] + rng.normal(0, 0.15, size=(n, 784)), 0, 1).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[ids] if one_hot else ids.astype(np.int64)
    return _DataSet(images, labels, seed)


def read_data_sets(train_dir, one_hot=False, n_train=2000, n_test=500, **unused):
    """Train and test sets shaped as MNIST's (labels as class ids, or one-hot)."""
    rng = np.random.RandomState(0)
    protos = rng.uniform(0, 1, size=(10, 784))
    return _Datasets(_make(rng, protos, n_train, one_hot, 1), _make(rng, protos, n_test, one_hot, 2))
