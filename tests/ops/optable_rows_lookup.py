"""Op-table rows: the hash-table ops (session-held tables), checked against Python dicts."""
import numpy as np

import lens as tf
from lens.ops import lookup_ops as L
from optable_lib import custom


def _check_import_find_size():
    keys, vals = [b"a", b"bb", b"c"], [3, -1, 7]
    with tf.Graph().as_default() as g:
        table = L.StaticHashTable(L.KeyValueTensorInitializer(keys, np.array(vals, np.int64)), -5)
        query = [b"c", b"zz", b"a", b"bb", b""]
        out, size = table.lookup(tf.constant(query)), table.size()
        types = {o.type for o in g.get_operations()}
        assert {"HashTableV2", "LookupTableImportV2", "LookupTableFindV2", "LookupTableSizeV2"} <= types
        with tf.Session() as sess:
            assert sess.run(size) == 0               # an uninitialized table is empty
            sess.run(tf.tables_initializer())
            got, n = sess.run([out, size])
    ref = dict(zip(keys, vals))
    assert got.dtype == np.int64 and got.tolist() == [ref.get(k, -5) for k in query] and n == 3


def _check_text_file(tmp="/tmp"):
    import os
    import tempfile
    d = tempfile.mkdtemp(dir=tmp)
    path = os.path.join(d, "vocab.tsv")
    with open(path, "w") as f:
        f.write("apple\t1.5\nbanana\t-2\ncherry\t0.25\n")
    with tf.Graph().as_default() as g:
        by_col = L.StaticHashTable(L.TextFileInitializer(path, tf.string, 0, tf.float32, 1), -1.0)
        by_line = L.StaticHashTable(L.TextFileInitializer(path, tf.int64, -1, tf.string, -2, vocab_size=2), "?")
        a = by_col.lookup(tf.constant(["banana", "kiwi", "cherry"]))
        b = by_line.lookup(tf.constant([0, 1, 2], tf.int64))
        assert "InitializeTableFromTextFileV2" in {o.type for o in g.get_operations()}
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            got_a, got_b = sess.run([a, b])
    np.testing.assert_array_equal(got_a, np.array([-2, -1, 0.25], np.float32))
    assert got_b.tolist() == [b"apple\t1.5", b"banana\t-2", b"?"]


ROWS = [custom(t, _check_import_find_size, label=t) for t in
        ("HashTableV2", "LookupTableImportV2", "LookupTableFindV2", "LookupTableSizeV2")]
ROWS += [custom("InitializeTableFromTextFileV2", _check_text_file)]


def _check_mutable_tables():
    from lens.ops.lookup_mutable import DenseHashTable, MutableHashTable
    with tf.Graph().as_default() as g:
        words = MutableHashTable(tf.string, tf.int64, -1)
        vecs = MutableHashTable(tf.int64, tf.float32, [0.0, 0.0])
        dense = DenseHashTable(tf.int64, tf.int64, -1, empty_key=0, deleted_key=-1)
        steps = [words.insert(["a", "b", "c"], tf.constant([1, 2, 3], tf.int64)), words.remove(["b", "zz"]),
                 words.insert(["a"], tf.constant([10], tf.int64)),
                 vecs.insert(tf.constant([5, 6], tf.int64), [[1.0, 2.0], [3.0, 4.0]]),
                 dense.insert(tf.constant([3, 4], tf.int64), tf.constant([30, 40], tf.int64)),
                 dense.remove(tf.constant([4], tf.int64))]
        keys, values = words.export()
        types = {o.type for o in g.get_operations()}
        assert {"MutableHashTableV2", "MutableDenseHashTableV2", "LookupTableInsertV2", "LookupTableRemoveV2",
                "LookupTableExportV2"} <= types
        with tf.Session() as sess:
            for s in steps:
                sess.run(s)
            got = sess.run([words.lookup(["a", "b", "c"]), words.size(), vecs.lookup(tf.constant([6, 7], tf.int64)),
                            dense.lookup(tf.constant([3, 4], tf.int64)), keys, values])
            try:
                sess.run(dense.insert(tf.constant([0], tf.int64), tf.constant([1], tf.int64)))
            except tf.errors.InvalidArgumentError as e:
                assert "empty_key" in str(e)
            else:
                raise AssertionError("the empty key was accepted")
    ref = {b"a": 10, b"c": 3}
    assert got[0].tolist() == [ref.get(k, -1) for k in (b"a", b"b", b"c")] and got[1] == 2
    np.testing.assert_array_equal(got[2], [[3.0, 4.0], [0.0, 0.0]])
    assert got[3].tolist() == [30, -1]
    assert dict(zip(got[4].tolist(), got[5].tolist())) == ref


ROWS += [custom(t, _check_mutable_tables, label=t) for t in
         ("MutableHashTableV2", "MutableDenseHashTableV2", "LookupTableInsertV2", "LookupTableRemoveV2",
          "LookupTableExportV2")]
