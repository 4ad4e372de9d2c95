"""TF1 top-level names for sparse and structured values: SparseTensor / IndexedSlices, sparse_*, TensorArray,
the scatter_* variable updates, tables_initializer (tf.sparse, tf.sets, ... are in namespaces.py)."""
import importlib

__all__ = []

# TF1 top-level names: module -> names.
_TOP = {
    "lens.framework.sparse_tensor": ["SparseTensor", "SparseTensorValue", "convert_to_tensor_or_sparse_tensor"],
    "lens.framework.indexed_slices": ["IndexedSlices", "IndexedSlicesValue"],
    "lens.ops.sparse_ops": ["sparse_tensor_to_dense", "sparse_reorder", "sparse_reshape", "sparse_reduce_sum",
                            "sparse_reduce_max", "sparse_tensor_dense_matmul", "sparse_add", "sparse_retain",
                            "sparse_fill_empty_rows", "sparse_placeholder"],
    "lens.ops.sparse_ops_extra": ["sparse_concat", "sparse_slice", "sparse_split", "sparse_transpose",
                                  "sparse_softmax", "sparse_maximum", "sparse_minimum", "sparse_to_indicator",
                                  "sparse_reset_shape"],
    "lens.ops.state_scatter": ["scatter_update", "scatter_add", "scatter_sub", "scatter_mul", "scatter_div",
                               "scatter_min", "scatter_max", "scatter_nd_update", "scatter_nd_add", "scatter_nd_sub",
                               "batch_scatter_update"],
    "lens.ops.lookup_ops": ["tables_initializer", "initialize_all_tables"],
    "lens.ops.tensor_array": ["TensorArray"],
    "lens.ops.parsing": ["SparseFeature"],
    "lens.ops.sparse_math": ["sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n"],
    "lens.ops.segment_scatter_extra": ["unsorted_segment_mean", "unsorted_segment_sqrt_n", "unsorted_segment_prod",
                                       "tensor_scatter_nd_max", "tensor_scatter_nd_min"],
    "lens.ops.sparse_serialize": ["serialize_sparse", "serialize_many_sparse", "deserialize_many_sparse"],
    "lens.ops.sparse_misc": ["sparse_merge", "sparse_mask", "sparse_matmul", "sparse_reduce_sum_sparse",
                             "sparse_reduce_max_sparse"],
}
for _mod, _names in _TOP.items():
    _m = importlib.import_module(_mod)
    for _n in _names:
        globals()[_n] = getattr(_m, _n)
        __all__.append(_n)
