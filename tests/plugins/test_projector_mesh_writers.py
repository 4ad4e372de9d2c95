"""The projector and mesh writers' output, read back with the tensorboard package's own protos."""

import os

import numpy as np
import pytest
from google.protobuf import text_format
from tensorboard.compat.proto import summary_pb2 as tb_summary_pb2
from tensorboard.plugins.mesh import metadata as tb_mesh_metadata
from tensorboard.plugins.mesh import plugin_data_pb2 as tb_mesh_pb2
from tensorboard.plugins.projector import projector_config_pb2 as tb_projector_pb2
from tensorboard.util import tensor_util as tb_tensor_util

import lens as tf
from lens.plugins import mesh, projector


def _config():
    config = projector.ProjectorConfig(model_checkpoint_path="model.ckpt-3")
    info = config.embeddings.add(tensor_name="emb:0", metadata_path="meta.tsv", bookmarks_path="b.json",
                                 tensor_path="t.tsv")
    info.sprite.image_path = "sprite.png"
    info.sprite.single_image_dim.extend([28, 28])
    return config


def test_visualize_embeddings_writes_tensorboards_pbtxt(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    projector.visualize_embeddings(writer, _config())
    writer.close()
    theirs = text_format.Parse((tmp_path / "projector_config.pbtxt").read_text(), tb_projector_pb2.ProjectorConfig())
    assert theirs.model_checkpoint_path == "model.ckpt-3"
    emb = theirs.embeddings[0]
    assert (emb.tensor_name, emb.metadata_path, emb.bookmarks_path, emb.tensor_path) == \
        ("emb:0", "meta.tsv", "b.json", "t.tsv")
    assert (emb.sprite.image_path, list(emb.sprite.single_image_dim)) == ("sprite.png", [28, 28])


def test_visualize_embeddings_takes_a_path_and_tensorboards_config(tmp_path):
    config = tb_projector_pb2.ProjectorConfig()
    config.embeddings.add(tensor_name="x")
    projector.visualize_embeddings(str(tmp_path / "new"), config)
    assert "tensor_name: \"x\"" in (tmp_path / "new" / "projector_config.pbtxt").read_text()
    with pytest.raises(ValueError, match="logdir"):
        projector.visualize_embeddings(None, config)
    with pytest.raises(TypeError, match="ProjectorConfig"):
        projector.visualize_embeddings(str(tmp_path), {"embeddings": []})


def test_tf1_contrib_path():
    assert tf.contrib.tensorboard.plugins.projector.visualize_embeddings is projector.visualize_embeddings
    from lens.contrib.tensorboard.plugins import projector as contrib_projector
    import lens.contrib.tensorboard.plugins.projector as imported
    assert contrib_projector.ProjectorConfig is imported.ProjectorConfig is projector.ProjectorConfig
    assert projector.__spec__.name == "lens.plugins.projector"      # the real module is left alone
    with pytest.raises(ModuleNotFoundError):
        import lens.contrib.no_such_module  # noqa: F401


VERTS = np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0]]], np.float32)
FACES = np.array([[[0, 1, 2]]], np.int32)
COLORS = np.array([[[255, 0, 0], [0, 255, 0], [0, 0, 255]]], np.uint8)


def _check_mesh_summary(summary_bytes, name, parts, json_config="{}"):
    summary = tb_summary_pb2.Summary.FromString(summary_bytes)
    assert [v.tag.rsplit("/", 1)[-1] for v in summary.value] == ["%s_%s" % (name, p) for p in parts]
    components = tb_mesh_metadata.get_components_bitmask(
        [tb_mesh_pb2.MeshPluginData.ContentType.Value(p) for p in parts])
    values = {"VERTEX": VERTS, "FACE": FACES, "COLOR": COLORS}
    for value, part in zip(summary.value, parts):
        assert value.metadata.plugin_data.plugin_name == "mesh"
        data = tb_mesh_metadata.parse_plugin_metadata(value.metadata.plugin_data.content)
        assert (data.name, data.content_type, data.components, list(data.shape), data.json_config) == \
            (name, tb_mesh_pb2.MeshPluginData.ContentType.Value(part), components, list(values[part].shape),
             json_config)
        got = tb_tensor_util.make_ndarray(value.tensor)
        assert got.dtype == values[part].dtype
        np.testing.assert_array_equal(got, values[part])


def test_mesh_pb_parses_with_tensorboards_metadata():
    summary = mesh.pb("m", VERTS, FACES, COLORS, config_dict={"camera": {"fov": 75}})
    _check_mesh_summary(summary.SerializeToString(), "m", ["VERTEX", "FACE", "COLOR"],
                        '{"camera": {"fov": 75}}')
    assert summary.value[0].metadata.display_name == "m"


def test_mesh_op_casts_and_parses():
    with tf.Graph().as_default():
        op = mesh.op("cloud", tf.constant(VERTS.astype(np.float64)), colors=tf.constant(COLORS))
        with tf.Session() as sess:
            _check_mesh_summary(sess.run(op), "cloud", ["VERTEX", "COLOR"])


def test_mesh_rank_must_be_three():
    with pytest.raises(ValueError, match="BxNx3"):
        mesh.pb("m", VERTS[0])
