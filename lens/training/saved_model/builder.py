"""SavedModelBuilder and simple_save: `saved_model.pb` + `variables/variables.{index,data-*}` as TensorFlow writes.

Everything is written into a staging directory next to export_dir and renamed into place by save(),
so an interrupted export never leaves a half-written SavedModel behind.
"""
import os
import shutil
import uuid

from google.protobuf import text_format

from lens.framework.graph import GraphKeys, Operation, get_default_graph
from lens.proto import meta_graph_pb2, saved_model_pb2
from lens.training.saved_model import constants, signature_constants, tag_constants
from lens.training.saved_model.signature_def_utils import predict_signature_def
from lens.training.saver import Saver

__all__ = ["SavedModelBuilder", "simple_save"]


def _check_signature_map(signature_def_map):
    for key, sig in (signature_def_map or {}).items():
        if not isinstance(sig, meta_graph_pb2.SignatureDef):
            raise TypeError("signature_def_map[%r] must be a SignatureDef (build it with "
                            "tf.saved_model.signature_def_utils), got %r" % (key, type(sig).__name__))
        for where, infos in (("inputs", sig.inputs), ("outputs", sig.outputs)):
            for name, info in infos.items():
                if not (info.name or info.HasField("coo_sparse")) or not info.dtype:
                    raise AssertionError("All TensorInfo protos used in the SignatureDefs must have the name and "
                                         "dtype fields set: signature %r, %s %r" % (key, where, name))


def _check_op(op, what):
    if op is not None and not isinstance(op, Operation):
        raise TypeError("%s needs to be an Operation: %r" % (what, op))


