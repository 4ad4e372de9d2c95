"""MetaGraphDef export (tf.train.export_meta_graph) with collections; reading .meta files."""
import numbers
import os

from lens.framework.graph import Operation, Tensor, get_default_graph
from lens.proto import meta_graph_pb2
from lens.training.graph_compat import make_tf_compatible
from lens.training.saver_format import _atomic_write

__all__ = ["export_meta_graph"]

# Collections of variables, stored as serialized VariableDefs (as TensorFlow does).
VARIABLE_COLLECTIONS = ("variables", "trainable_variables", "local_variables", "model_variables",
                         "moving_average_variables", "metric_variables", "global_step")


def _fill_collection(cdef, items):
    """Fill one CollectionDef from Python items; False when they cannot be serialized (skipped, as TF)."""
    from lens.ops.variables import Variable
    if all(isinstance(x, Variable) for x in items):
        cdef.bytes_list.value.extend(v.to_proto().SerializeToString() for v in items)
    elif all(isinstance(x, (Tensor, Operation)) for x in items):
        cdef.node_list.value.extend(x.name for x in items)
    elif all(isinstance(x, (bytes, str)) for x in items):
        cdef.bytes_list.value.extend(x.encode("utf-8") if isinstance(x, str) else x for x in items)
    elif all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in items):
        cdef.int64_list.value.extend(int(x) for x in items)
    elif all(isinstance(x, numbers.Real) for x in items):
        cdef.float_list.value.extend(float(x) for x in items)
    else:
        return False
    return True


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None, collection_list=None,
                      as_text=False, graph=None, export_scope=None, clear_devices=False,
                      clear_extraneous_savers=False, strip_default_attrs=False, save_debug_info=False, **kwargs):
    """A MetaGraphDef of graph (GraphDef, SaverDef, collections), written to filename when given."""
    from google.protobuf import text_format
    g = graph or get_default_graph()
    meta = meta_graph_pb2.MetaGraphDef()
    if meta_info_def is not None:
        meta.meta_info_def.CopyFrom(meta_info_def)
    meta.meta_info_def.meta_graph_version = meta.meta_info_def.meta_graph_version or "v1.15.0"
    meta.meta_info_def.tensorflow_version = meta.meta_info_def.tensorflow_version or "1.15.0"
    if graph_def is not None:
        meta.graph_def.CopyFrom(graph_def)
    else:
        meta.graph_def.CopyFrom(make_tf_compatible(g.as_graph_def(), g))
    if clear_devices:
        for node in meta.graph_def.node:
            node.device = ""
    if saver_def is not None:
        meta.saver_def.CopyFrom(saver_def)
    keys = g.get_all_collection_keys() if collection_list is None else collection_list
    for key in sorted(keys, key=str):
        items = g.get_collection(key)
        if not isinstance(key, str) or not items:
            continue
        cdef = meta_graph_pb2.CollectionDef()
        if _fill_collection(cdef, items):
            meta.collection_def[key].CopyFrom(cdef)
    if filename:
        _atomic_write(filename, text_format.MessageToString(meta) if as_text else meta.SerializeToString())
    return meta


def read_meta_graph_file(filename):
    """The MetaGraphDef in filename (binary, or text format as a fallback)."""
    from google.protobuf import text_format
    from lens.framework import errors
    if not os.path.exists(filename):
        raise IOError("File %s does not exist." % filename)
    with open(filename, "rb") as f:
        data = f.read()
    meta = meta_graph_pb2.MetaGraphDef()
    try:
        meta.ParseFromString(data)
        return meta
    except Exception:
        pass
    try:
        text_format.Merge(data.decode("utf-8"), meta)
    except Exception as e:
        raise errors.DataLossError(None, None, "%s is not a MetaGraphDef (binary or text): %s" % (filename, e))
    return meta
