"""tf.train.import_meta_graph: a MetaGraphDef's graph, collections and Saver added to the default graph."""
import os

from lens.framework.graph import get_default_graph
from lens.framework.importer import import_graph_def
from lens.framework.registry import load_op_libraries, registered_ops
from lens.ops.variables import Variable
from lens.proto import meta_graph_pb2, variable_pb2
from lens.training.meta_graph import VARIABLE_COLLECTIONS, read_meta_graph_file
from lens.training.saver import Saver

__all__ = ["import_meta_graph"]


def _check_op_types(graph_def):
    """ValueError naming the op types lens lacks (as TensorFlow's 'Op type not registered'), before any import."""
    known = set(registered_ops())
    if any(node.op not in known for node in graph_def.node):
        load_op_libraries()     # a process that never touched a tf.* name has not loaded every op family yet
        known = set(registered_ops())
    missing = {}
    for node in graph_def.node:
        if node.op not in known:
            missing.setdefault(node.op, node.name)
    if not missing:
        return
    hint = ""
    if {"StatefulPartitionedCall", "PartitionedCall", "VarHandleOp"} & set(missing):
        hint = (" This looks like a TF2 SavedModel (tf.saved_model.save / Keras, functions and resource "
                "variables); lens loads TF1 graphs: SavedModelBuilder, simple_save and Estimator exports.")
    raise ValueError("Op type not registered %s in lens (first at node %s).%s"
                     % (", ".join("'%s'" % t for t in sorted(missing)),
                        ", ".join(missing[t] for t in sorted(missing)), hint))


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Add a MetaGraphDef's graph and collections to the default graph; returns its Saver (or None).

    kwargs: input_map ({name in the graph: Tensor}, e.g. a placeholder in place of an input pipeline)
    and restore_collections_predicate (which collections to bring back), as TF1's.
    """
    meta = meta_graph_or_file if isinstance(meta_graph_or_file, meta_graph_pb2.MetaGraphDef) \
        else read_meta_graph_file(os.fspath(meta_graph_or_file))
    graph_def = meta.graph_def
    if clear_devices:
        graph_def = type(graph_def).FromString(graph_def.SerializeToString())
        for node in graph_def.node:
            node.device = ""
    _check_op_types(graph_def)
    g = get_default_graph()
    input_map = dict(kwargs.get("input_map") or {})
    for name in [n for n in input_map if n.endswith(":0")]:
        input_map.setdefault(name[:-2], input_map[name])      # NodeDefs name output 0 without ":0"
    import_graph_def(graph_def, input_map=input_map, name=import_scope or "")
    keep = kwargs.get("restore_collections_predicate") or (lambda key: True)

    def scoped(name):
        return "%s/%s" % (import_scope, name) if import_scope else name
    made = {}
    for key in sorted(meta.collection_def):
        if not keep(key):
            continue
        cdef = meta.collection_def[key]
        kind = cdef.WhichOneof("kind")
        if kind == "bytes_list" and key in VARIABLE_COLLECTIONS:
            for raw in cdef.bytes_list.value:
                vdef = variable_pb2.VariableDef.FromString(raw)
                if vdef.variable_name not in made:
                    made[vdef.variable_name] = Variable(variable_def=vdef, import_scope=import_scope)
                g.add_to_collection(key, made[vdef.variable_name])
        elif kind == "node_list":
            for name in cdef.node_list.value:
                try:
                    g.add_to_collection(key, g.as_graph_element(scoped(name)))
                except (KeyError, ValueError):
                    pass
        elif kind in ("bytes_list", "int64_list", "float_list"):
            for value in getattr(cdef, kind).value:
                g.add_to_collection(key, value)
    if meta.HasField("saver_def") and meta.saver_def.restore_op_name:
        sd = type(meta.saver_def)()
        sd.CopyFrom(meta.saver_def)
        if import_scope:
            for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                setattr(sd, field, scoped(getattr(sd, field)))
        return Saver(saver_def=sd)
    if made:
        return Saver(var_list=list(made.values()))
    return None
