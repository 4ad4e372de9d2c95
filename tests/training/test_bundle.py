"""The tensor bundle: the .index table byte for byte, entries parsed with TF's field numbers, data layouts."""
import os
import struct

import google_crc32c
import numpy as np
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from tensorboard.compat.proto import tensor_shape_pb2 as tb_tensor_shape_pb2
from tensorboard.compat.proto import versions_pb2 as tb_versions_pb2

import lens as tf
from lens.training import bundle, bundle_table


def _mask(crc):
    return (((crc >> 15) | (crc << 17)) + 0xa282ead8) & 0xffffffff


def _oracle_bundle_messages():
    """BundleHeaderProto / BundleEntryProto from TensorFlow's field numbers, on tensorboard's shape/version protos."""
    pool = descriptor_pool.DescriptorPool()
    for mod in (tb_tensor_shape_pb2, tb_versions_pb2):
        pool.Add(descriptor_pb2.FileDescriptorProto.FromString(mod.DESCRIPTOR.serialized_pb))
    fdp = descriptor_pb2.FileDescriptorProto(name="oracle_bundle.proto", package="oracle", syntax="proto3",
                                             dependency=[tb_tensor_shape_pb2.DESCRIPTOR.name,
                                                         tb_versions_pb2.DESCRIPTOR.name])
    F = descriptor_pb2.FieldDescriptorProto
    header = fdp.message_type.add(name="BundleHeaderProto")
    header.field.add(name="num_shards", number=1, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    header.field.add(name="endianness", number=2, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    header.field.add(name="version", number=3, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                     type_name=".tensorboard.VersionDef")
    entry = fdp.message_type.add(name="BundleEntryProto")
    for name, number, ftype in (("dtype", 1, F.TYPE_INT32), ("shard_id", 3, F.TYPE_INT32), ("offset", 4, F.TYPE_INT64),
                                ("size", 5, F.TYPE_INT64), ("crc32c", 6, F.TYPE_FIXED32)):
        entry.field.add(name=name, number=number, type=ftype, label=F.LABEL_OPTIONAL)
    entry.field.add(name="shape", number=2, type=F.TYPE_MESSAGE, label=F.LABEL_OPTIONAL,
                    type_name=".tensorboard.TensorShapeProto")
    pool.Add(fdp)
    return (message_factory.GetMessageClass(pool.FindMessageTypeByName("oracle.BundleHeaderProto")),
            message_factory.GetMessageClass(pool.FindMessageTypeByName("oracle.BundleEntryProto")))


Header, Entry = _oracle_bundle_messages()


def test_small_table_matches_the_hand_computed_layout():
    items = [(b"", b"H"), (b"ab", b"1"), (b"abc", b"22")]
    got = bundle_table.build_table(items)
    # data block: (shared, unshared, value_len, key delta, value) per entry; restart [0]; count 1
    block = bytes([0, 0, 1]) + b"H" + bytes([0, 2, 1]) + b"ab1" + bytes([2, 1, 2]) + b"c22" + struct.pack("<II", 0, 1)
    trailer = b"\0" + struct.pack("<I", _mask(google_crc32c.value(block + b"\0")))
    meta = struct.pack("<II", 0, 1)
    meta_trailer = b"\0" + struct.pack("<I", _mask(google_crc32c.value(meta + b"\0")))
    meta_off = len(block) + 5
    # index block: one entry, key = last key of the data block, value = varint offset 0, size len(block)
    index = bytes([0, 3, 2]) + b"abc" + bytes([0, len(block)]) + struct.pack("<II", 0, 1)
    index_off = meta_off + len(meta) + 5
    index_trailer = b"\0" + struct.pack("<I", _mask(google_crc32c.value(index + b"\0")))
    footer = (bytes([meta_off, len(meta), index_off, len(index)])).ljust(40, b"\0") + \
        struct.pack("<II", 0x8b80fb57, 0xdb477524)
    assert got == block + trailer + meta + meta_trailer + index + index_trailer + footer
    assert bundle_table.read_table(got) == items


def test_many_keys_span_blocks_and_restart_points_and_read_back():
    items = [(b"key/%05d" % i, b"v" * (i % 7)) for i in range(1000)]
    data = bundle_table.build_table(items, block_size=512)
    assert bundle_table.read_table(data) == items
    with pytest.raises(ValueError, match="strictly increasing"):
        bundle_table.build_table([(b"b", b""), (b"a", b"")])


def test_corrupt_or_foreign_index_raises_data_loss():
    data = bytearray(bundle_table.build_table([(b"", b"h"), (b"k", b"v")]))
    data[3] ^= 0xff
    with pytest.raises(tf.errors.DataLossError, match="checksum mismatch"):
        bundle_table.read_table(bytes(data), "x.index")
    with pytest.raises(tf.errors.DataLossError, match="bad magic"):
        bundle_table.read_table(b"\0" * 60, "x.index")


def test_lens_bundle_parsed_with_tensorflow_field_numbers(tmp_path):
    prefix = str(tmp_path / "b")
    w = np.arange(6, dtype=np.float32).reshape(2, 3)
    bundle.write_bundle(prefix, [("w", w), ("s", np.array([b"ab", b"", b"xyz"], dtype=object)),
                                 ("n", np.int64(-3))])
    assert sorted(os.listdir(tmp_path)) == ["b.data-00000-of-00001", "b.index"]
    items = bundle_table.read_table((tmp_path / "b.index").read_bytes())
    assert [k for k, _ in items] == [b"", b"n", b"s", b"w"]
    header = Header.FromString(items[0][1])
    assert header.num_shards == 1 and header.endianness == 0 and header.version.producer == 1
    entries = {k.decode(): Entry.FromString(v) for k, v in items[1:]}
    data = (tmp_path / "b.data-00000-of-00001").read_bytes()
    n, s, wt = entries["n"], entries["s"], entries["w"]
    assert (n.dtype, n.offset, n.size, list(n.shape.dim)) == (9, 0, 8, [])
    assert data[0:8] == struct.pack("<q", -3)
    # The string layout and both checksums as TensorFlow 2.21 wrote them for the same tensor.
    assert (s.dtype, s.offset, s.size) == (7, 8, 12)
    assert data[8:20] == b"\x02\x00\x03\x1bB\x8b\xcaabxyz" and s.crc32c == 1069853968
    assert (wt.dtype, wt.offset, wt.size, [d.size for d in wt.shape.dim]) == (1, 20, 24, [2, 3])
    assert data[20:44] == w.astype("<f4").tobytes() and wt.crc32c == _mask(google_crc32c.value(w.tobytes()))
    assert len(data) == 44
    back = bundle.BundleReader(prefix).read(["w", "s", "n"])
    np.testing.assert_array_equal(back["w"], w)
    assert list(back["s"]) == [b"ab", b"", b"xyz"] and back["n"] == -3 and back["n"].shape == ()


def test_corrupt_data_is_caught_by_the_entry_crc(tmp_path):
    prefix = str(tmp_path / "b")
    bundle.write_bundle(prefix, [("w", np.ones(4, np.float32))])
    path = tmp_path / "b.data-00000-of-00001"
    raw = bytearray(path.read_bytes())
    raw[5] ^= 1
    path.write_bytes(bytes(raw))
    with pytest.raises(tf.errors.DataLossError, match="Checksum does not match.*tensor w"):
        tf.train.load_checkpoint(prefix).get_tensor("w")
    path.write_bytes(bytes(raw[:8]))
    with pytest.raises(tf.errors.DataLossError, match="tensor w needs bytes"):
        tf.train.load_checkpoint(prefix).get_tensor("w")


def test_failed_write_leaves_nothing_behind(tmp_path):
    prefix = str(tmp_path / "b")
    with pytest.raises(TypeError):
        bundle.write_bundle(prefix, [("a", np.ones(3)), ("b", np.zeros(2, dtype=[("f", "i4")]))])
    assert os.listdir(tmp_path) == []
    with pytest.raises(ValueError, match="same name 'a'"):
        bundle.write_bundle(prefix, [("a", np.ones(3)), ("a", np.ones(3))])
    assert os.listdir(tmp_path) == []


def test_checkpoint_reader_api(tmp_path):
    prefix = str(tmp_path / "c")
    bundle.write_bundle(prefix, [("scope/v", np.arange(3, dtype=np.int32)), ("flag", np.array([True, False]))])
    for reader in (tf.train.NewCheckpointReader(prefix), tf.pywrap_tensorflow.NewCheckpointReader(prefix),
                   tf.train.load_checkpoint(prefix)):
        assert reader.has_tensor("scope/v") and not reader.has_tensor("nope")
        assert reader.get_variable_to_shape_map() == {"scope/v": [3], "flag": [2]}
        assert reader.get_variable_to_dtype_map() == {"scope/v": tf.int32, "flag": tf.bool}
        assert list(reader.get_tensor("flag")) == [True, False]
        with pytest.raises(tf.errors.NotFoundError, match="Key nope not found"):
            reader.get_tensor("nope")
    assert tf.train.list_variables(prefix) == [("flag", [2]), ("scope/v", [3])]
    assert list(tf.train.load_variable(prefix, "scope/v:0")) == [0, 1, 2]
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files for .*missing"):
        tf.train.NewCheckpointReader(str(tmp_path / "missing"))


def test_ordered_code_signed_numbers_sort_as_numbers():
    from lens.training.bundle_slices import _signed
    assert _signed(0) == b"\x80" and _signed(-1) == b"\x7f" and _signed(63) == b"\xbf"
    assert _signed(64) == b"\xc0\x40" and _signed(-65) == b"\x3f\xbf" and _signed(134) == b"\xc0\x86"
    values = [-(1 << 40), -70000, -8193, -8192, -65, -64, -1, 0, 1, 63, 64, 8191, 8192, 1 << 20, 1 << 40]
    assert sorted(values, key=_signed) == values


def test_rewritten_checkpoint_is_reread_not_served_from_the_parsed_index_cache(tmp_path):
    prefix = str(tmp_path / "c")
    bundle.write_bundle(prefix, [("v", np.zeros(2))])
    assert list(tf.train.load_checkpoint(prefix).get_tensor("v")) == [0.0, 0.0]
    bundle.write_bundle(prefix, [("v", np.ones(3)), ("w", np.ones(1))])
    reader = tf.train.load_checkpoint(prefix)
    assert list(reader.get_tensor("v")) == [1.0, 1.0, 1.0] and reader.has_tensor("w")
