"""tf.nest against the behaviour of TF's nest on lists, tuples, namedtuples and dicts."""
import collections

import pytest

import lens as tf

Point = collections.namedtuple("Point", ["x", "y"])


def test_flatten_pack_and_map():
    s = {"b": [1, (2, 3)], "a": Point(4, {"z": 5, "y": 6})}
    assert tf.nest.flatten(s) == [4, 6, 5, 1, 2, 3]
    assert tf.nest.flatten("abc") == ["abc"] and tf.nest.flatten(None) == [None]
    packed = tf.nest.pack_sequence_as(s, list(range(6)))
    assert packed == {"b": [3, (4, 5)], "a": Point(0, {"z": 2, "y": 1})}
    assert tf.nest.map_structure(lambda a, b: a + b, [1, (2,)], [10, (20,)]) == [11, (22,)]
    assert tf.nest.pack_sequence_as(7, [8]) == 8
    assert tf.nest.is_nested([1]) and not tf.nest.is_nested("ab") and not tf.nest.is_nested(tf.constant(1.0))


def test_structure_errors():
    with pytest.raises(ValueError):
        tf.nest.assert_same_structure([1, [2]], [1, 2])
    with pytest.raises(TypeError):
        tf.nest.assert_same_structure([1, 2], (1, 2))
    tf.nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    with pytest.raises(ValueError, match="keys"):
        tf.nest.assert_same_structure({"a": 1}, {"b": 1})
    with pytest.raises(ValueError, match="Structure had"):
        tf.nest.pack_sequence_as([1, 2], [1])
    with pytest.raises(ValueError, match="Only valid keyword"):
        tf.nest.map_structure(lambda a: a, [1], bogus=True)



def test_expand_composites_lists_sparse_components():
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 1]], [5.0], [2, 3])
        flat = tf.nest.flatten({"s": sp, "x": 1}, expand_composites=True)
        assert flat[:3] == [sp.indices, sp.values, sp.dense_shape] and flat[3] == 1
        back = tf.nest.pack_sequence_as({"s": sp, "x": 1}, flat, expand_composites=True)
        assert isinstance(back["s"], tf.SparseTensor) and back["s"].values is sp.values
        doubled = tf.nest.map_structure(lambda t: t, [sp], expand_composites=True)
        assert isinstance(doubled[0], tf.SparseTensor)
        tf.nest.assert_same_structure(sp, tf.SparseTensor([[1, 1]], [2.0], [4, 4]), expand_composites=True)
