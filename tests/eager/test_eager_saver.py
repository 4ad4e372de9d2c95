"""tf.train.Saver while executing eagerly: TF1's save(None, prefix) / restore(None, prefix)."""
import numpy as np
import pytest

import lens as tf
from lens.training.bundle import BundleReader


def test_save_restore_round_trip_in_the_tensor_bundle_format(eager_mode, tmp_path):
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="w")
    step = tf.Variable(7, dtype=tf.int64, name="step")
    saver = tf.train.Saver([w, step], max_to_keep=2)
    prefixes = [saver.save(None, str(tmp_path / "model"), global_step=i) for i in range(3)]
    assert saver.last_checkpoints == prefixes[1:]
    assert not (tmp_path / "model-0.index").exists()
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefixes[-1]
    reader = BundleReader(prefixes[-1])
    assert reader.names() == ["step", "w"]
    w.assign(tf.zeros([2, 3]))
    step.assign_add(1)
    saver.restore(None, prefixes[-1])
    np.testing.assert_array_equal(w.numpy(), np.arange(6).reshape(2, 3))
    assert int(step) == 7
    other = tf.Variable(tf.zeros([3, 2]), name="w")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Restoring w"):
        tf.train.Saver({"w": other}).restore(None, prefixes[-1])
    assert other.numpy().sum() == 0
    with pytest.raises(tf.errors.NotFoundError, match="Key missing not found"):
        tf.train.Saver({"missing": other}).restore(None, prefixes[-1])
    with pytest.raises(RuntimeError, match="var_list"):
        tf.train.Saver()
