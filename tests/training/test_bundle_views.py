"""Restoring maps the data file once: variables adopt CRC-checked read-only views of it (no copy), and
every in-place update copies the view first, so training after a restore never writes the checkpoint."""
import mmap

import numpy as np
import pytest

import lens as tf
from lens.events.checkpoints import bundle as reader
from lens.training import bundle


def _saved(tmp_path):
    w = np.arange(12, dtype=np.float32).reshape(3, 4)
    prefix = bundle.write_bundle(str(tmp_path / "m.ckpt"), [("w", w), ("s", np.array([b"a", b"bc"], object)),
                                                          ("i", np.arange(5, dtype=np.int64))])
    return prefix, w


def _root(arr):
    while isinstance(arr, np.ndarray):
        arr = arr.base
    return arr.obj if isinstance(arr, memoryview) else arr


def test_reads_are_checked_views_of_one_mapping(tmp_path):
    prefix, w = _saved(tmp_path)
    out = reader.BundleIndex(prefix).read(["w", "i", "s"])
    assert not out["w"].flags.writeable and out["w"].base is not None
    assert _root(out["w"]) is _root(out["i"]) and isinstance(_root(out["w"]), mmap.mmap)   # one mapping
    np.testing.assert_array_equal(out["w"], w)
    assert list(out["s"]) == [b"a", b"bc"]
    assert reader.BundleIndex(prefix).get_tensor("w").flags.writeable     # the projector gets a copy


def test_training_after_restore_copies_and_leaves_the_file_alone(tmp_path):
    prefix, w = _saved(tmp_path)
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros((3, 4), np.float32), name="w")
        c = tf.Variable(np.zeros(5, np.int64), name="i")
        loss = tf.reduce_sum(v * v)
        step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        saver = tf.train.Saver({"w": v, "i": c})
        with tf.Session() as s:
            saver.restore(s, prefix)
            np.testing.assert_array_equal(s.run(v), w)
            s.run(step)
            s.run([tf.assign_add(c, np.ones(5, np.int64)), tf.scatter_add(c, [0], [10])])
            np.testing.assert_allclose(s.run(v), w * 0.8, rtol=1e-6)
            np.testing.assert_array_equal(s.run(c), np.arange(5) + 1 + [10, 0, 0, 0, 0])
    again = reader.BundleIndex(prefix).read(["w", "i"])
    np.testing.assert_array_equal(again["w"], w)
    np.testing.assert_array_equal(again["i"], np.arange(5))


def test_corrupt_and_truncated_data_are_tf_errors(tmp_path):
    prefix, _ = _saved(tmp_path)
    path = bundle.data_path(prefix)
    blob = bytearray(open(path, "rb").read())
    blob[3] ^= 0xFF
    open(path, "wb").write(bytes(blob))
    with pytest.raises(tf.errors.DataLossError, match="Checksum does not match.*tensor i"):
        bundle.BundleReader(prefix).read(["i"])
    open(path, "wb").write(bytes(blob[:10]))
    with pytest.raises(tf.errors.DataLossError, match="tensor w needs bytes"):
        bundle.BundleReader(prefix).read(["w"])
