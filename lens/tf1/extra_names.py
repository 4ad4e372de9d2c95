"""Facade names from op families that live in their own modules (indexing, random, nn, ...)."""
import importlib

__all__ = []
_SOURCES = {
    "lens.ops.indexing": ["gather", "gather_nd", "scatter_nd", "one_hot", "split", "strided_slice",
                                 "boolean_mask", "reverse", "sequence_mask", "clip_by_value"],
    "lens.ops.random": ["random_normal", "truncated_normal", "random_uniform", "random_shuffle",
                               "multinomial", "set_random_seed", "random_gamma", "random_poisson"],
    "lens.ops.init_ops": ["zeros_initializer", "ones_initializer", "constant_initializer",
                             "random_normal_initializer", "truncated_normal_initializer",
                             "random_uniform_initializer", "glorot_uniform_initializer",
                             "glorot_normal_initializer", "variance_scaling_initializer",
                             "orthogonal_initializer", "initializers", "uniform_unit_scaling_initializer",
                             "identity_initializer", "diag", "diag_part"],
    "lens.ops.variable_scope": ["get_variable", "variable_scope", "get_variable_scope", "AUTO_REUSE",
                                   "VariableScope", "get_local_variable", "variable_op_scope"],
    "lens.ops.reduce": ["arg_max", "arg_min"],
    "lens.proto.tensor_util": ["make_ndarray"],
    "lens.framework.eager": ["enable_eager_execution", "disable_eager_execution", "executing_eagerly"],
    "lens.ops.backprop": ["GradientTape"],
    "lens.ops.clip": ["clip_by_norm", "clip_by_average_norm", "clip_by_global_norm", "global_norm"],
    "lens.ops.control_flow": ["cond", "case", "while_loop", "map_fn", "scan", "foldl", "foldr", "Assert",
                                     "assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
                                     "assert_greater", "assert_greater_equal", "assert_positive",
                                     "assert_negative", "assert_non_negative", "assert_non_positive",
                                     "assert_rank", "assert_rank_at_least", "assert_type", "check_numerics",
                                     "verify_tensor_all_finite"],
    "lens.ops.rnn_ops": ["reverse_sequence"],
    "lens.ops.scan_ops": ["cumsum", "cumprod", "segment_sum", "segment_mean", "segment_max",
                                 "segment_min", "segment_prod", "unsorted_segment_max",
                                 "unsorted_segment_min", "unsorted_segment_sum", "unique", "roll"],
    "lens.ops.linalg_extra": ["eye", "matrix_transpose", "trace", "matrix_band_part", "matrix_diag",
                                     "matrix_diag_part", "matrix_set_diag", "tensordot", "matrix_inverse",
                                     "matrix_determinant", "cholesky"],
    "lens.ops.linalg_einsum": ["einsum"],
    "lens.ops.string_ops": ["decode_raw", "string_join", "reduce_join", "as_string",
                                   "string_to_number", "substr", "regex_replace", "string_split"],
    "lens.ops.string_csv": ["decode_csv"],
    "lens.ops.hash_ops": ["string_to_hash_bucket_fast"],
    "lens.ops.special_ops": ["lgamma", "digamma", "polygamma", "setdiff1d", "qr", "svd"],
    "lens.ops.scatter_ops": ["sparse_to_dense", "confusion_matrix", "histogram_fixed_width",
                                    "unravel_index", "bitcast", "tensor_scatter_nd_update",
                                    "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
                                    "tensor_scatter_update", "tensor_scatter_add", "tensor_scatter_sub"],
    "lens.ops.array_extra": ["space_to_depth", "depth_to_space", "count_nonzero", "meshgrid"],
    "lens.ops.math_special": ["tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh",
                                     "atanh", "expm1", "erf", "erfc", "rint", "atan2", "truncatediv",
                                     "truncatemod", "realdiv"],
    "lens.ops.special_fns": ["betainc", "igamma", "igammac", "lbeta", "zeta"],
    "lens.ops.parsing": ["parse_single_example", "parse_example", "FixedLenFeature", "VarLenFeature"],
    "lens.framework.devices": ["DeviceSpec"],
    "lens.ops.data_flow_ops": ["QueueBase", "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue"],
    "lens.ops.variables": ["count_up_to"],
    "lens.ops.accumulator_ops": ["ConditionalAccumulatorBase", "ConditionalAccumulator", "SparseConditionalAccumulator"],
    "lens.platform.tf_logging": ["get_logger"],
    "lens.ops.encode_ops": ["encode_base64", "decode_base64", "decode_compressed", "serialize_tensor", "parse_tensor",
                            "decode_json_example"],
    "lens.events.io_ops": ["matching_files", "read_file", "write_file"],
    "lens.data.reader_ops": ["ReaderBase", "TFRecordReader", "TextLineReader", "FixedLengthRecordReader",
                             "WholeFileReader", "IdentityReader"],
    "lens.ops.image_composites": ["saturate_cast"],
    "lens.tf1.model_names": ["signal", "spectral", "manip", "fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d",
                             "fftnd", "ifftnd", "rfftnd", "irfftnd", "complex", "real", "imag", "conj", "angle"],
    "lens.tf1.namespaces": ["graph_util", "nn", "train", "math", "image", "strings", "linalg", "summary", "compat", "layers", "losses",
                               "metrics", "data", "contrib", "python_io", "random", "queue", "gfile", "test",
                               "resource_loader",
                               "debugging", "saved_model", "pywrap_tensorflow", "feature_column", "estimator", "io", "client", "app", "flags", "logging",
                               "sparse", "sets", "bitwise", "lookup",
                               "Summary", "Event", "SessionLog", "HistogramProto", "GraphDef", "NodeDef",
                               "RunOptions", "RunMetadata", "ConfigProto", "GPUOptions", "OptimizerOptions",
                               "GraphOptions"],
}
for _mod, _names in _SOURCES.items():
    try:
        _m = importlib.import_module(_mod)
    except ModuleNotFoundError as _e:
        if _e.name != _mod:
            raise
        continue
    for _n in _names:
        if hasattr(_m, _n):
            globals()[_n] = getattr(_m, _n)
            __all__.append(_n)
