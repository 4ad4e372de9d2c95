"""tf.saved_model.loader: load a SavedModel's MetaGraphDef for a tag set and restore its variables."""
import os

from google.protobuf import text_format

from lens.framework import errors
from lens.framework.graph import get_default_graph
from lens.proto import saved_model_pb2
from lens.training.saved_model import constants
from lens.training.saver_import import import_meta_graph

__all__ = ["load", "maybe_saved_model_directory", "contains_saved_model"]


def read_saved_model(export_dir):
    """The SavedModel proto of export_dir (saved_model.pb, else saved_model.pbtxt)."""
    export_dir = os.fspath(export_dir)
    pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    sm = saved_model_pb2.SavedModel()
    if os.path.isfile(pb):
        with open(pb, "rb") as f:
            data = f.read()
        try:
            sm.ParseFromString(data)
        except Exception as e:
            raise IOError("Cannot parse file %s: %s." % (pb, e))
    elif os.path.isfile(pbtxt):
        with open(pbtxt, "r", encoding="utf-8") as f:
            try:
                text_format.Merge(f.read(), sm)
            except text_format.ParseError as e:
                raise IOError("Cannot parse file %s: %s." % (pbtxt, e))
    else:
        raise IOError("SavedModel file does not exist at: %s%s{%s|%s}" % (export_dir, os.path.sep,
                                                                        constants.SAVED_MODEL_FILENAME_PBTXT,
                                                                        constants.SAVED_MODEL_FILENAME_PB))
    return sm


def maybe_saved_model_directory(export_dir):
    """True when export_dir holds a saved_model.pb or saved_model.pbtxt."""
    export_dir = os.fspath(export_dir)
    return any(os.path.isfile(os.path.join(export_dir, n))
               for n in (constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT))


contains_saved_model = maybe_saved_model_directory


def _meta_graph_for_tags(sm, tags, export_dir):
    wanted = set(tags)
    for meta in sm.meta_graphs:
        if set(meta.meta_info_def.tags) == wanted:
            return meta
    available = [list(m.meta_info_def.tags) for m in sm.meta_graphs]
    raise RuntimeError("MetaGraphDef associated with tags %s could not be found in SavedModel %s. Available "
                       "tag-sets: %s. Pass one of them as tags (e.g. [tf.saved_model.tag_constants.SERVING])."
                       % (str(sorted(wanted)).strip("[]"), export_dir, available))


def _asset_feeds(meta, export_dir, import_scope):
    """{asset tensor name: its file in export_dir/assets}, fed to the main op as TF1's loader does."""
    feeds = {}
    for asset in meta.asset_file_def:
        name = asset.tensor_info.name
        name = "%s/%s" % (import_scope, name) if import_scope else name
        feeds[name] = os.path.join(export_dir, constants.ASSETS_DIRECTORY, asset.filename).encode("utf-8")
    return feeds


def _run_init(sess, meta, import_scope, feeds):
    """Run the main op (or legacy init op) the export recorded, as TF1's loader."""
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if key in meta.collection_def:
            names = list(meta.collection_def[key].node_list.value)
            if len(names) != 1:
                raise errors.FailedPreconditionError(None, None, "Expected exactly one %s, found %d"
                                                     % (key, len(names)))
            name = "%s/%s" % (import_scope, names[0]) if import_scope else names[0]
            sess.run(get_default_graph().as_graph_element(name), feeds or None)
            return


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Load the MetaGraphDef tagged tags into sess's graph, restore its variables; returns the MetaGraphDef."""
    export_dir = os.fspath(export_dir)
    if isinstance(tags, str):
        tags = [tags]
    sm = read_saved_model(export_dir)
    meta = _meta_graph_for_tags(sm, tags, export_dir)
    with sess.graph.as_default():
        saver = import_meta_graph(meta, import_scope=import_scope, **saver_kwargs)
        variables = os.path.join(export_dir, constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME)
        if saver is not None and os.path.exists(variables + ".index"):
            saver.restore(sess, variables)
        _run_init(sess, meta, import_scope, _asset_feeds(meta, export_dir, import_scope))
    return meta
