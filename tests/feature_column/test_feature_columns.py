"""tf.feature_column against values, names and errors recorded from TensorFlow (fixtures/)."""
import json
import os

import numpy as np
import pytest

import lens as tf
from lens.ops.farmhash import fingerprint64

fc = tf.feature_column
FIX = json.load(open(os.path.join(os.path.dirname(__file__), "fixtures", "fc_fixtures.json")))
FEATS = FIX["input_layer_dense"]["features"]


def _run(build):
    with tf.Graph().as_default():
        out = build()
        names = [v.op.name for v in tf.global_variables()]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return sess.run(out), names


def _emb_init(shape, dtype=None, partition_info=None):
    return tf.constant(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 10.0)


def test_farmhash_fingerprint64_matches_tensorflow():
    fh = FIX["farmhash"]
    assert [str(fingerprint64(s)) for s in fh["strings"]] == fh["fingerprint64"]
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run(tf.string_to_hash_bucket_fast(tf.constant(fh["strings"]), 1000))
    assert got.tolist() == fh["bucket_1000"]


def test_input_layer_dense_columns():
    def build():
        price = fc.numeric_column("price")
        cols = [fc.numeric_column("xy", shape=2, normalizer_fn=lambda t: t * 2.0),
                fc.bucketized_column(price, boundaries=[0.0, 2.0, 4.0]),
                fc.indicator_column(fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])),
                fc.indicator_column(fc.categorical_column_with_identity("slot", num_buckets=4)), price]
        return fc.input_layer({k: tf.constant(v) for k, v in FEATS.items()}, cols)
    out, names = _run(build)
    np.testing.assert_allclose(out, FIX["input_layer_dense"]["output"])
    assert names == FIX["input_layer_dense"]["variables"]


@pytest.mark.parametrize("combiner", ["mean", "sum", "sqrtn"])
def test_embedding_combiners(combiner):
    def build():
        tags = fc.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"])
        emb = fc.embedding_column(tags, dimension=2, combiner=combiner, initializer=_emb_init)
        return fc.input_layer({"tags": tf.constant(FEATS["tags"])}, [emb])
    out, names = _run(build)
    np.testing.assert_allclose(out, FIX["embedding_" + combiner]["output"], rtol=1e-6)
    assert names == FIX["embedding_" + combiner]["variables"]


