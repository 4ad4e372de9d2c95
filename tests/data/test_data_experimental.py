"""tf.data.experimental and FixedLengthRecordDataset against plain Python (csv, struct, itertools)."""
import collections
import csv
import os

import numpy as np
import pytest

import lens as tf

E = tf.data.experimental
D = tf.data.Dataset


def elements(ds):
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(sess.run(nxt))
            except tf.errors.OutOfRangeError:
                return out


def test_fixed_length_records_sequential_and_interleaved(tmp_path):
    blobs = [bytes(range(i * 50, i * 50 + 2 + 4 * n + 1)) for i, n in enumerate((3, 2))]
    paths = []
    for i, b in enumerate(blobs):
        p = tmp_path / ("f%d.bin" % i)
        p.write_bytes(b)
        paths.append(str(p))
    per_file = [[b[2 + 4 * k:6 + 4 * k] for k in range((len(b) - 3) // 4)] for b in blobs]
    ds = tf.data.FixedLengthRecordDataset(paths, 4, header_bytes=2, footer_bytes=1)
    assert ds.output_types == tf.string and ds.output_shapes.ndims == 0
    assert elements(ds) == per_file[0] + per_file[1]
    mixed = elements(tf.data.FixedLengthRecordDataset(paths, 4, header_bytes=2, footer_bytes=1, num_parallel_reads=2))
    assert mixed == [per_file[0][0], per_file[1][0], per_file[0][1], per_file[1][1], per_file[0][2]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="record_bytes must be > 0"):
        elements(tf.data.FixedLengthRecordDataset(paths, 0))


def test_make_csv_dataset_matches_csv_module(tmp_path):
    rows = [["id", "score", "name", "label"], ["1", "0.5", "ann", "0"], ["2", "1.25", "bob", "1"],
            ["3", "", "cy", "1"], ["4", "2", "dee", "0"], ["5", "3.5", "eve", "1"]]
    path = tmp_path / "data.csv"
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    ds = E.make_csv_dataset(str(path), batch_size=2, label_name="label", num_epochs=1, shuffle=False)
    features_types, label_type = ds.output_types
    assert list(features_types) == ["id", "score", "name"] and features_types["id"] == tf.int32
    assert features_types["score"] == tf.float32 and features_types["name"] == tf.string and label_type == tf.int32
    got = elements(ds)
    assert isinstance(got[0][0], collections.OrderedDict)
    ids = np.concatenate([f["id"] for f, _ in got]).tolist()
    scores = np.concatenate([f["score"] for f, _ in got]).tolist()
    labels = np.concatenate([lab for _, lab in got]).tolist()
    body = rows[1:]
    assert ids == [int(r[0]) for r in body] and labels == [int(r[3]) for r in body]
    assert scores == [float(r[1]) if r[1] else 0.0 for r in body]      # empty fields take the default
    assert [len(lab) for _, lab in got] == [2, 2, 1]
    forever = E.make_csv_dataset(str(path), batch_size=2, select_columns=["id", "name"], shuffle=True,
                                 shuffle_seed=3)
    assert list(forever.output_types) == ["id", "name"] and forever.output_shapes["id"].as_list() == [2]
    with pytest.raises(ValueError, match="label_name"):
        E.make_csv_dataset(str(path), 2, label_name="missing")


def test_transformations_match_python():
    assert [x.tolist() for x in elements(D.range(7).apply(E.map_and_batch(lambda x: x * x, 3)))] == [
        [0, 1, 4], [9, 16, 25], [36]]
    epochs = elements(D.range(5).apply(E.shuffle_and_repeat(5, count=3, seed=2)))
    assert len(epochs) == 15 and all(sorted(epochs[i:i + 5]) == list(range(5)) for i in (0, 5, 10))
    assert epochs[:5] != epochs[5:10] or epochs[5:10] != epochs[10:]
    nums = D.from_tensor_slices(np.array([b"1", b"two", b"3.5", b"", b"5"], dtype=object))
    assert elements(nums.map(tf.string_to_number).apply(E.ignore_errors())) == [1.0, 3.5, 5.0]
    assert E.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1
    assert elements(D.range(3).apply(E.parallel_interleave(lambda x: D.from_tensors(x).repeat(2), 2))) == [
        0, 1, 0, 1, 2, 2]
    assert elements(E.Counter(5, -2).take(3)) == [5, 3, 1]
    pairs = elements(D.from_tensor_slices(np.array([b"a", b"b"], dtype=object)).apply(E.enumerate_dataset(10)))
    assert [(int(i), v) for i, v in pairs] == [(10, b"a"), (11, b"b")]


def test_sampling_and_single_elements():
    draws = elements(E.sample_from_datasets([D.range(200), D.range(1000, 1200)], [0.25, 0.75], seed=4))
    assert sorted(draws) == list(range(200)) + list(range(1000, 1200))    # every element exactly once
    first = draws[:100]
    assert 55 <= sum(v >= 1000 for v in first) <= 95                      # ~75% from the heavier source
    with tf.Session() as sess:
        a, b = sess.run(E.get_single_element(D.from_tensors((np.int64(3), np.float32(1.5)))))
        assert (a, b) == (3, 1.5)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Dataset was empty"):
            sess.run(E.get_single_element(D.range(0)))
    with pytest.raises(TypeError, match="must match the initial state"):
        D.range(3).apply(E.scan(np.int32(0), lambda s, x: (x, s)))


def test_csv_and_example_datasets(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,x\n2,y\n")
    assert elements(E.CsvDataset(str(path), [[0], ["?"]], header=True)) == [(1, b"x"), (2, b"y")]
    ex_dir = tmp_path / "ex"
    ex_dir.mkdir()
    for shard in range(2):
        with tf.python_io.TFRecordWriter(str(ex_dir / ("s%d.tfrecord" % shard))) as w:
            for i in range(3):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "v": tf.train.Feature(int64_list=tf.train.Int64List(value=[10 * shard + i])),
                    "y": tf.train.Feature(float_list=tf.train.FloatList(value=[i / 2]))}))
                w.write(ex.SerializeToString())
    spec = {"v": tf.FixedLenFeature([], tf.int64), "y": tf.FixedLenFeature([], tf.float32)}
    ds = E.make_batched_features_dataset(str(ex_dir / "*.tfrecord"), 4, spec, label_key="y", num_epochs=1,
                                         shuffle=False)
    got = elements(ds)
    assert np.concatenate([f["v"] for f, _ in got]).tolist() == [0, 1, 2, 10, 11, 12]
    assert np.concatenate([y for _, y in got]).tolist() == [0.0, 0.5, 1.0] * 2
    assert os.path.exists(str(ex_dir / "s0.tfrecord"))


def test_options_records_and_with_options():
    o = tf.data.Options()
    assert o.deterministic is None and o.experimental_deterministic is None
    assert o.threading is o.experimental_threading                       # TF's deprecated alias
    with pytest.raises(TypeError, match='Property "deterministic" must be of type'):
        o.deterministic = 3
    with pytest.raises(AttributeError, match="Cannot set the property foo on Options"):
        o.foo = 1
    o.threading.private_threadpool_size = 4
    o.experimental_distribute.auto_shard_policy = E.AutoShardPolicy.DATA
    p = tf.data.Options()
    p.experimental_deterministic = False
    merged = o.merge(p)
    assert merged.deterministic is False and merged.threading.private_threadpool_size == 4
    ds = D.range(3).with_options(o).map(lambda x: x * 2).with_options(p)
    assert ds.options() == merged and elements(ds) == [0, 2, 4]          # options never change the elements
    assert D.range(2).options() == tf.data.Options()
    assert [m.value for m in E.AutoShardPolicy] == [-1, 0, 1, 2, 3]
    assert E.OptimizationOptions().map_and_batch_fusion is None and E.ExternalStatePolicy.FAIL.value == 2
