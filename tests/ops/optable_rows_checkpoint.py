"""Op-table rows for TF's checkpoint ops (SaveV2, RestoreV2, ShardedFilename, MergeV2Checkpoints,
StaticRegexFullMatch): each writes or reads real files and checks them with NumPy."""
import os
import tempfile

import numpy as np

import lens as tf
from lens.training import bundle, io_ops
from optable_lib import custom


def _check_save_and_restore():
    d = tempfile.mkdtemp()
    prefix = os.path.join(d, "ck")
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Graph().as_default():
        save = io_ops.save_v2(prefix, ["b", "w"], ["", ""], [tf.constant([True, False]), tf.constant(w)])
        restored = io_ops.restore_v2(prefix, ["w", "b"], ["", ""], [tf.float32, tf.bool])
        with tf.Session() as sess:
            sess.run(save)
            got_w, got_b = sess.run(restored)
    np.testing.assert_array_equal(got_w, w)
    assert got_b.dtype == np.bool_ and list(got_b) == [True, False]
    assert bundle.BundleReader(prefix).names() == ["b", "w"]


def _check_sharded_filename():
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(io_ops.sharded_filename("run/part", 3, 12))
    assert got == b"run/part-00003-of-00012"


def _check_merge():
    d = tempfile.mkdtemp()
    parts = [os.path.join(d, "tmp", "part-%05d-of-00002" % i) for i in range(2)]
    os.makedirs(os.path.join(d, "tmp"))
    bundle.write_bundle(parts[0], [("a", np.ones(2))])
    bundle.write_bundle(parts[1], [("b", np.zeros(3, np.int32))])
    dest = os.path.join(d, "merged")
    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(io_ops.merge_v2_checkpoints(parts, dest))
    reader = bundle.BundleReader(dest)
    assert reader.header.num_shards == 2 and reader.names() == ["a", "b"]
    values = reader.read(["a", "b"])
    assert list(values["a"]) == [1.0, 1.0] and list(values["b"]) == [0, 0, 0]
    assert not os.path.exists(os.path.join(d, "tmp"))         # delete_old_dirs


def _check_static_regex():
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.constant([b"s3://bucket/x", b"/local/s3://", b"s3://"])
        op = tf.get_default_graph().create_op("StaticRegexFullMatch", [x], [tf.bool], attrs={"pattern": "^s3://.*"})
        got = sess.run(op.outputs[0])
    assert list(got) == [True, False, True]


ROWS = [
    custom("SaveV2", _check_save_and_restore),
    custom("RestoreV2", _check_save_and_restore),
    custom("ShardedFilename", _check_sharded_filename),
    custom("MergeV2Checkpoints", _check_merge),
    custom("StaticRegexFullMatch", _check_static_regex),
]
