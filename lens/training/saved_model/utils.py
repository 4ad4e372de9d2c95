"""TensorInfo protos from tensors and back (tf.saved_model.utils)."""
from lens.framework.graph import Tensor, get_default_graph
from lens.framework.sparse_tensor import SparseTensor
from lens.proto import meta_graph_pb2

__all__ = ["build_tensor_info", "get_tensor_from_tensor_info"]


def build_tensor_info(tensor):
    """The TensorInfo (name, dtype, static shape) of a Tensor or SparseTensor."""
    if isinstance(tensor, SparseTensor):
        info = meta_graph_pb2.TensorInfo(dtype=tensor.dtype.base_dtype.as_datatype_enum)
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
        shape = tensor.get_shape()
    elif isinstance(tensor, Tensor):
        info = meta_graph_pb2.TensorInfo(name=tensor.name, dtype=tensor.dtype.base_dtype.as_datatype_enum)
        shape = tensor.shape
    else:
        raise TypeError("build_tensor_info needs a Tensor or SparseTensor, got %r. Pass the graph tensor "
                        "(e.g. the placeholder), not a value." % (tensor,))
    if shape.ndims is None:
        info.tensor_shape.unknown_rank = True
    else:
        for d in shape.as_list():
            info.tensor_shape.dim.add(size=-1 if d is None else d)
    return info


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The Tensor (or SparseTensor) a TensorInfo names, in graph (default graph)."""
    graph = graph or get_default_graph()

    def by_name(name):
        return graph.get_tensor_by_name("%s/%s" % (import_scope, name) if import_scope else name)
    kind = tensor_info.WhichOneof("encoding")
    if kind == "name":
        return by_name(tensor_info.name)
    if kind == "coo_sparse":
        c = tensor_info.coo_sparse
        return SparseTensor(by_name(c.indices_tensor_name), by_name(c.values_tensor_name),
                            by_name(c.dense_shape_tensor_name))
    raise ValueError("Invalid TensorInfo.encoding: %s" % kind)
