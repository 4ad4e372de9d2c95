"""tf.lookup / tf.contrib.lookup: vocabulary tables, tables_initializer, unknown keys, TF's errors."""
import pytest

import lens as tf


@pytest.fixture
def vocab_file(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("emerson\nlake\npalmer\n")
    return str(path)


def test_static_hash_table_names_and_defaults():
    with tf.Graph().as_default():
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "b"], [1, 2],
                                                                              value_dtype=tf.int64), -1)
        out = table.lookup(tf.constant(["a", "c", "b"]))
        assert table.resource_handle.name == "hash_table:0" and table.resource_handle.dtype == tf.resource
        assert out.name == "hash_table_Lookup/LookupTableFindV2:0" and out.shape.as_list() == [3]
        assert table.size().name == "hash_table_Size/LookupTableSizeV2:0"
        assert [op.name for op in tf.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)] == \
            ["key_value_init/LookupTableImportV2"]
        init = tf.tables_initializer()
        assert init.name == "init_all_tables" and init.type == "NoOp"
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="Table not initialized"):
                sess.run(out)
            sess.run(init)
            sess.run(init)                      # initializing twice is harmless, as in TF
            assert sess.run(out).tolist() == [1, -1, 2]
        with pytest.raises(TypeError, match="Dtype of argument `keys` must be <dtype: 'string'>"):
            table.lookup(tf.constant([1, 2]))


def test_duplicate_keys_fail_at_initialization():
    with tf.Graph().as_default():
        tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer(["a", "a"], [1, 2], value_dtype=tf.int64), -1)
        with tf.Session() as sess, pytest.raises(tf.errors.FailedPreconditionError,
                                                 match="Key a has 1 and trying to add value 2"):
            sess.run(tf.tables_initializer())


def test_vocabulary_tables_from_tensors_and_files(vocab_file):
    with tf.Graph().as_default():
        ids = tf.contrib.lookup.index_table_from_tensor(["x", "y"], num_oov_buckets=3)
        names = tf.contrib.lookup.index_to_string_table_from_tensor(["x", "y"])
        from_file = tf.contrib.lookup.index_table_from_file(vocab_file)
        back = tf.contrib.lookup.index_to_string_table_from_file(vocab_file, default_value="?")
        text = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            vocab_file, tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64, tf.lookup.TextFileIndex.LINE_NUMBER),
            -1)
        ints = tf.contrib.lookup.index_table_from_tensor(tf.constant([10, 20, 30], tf.int64), dtype=tf.int64)
        sparse = from_file.lookup(tf.SparseTensor([[0, 0], [1, 2]], ["palmer", "elp"], [2, 3]))
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            # Out-of-vocabulary buckets as recorded from TensorFlow 2.21 (FarmHash Fingerprint64 % 3 + 2).
            assert sess.run(ids.lookup(tf.constant(["x", "zz", "y", "qq"]))).tolist() == [0, 3, 1, 2]
            assert sess.run(ids.size()) == 5
            assert sess.run(names.lookup(tf.constant([0, 5, 1], tf.int64))).tolist() == [b"x", b"UNK", b"y"]
            assert sess.run(from_file.lookup(tf.constant(["lake", "nope"]))).tolist() == [1, -1]
            assert sess.run(back.lookup(tf.constant([2, 3], tf.int64))).tolist() == [b"palmer", b"?"]
            assert sess.run(text.lookup(tf.constant(["emerson"]))).tolist() == [0]
            assert sess.run(ints.lookup(tf.constant([30, 5], tf.int64))).tolist() == [2, -1]
            got = sess.run(sparse)
            assert isinstance(got, tf.SparseTensorValue) and got.values.tolist() == [2, -1]


def test_static_vocabulary_table_and_bad_arguments(vocab_file):
    with tf.Graph().as_default():
        init = tf.lookup.TextFileInitializer(vocab_file, tf.string, -2, tf.int64, -1)
        table = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=3)
        out = table.lookup(tf.constant(["palmer", "zz"]))
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            got = sess.run(out).tolist()
        assert got[0] == 2 and 3 <= got[1] < 6
        with pytest.raises(ValueError, match="num_oov_buckets must be greater or equal than 0"):
            tf.contrib.lookup.index_table_from_tensor(["a"], num_oov_buckets=-1)
        with pytest.raises(ValueError, match="vocabulary_file must be specified"):
            tf.contrib.lookup.index_table_from_file("")
        with pytest.raises(ValueError, match="Expected non-integer"):
            tf.contrib.lookup.index_table_from_tensor([1, 2])
        missing = tf.contrib.lookup.index_table_from_file(vocab_file + ".missing")
        with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError, match="missing"):
            sess.run(missing.initializer)


def test_monitored_training_session_initializes_tables():
    # TF1's Scaffold.default_local_init_op groups tables_initializer with the local variables.
    with tf.Graph().as_default():
        table = tf.contrib.lookup.index_table_from_tensor(["cat", "dog"], num_oov_buckets=1)
        ids = table.lookup(tf.constant(["dog", "cat", "cow"]))
        step = tf.train.get_or_create_global_step()
        with tf.train.MonitoredTrainingSession() as sess:
            assert sess.run(ids).tolist() == [1, 0, 2]
            assert sess.run(step) == 0
