"""lens.events.checkpoints reads TensorFlow- and lens-written tensor bundles without the engine."""

import os

import numpy as np
import pytest

import lens as tf
from lens.events.checkpoints import bundle, table

TF_RUN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "board", "fixtures",
                      "projector_logdir", "tf_ckpt")


def test_reads_a_tensorflow_checkpoint_as_lens_training_does():
    prefix = bundle.latest_checkpoint(TF_RUN)
    assert prefix == os.path.join(TF_RUN, "model.ckpt")
    ours = bundle.BundleIndex(prefix)
    reference = tf.train.load_checkpoint(prefix)
    assert ours.variable_to_shape_map() == reference.get_variable_to_shape_map()
    for name in ("tf_embedding", "tf_embedding_f64"):
        np.testing.assert_array_equal(ours.get_tensor(name), reference.get_tensor(name))


def test_reads_a_lens_checkpoint(tmp_path):
    value = np.arange(12, dtype=np.float32).reshape(4, 3)
    with tf.Graph().as_default():
        tf.Variable(value, name="emb")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, str(tmp_path / "m.ckpt"), global_step=2)
    prefix = bundle.latest_checkpoint(str(tmp_path))
    assert prefix.endswith("m.ckpt-2")
    np.testing.assert_array_equal(bundle.BundleIndex(prefix).get_tensor("emb"), value)


def test_damage_is_a_clear_error(tmp_path):
    with pytest.raises(bundle.CheckpointError, match="not found"):
        bundle.BundleIndex(str(tmp_path / "none"))
    assert bundle.latest_checkpoint(str(tmp_path)) is None
    reader = bundle.BundleIndex(os.path.join(TF_RUN, "model.ckpt"))
    with pytest.raises(bundle.CheckpointError, match="'nope' not found"):
        reader.get_tensor("nope")
    data = bytearray(open(os.path.join(TF_RUN, "model.ckpt.index"), "rb").read())
    data[-1] ^= 0xFF
    with pytest.raises(table.TableError, match="magic"):
        table.read_table(bytes(data))
    corrupt = tmp_path / "c"
    (tmp_path / "c.index").write_bytes(open(os.path.join(TF_RUN, "model.ckpt.index"), "rb").read())
    blob = bytearray(open(os.path.join(TF_RUN, "model.ckpt.data-00000-of-00001"), "rb").read())
    blob[0] ^= 0xFF
    (tmp_path / "c.data-00000-of-00001").write_bytes(bytes(blob))
    reader = bundle.BundleIndex(str(corrupt))
    first = min(reader.entries, key=lambda n: reader.entries[n].offset)
    with pytest.raises(bundle.CheckpointError, match="checksum"):
        reader.get_tensor(first)