def test_indicator_counts_repeats():
    out, _ = _run(lambda: fc.input_layer({"tags": tf.constant(FEATS["tags"])}, [fc.indicator_column(
        fc.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"]))]))
    np.testing.assert_allclose(out, FIX["indicator_multi"]["output"])


def test_linear_model_names_shapes_and_values():
    with tf.Graph().as_default():
        price = fc.numeric_column("price")
        cols = [price, fc.bucketized_column(price, boundaries=[0.0, 2.0]),
                fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])]
        pred = fc.linear_model({"price": tf.constant(FEATS["price"]), "color": tf.constant(FEATS["color"])},
                               cols, units=1)
        variables = tf.global_variables()
        # The recording script set every variable to 0.5 * (1, 2, ...).
        assigns = [tf.assign(v, tf.reshape(tf.range(1, v.shape.num_elements() + 1, dtype=tf.float32),
                                           v.shape.as_list()) * 0.5) for v in variables]
        with tf.Session() as sess:
            sess.run(assigns)
            out = sess.run(pred)
    np.testing.assert_allclose(out, FIX["linear_model"]["output"])
    assert [v.op.name for v in variables] == FIX["linear_model"]["variables"]
    assert {v.op.name: v.shape.as_list() for v in variables} == FIX["linear_model"]["shapes"]


def test_hash_bucket_and_crossed_columns():
    def build_hash():
        c = fc.categorical_column_with_hash_bucket("s", 7)
        ic = fc.categorical_column_with_hash_bucket("n", 5, dtype=tf.int64)
        return fc.input_layer({"s": tf.constant([["a"], ["hello"], ["zz"]]),
                               "n": tf.constant([[1], [42], [-3]], tf.int64)},
                              [fc.indicator_column(c), fc.indicator_column(ic)])
    np.testing.assert_allclose(_run(build_hash)[0], FIX["hash_bucket"]["output"])

    def build_cross():
        a = fc.categorical_column_with_vocabulary_list("a", ["x", "y"])
        b = fc.bucketized_column(fc.numeric_column("p"), boundaries=[0.0])
        cr = fc.crossed_column([a, b, "k"], hash_bucket_size=11)
        return fc.input_layer({"a": tf.constant([["x"], ["y"], ["y"]]), "p": tf.constant([[-1.0], [1.0], [3.0]]),
                               "k": tf.constant([["m"], ["n"], ["m"]])}, [fc.indicator_column(cr)])
    np.testing.assert_allclose(_run(build_cross)[0], FIX["crossed"]["output"])


def test_make_parse_example_spec():
    spec = fc.make_parse_example_spec([
        fc.numeric_column("price", shape=2, default_value=0.0),
        fc.categorical_column_with_vocabulary_list("color", ["r"]),
        fc.categorical_column_with_identity("slot", 4),
        fc.embedding_column(fc.categorical_column_with_hash_bucket("s", 5), 2)])
    got = {k: {"type": type(v).__name__, "dtype": v.dtype.name,
               "shape": list(getattr(v, "shape", []) or []),
               "default": list(v.default_value) if getattr(v, "default_value", None) is not None else None}
           for k, v in spec.items()}
    assert got == FIX["parse_spec"]


def test_vocabulary_file_matches_list(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("red\ngreen\nblue\n")
    out, _ = _run(lambda: fc.input_layer({"color": tf.constant(FEATS["color"])}, [fc.indicator_column(
        fc.categorical_column_with_vocabulary_file("color", str(path)))]))
    np.testing.assert_allclose(out, np.asarray(FIX["input_layer_dense"]["output"])[:, :3])


@pytest.mark.parametrize("case", ["vocab_list_fed_int", "identity_fed_string", "hash_fed_float",
                                  "missing_feature"])
def test_wrong_dtype_errors_match_tensorflow(case):
    builders = {
        "vocab_list_fed_int": lambda: fc.input_layer({"color": tf.constant([[1], [2]])}, [fc.indicator_column(
            fc.categorical_column_with_vocabulary_list("color", ["red", "blue"]))]),
        "identity_fed_string": lambda: fc.input_layer({"slot": tf.constant([["a"]])}, [fc.indicator_column(
            fc.categorical_column_with_identity("slot", 3))]),
        "hash_fed_float": lambda: fc.input_layer({"s": tf.constant([[1.5]])}, [fc.indicator_column(
            fc.categorical_column_with_hash_bucket("s", 3))]),
        "missing_feature": lambda: fc.input_layer({"other": tf.constant([[1.0]])}, [fc.numeric_column("price")]),
    }
    want = FIX["errors"][case]
    with tf.Graph().as_default(), pytest.raises(ValueError) as info:
        builders[case]()
    assert type(info.value).__name__ == want["class"]
    assert str(info.value) == want["message"]


def test_numeric_column_fed_strings_names_the_column():
    assert FIX["errors"]["numeric_fed_string"]["class"] == "UnimplementedError"
    with tf.Graph().as_default(), pytest.raises(tf.errors.UnimplementedError, match="'price'"):
        fc.input_layer({"price": tf.constant([["a"]])}, [fc.numeric_column("price")])


def test_embedding_trains_through_input_layer():
    with tf.Graph().as_default():
        tags = fc.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"])
        net = fc.input_layer({"tags": tf.constant(FEATS["tags"])}, [fc.embedding_column(tags, 2)])
        loss = tf.reduce_sum(tf.square(net - 1.0))
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss)
            for _ in range(20):
                sess.run(train)
            assert sess.run(loss) < first * 0.5


def test_embedding_max_norm_clips_each_row():
    def build():
        tags = fc.categorical_column_with_vocabulary_list("tags", ["a", "b", "c"])
        emb = fc.embedding_column(tags, dimension=2, combiner="sum", initializer=_emb_init, max_norm=0.5)
        return fc.input_layer({"tags": tf.constant(FEATS["tags"])}, [emb])
    np.testing.assert_allclose(_run(build)[0], FIX["embedding_max_norm"]["output"], rtol=1e-6)


def test_out_of_vocabulary_buckets_and_identity_default():
    def build():
        s_col = fc.categorical_column_with_vocabulary_list("s", ["a", "b"], num_oov_buckets=3)
        i_col = fc.categorical_column_with_vocabulary_list("i", [10, 20], num_oov_buckets=4)
        d_col = fc.categorical_column_with_identity("d", 4, default_value=0)
        return fc.input_layer({"s": tf.constant([["a"], ["zz"], ["hello"]]),
                               "i": tf.constant([[20], [7], [12345]], tf.int64), "d": tf.constant([[3], [9], [1]])},
                              [fc.indicator_column(s_col), fc.indicator_column(i_col), fc.indicator_column(d_col)])
    np.testing.assert_allclose(_run(build)[0], FIX["vocabulary_oov"]["output"])


def test_identity_out_of_range_fails_at_run_time():
    with tf.Graph().as_default():
        out = fc.input_layer({"d": tf.constant([[1], [7]])}, [fc.indicator_column(
            fc.categorical_column_with_identity("d", 4))])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match='column "d"'):
            sess.run(out)