class SavedModelBuilder:
    """Builds a SavedModel: one MetaGraphDef per tag set, the variables saved once."""

    def __init__(self, export_dir):
        self._export_dir = os.fspath(export_dir)
        if os.path.exists(self._export_dir) and (not os.path.isdir(self._export_dir) or
                                                 os.listdir(self._export_dir)):
            raise AssertionError("Export directory already exists, and isn't empty. Please choose a different "
                                 "export directory, or delete all the contents of the specified directory: %s"
                                 % self._export_dir)
        parent = os.path.dirname(os.path.abspath(self._export_dir))
        os.makedirs(parent, exist_ok=True)
        self._staging = os.path.join(parent, ".%s.tmp-%s" % (os.path.basename(os.path.abspath(self._export_dir)),
                                                             uuid.uuid4().hex))
        os.makedirs(self._staging)
        self._saved_model = saved_model_pb2.SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._has_saved_variables = False
        self._tag_sets = []

    def _add_meta_graph(self, meta, tags, signature_def_map, main_op, train_op, assets=()):
        tags = list(tags) if tags is not None else []
        if set(tags) in self._tag_sets:
            raise AssertionError("A MetaGraphDef with tags %s was already added to this SavedModel" % tags)
        self._tag_sets.append(set(tags))
        meta.meta_info_def.tags.extend(tags)
        for key, sig in (signature_def_map or {}).items():
            meta.signature_def[key].CopyFrom(sig)
        if main_op is not None:
            meta.collection_def[constants.MAIN_OP_KEY].node_list.value.append(main_op.name)
        if train_op is not None:
            meta.collection_def[constants.TRAIN_OP_KEY].node_list.value.append(train_op.name)
        for asset in assets:
            # As TF1: each asset in asset_file_def and, packed in an Any, in the assets collection.
            meta.asset_file_def.add().CopyFrom(asset)
            meta.collection_def[constants.ASSETS_KEY].any_list.value.add().Pack(asset)
        self._saved_model.meta_graphs.add().CopyFrom(meta)

    def _saver(self, saver):
        if saver is not None:
            return saver
        from lens.ops.variables import global_variables
        # As TF1: a sharded V2 saver over every global variable (its ops land under `save/`).
        return Saver(global_variables(), sharded=True, allow_empty=True)

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None, assets_collection=None,
                                     legacy_init_op=None, clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None, train_op=None):
        """Save the session's variables and add the graph under tags (call once, first)."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already been saved. Please "
                                 "invoke `add_meta_graph()` instead.")
        _check_signature_map(signature_def_map)
        main_op = main_op if main_op is not None else legacy_init_op
        _check_op(main_op, "main_op")
        _check_op(train_op, "train_op")
        assets = self._copy_assets(assets_collection)
        saver = self._saver(saver)
        variables_dir = os.path.join(self._staging, constants.VARIABLES_DIRECTORY)
        os.makedirs(variables_dir, exist_ok=True)
        if saver.saver_def is not None:
            saver.save(sess, os.path.join(variables_dir, constants.VARIABLES_FILENAME), write_meta_graph=False,
                       write_state=False)
        meta = saver.export_meta_graph(clear_devices=clear_devices)
        self._add_meta_graph(meta, tags, signature_def_map, main_op, train_op, assets)
        self._has_saved_variables = True

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None, legacy_init_op=None,
                       clear_devices=False, main_op=None, strip_default_attrs=False, saver=None):
        """Add another MetaGraphDef (the variables were saved by add_meta_graph_and_variables)."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been saved yet. Please "
                                 "invoke `add_meta_graph_and_variables()` first.")
        _check_signature_map(signature_def_map)
        main_op = main_op if main_op is not None else legacy_init_op
        _check_op(main_op, "main_op")
        assets = self._copy_assets(assets_collection)
        meta = self._saver(saver).export_meta_graph(clear_devices=clear_devices)
        self._add_meta_graph(meta, tags, signature_def_map, main_op, None, assets)

    def _copy_assets(self, assets_collection):
        """Copy asset files into assets/; [AssetFileDef] naming each asset tensor and its file."""
        if not assets_collection:
            return []
        from lens.framework import errors
        from lens.training.saved_model.utils import build_tensor_info
        assets_dir = os.path.join(self._staging, constants.ASSETS_DIRECTORY)
        os.makedirs(assets_dir, exist_ok=True)
        out = []
        for t in assets_collection:
            value = t.op._attrs.get("value") if t.op.type == "Const" else None
            if value is None:
                raise errors.InvalidArgumentError(None, t.op, "Asset %s must be a string constant naming a file"
                                                  % t.name)
            path = value.item() if hasattr(value, "item") else value
            path = path.decode() if isinstance(path, bytes) else str(path)
            if not os.path.isfile(path):
                raise errors.NotFoundError(None, t.op, "Asset file %s (tensor %s) does not exist" % (path, t.name))
            shutil.copy(path, os.path.join(assets_dir, os.path.basename(path)))
            out.append(meta_graph_pb2.AssetFileDef(tensor_info=build_tensor_info(t),
                                                   filename=os.path.basename(path)))
        return out

    def save(self, as_text=False):
        """Write saved_model.pb (or .pbtxt) and move the export into export_dir; returns the file's path."""
        if as_text:
            name, data = constants.SAVED_MODEL_FILENAME_PBTXT, text_format.MessageToString(self._saved_model)
            data = data.encode("utf-8")
        else:
            name, data = constants.SAVED_MODEL_FILENAME_PB, self._saved_model.SerializeToString()
        with open(os.path.join(self._staging, name), "wb") as f:
            f.write(data)
        if os.path.isdir(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError("Export directory %s was filled while the SavedModel was being built; the "
                                     "export is left in %s" % (self._export_dir, self._staging))
            os.rmdir(self._export_dir)
        os.replace(self._staging, self._export_dir)
        return os.path.join(self._export_dir, name)


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Save a serving SavedModel: one `serving_default` predict signature from {key: Tensor} maps."""
    signature_def_map = {signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_signature_def(inputs, outputs)}
    b = SavedModelBuilder(export_dir)
    b.add_meta_graph_and_variables(session, tags=[tag_constants.SERVING], signature_def_map=signature_def_map,
                                   assets_collection=get_default_graph().get_collection(GraphKeys.ASSET_FILEPATHS),
                                   main_op=legacy_init_op, clear_devices=True)
    b.save()
