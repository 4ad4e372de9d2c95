"""TF1's sub-namespaces (tf.nn, tf.train, tf.summary, tf.compat.v1, ...) resolved lazily."""
import importlib
import types

# Library packages named like TF1 namespaces: imported before the namespaces below are bound to
# lens.<name>, because a package's first import rebinds its parent's attribute to the package.
import lens.client  # noqa: F401
import lens.data  # noqa: F401
import lens.distributed  # noqa: F401 - Session('grpc://host:port') runs on the cluster's task actors
import lens.layers  # noqa: F401
import lens.losses  # noqa: F401
import lens.metrics  # noqa: F401


class LazyNamespace(types.ModuleType):
    """A module whose attributes come from a list of source modules, imported on first use."""

    def __init__(self, name, sources, extra=None):
        super().__init__(name)
        self._sources = sources
        self._extra = extra or {}

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if attr in self._extra:
            value = self._extra[attr]
            if isinstance(value, str):
                value = _resolve(value)
            setattr(self, attr, value)
            return value
        for src in self._sources:
            try:
                mod = importlib.import_module(src)
            except ModuleNotFoundError as e:
                if e.name != src:
                    raise
                continue
            if attr in getattr(mod, "__all__", ()) or (not attr.startswith("_") and hasattr(mod, attr)
                                                         and not isinstance(getattr(mod, attr), types.ModuleType)):
                value = getattr(mod, attr)
                setattr(self, attr, value)
                return value
        raise AttributeError("module 'lens.%s' has no attribute %r (not implemented in lens yet, "
                             "or not a TF1 name)" % (self.__name__, attr))

    def __dir__(self):
        names = set(self._extra)
        for src in self._sources:
            try:
                mod = importlib.import_module(src)
            except ModuleNotFoundError:
                continue
            names.update(getattr(mod, "__all__", [n for n in dir(mod) if not n.startswith("_")]))
        return sorted(names)


def _resolve(path):
    mod, _, attr = path.rpartition(".")
    parent = importlib.import_module(mod)
    if not hasattr(parent, attr):
        # The path names a submodule that nobody imported yet (e.g. tf.contrib.layers).
        return importlib.import_module(path)
    return getattr(parent, attr)


nn = LazyNamespace("nn", ["lens.ops.nn", "lens.ops.conv", "lens.ops.pool",
                          "lens.ops.nn_extra", "lens.rnn.nn_rnn"], {
    "sigmoid": "lens.ops.math.sigmoid", "tanh": "lens.ops.math.tanh",
    **{n: "lens.ops.math_more." + n for n in ("approx_max_k", "approx_min_k")},
    "rnn_cell": "lens.rnn.rnn_cell",
    "embedding_lookup_sparse": "lens.ops.embedding_sparse.embedding_lookup_sparse",
    "safe_embedding_lookup_sparse": "lens.ops.embedding_sparse.safe_embedding_lookup_sparse"})
train = LazyNamespace("train", ["lens.training.optimizers", "lens.training.saver",
                                "lens.training.saver_import", "lens.training.checkpoint_utils",
                                "lens.training.monitored", "lens.training.hooks",
                                "lens.training.hooks_checkpoint",
                                "lens.training.decay", "lens.training.ema", "lens.training.queue_runner",
                                "lens.training.input", "lens.training.looper",
                                "lens.training.optimizers_proximal", "lens.training.train_extra",
                                "lens.training.supervisor", "lens.training.checkpoint_object"], {
    "queue_runner": "lens.tf1.namespaces.train_queue_runner",
    "Optimizer": "lens.training.optimizer.Optimizer",
    "ClusterSpec": "lens.distributed.cluster.ClusterSpec", "Server": "lens.distributed.server.Server",
    "replica_device_setter": "lens.training.device_setter.replica_device_setter",
    "SyncReplicasOptimizer": "lens.training.sync_replicas_optimizer.SyncReplicasOptimizer",
    "SessionManager": "lens.training.session_manager.SessionManager",
    "ClusterDef": "lens.proto.cluster_pb2.ClusterDef", "JobDef": "lens.proto.cluster_pb2.JobDef",
    "GradientDescentOptimizer": "lens.training.gradient_descent.GradientDescentOptimizer",
    "get_global_step": "lens.training.training_util.get_global_step",
    "create_global_step": "lens.training.training_util.create_global_step",
    "get_or_create_global_step": "lens.training.training_util.get_or_create_global_step",
    "global_step": "lens.training.training_util.global_step",
    "summary_iterator": "lens.events.summary_builders.summary_iterator",
    "SummarySaverHook": "lens.training.summary_hook.SummarySaverHook",
    "Example": "lens.proto.example_pb2.Example", "Features": "lens.proto.feature_pb2.Features",
    "Feature": "lens.proto.feature_pb2.Feature", "BytesList": "lens.proto.feature_pb2.BytesList",
    "FloatList": "lens.proto.feature_pb2.FloatList", "Int64List": "lens.proto.feature_pb2.Int64List",
})
summary = LazyNamespace("summary", ["lens.events.summary_ops"], {
    "FileWriter": "lens.events.writer.FileWriter",
    "FileWriterCache": "lens.events.writer.FileWriterCache",
    "Summary": "lens.proto.summary_pb2.Summary",
    "SummaryDescription": "lens.proto.summary_pb2.SummaryDescription",
    "summary_iterator": "lens.events.summary_builders.summary_iterator",
    **{n: "lens.proto.event_pb2." + n for n in ("Event", "SessionLog", "TaggedRunMetadata")},
})
nest = LazyNamespace("nest", ["lens.ops.nest_api"])
math = LazyNamespace("math", ["lens.ops.math", "lens.ops.math_special", "lens.ops.logic",
                              "lens.ops.reduce", "lens.ops.special_fns", "lens.ops.math_more"], {
    "special": "lens.tf1.namespaces.math_special",
    **{n: "lens.ops.nn." + n for n in ("softmax", "log_softmax", "softplus", "softsign", "l2_normalize")},
    **{n: "lens.ops.nn_extra." + n for n in ("top_k", "in_top_k")},
    "count_nonzero": "lens.ops.array_extra.count_nonzero", "divide_no_nan": "lens.ops.math.div_no_nan",
    "divide": "lens.ops.math.divide",
    "confusion_matrix": "lens.ops.scatter_ops.confusion_matrix",
    **{n: "lens.ops.segment_scatter_extra." + n for n in ("unsorted_segment_mean", "unsorted_segment_sqrt_n",
                                                          "unsorted_segment_prod")},
    **{n: "lens.ops.special_ops." + n for n in ("lgamma", "digamma", "polygamma")},
    **{n: "lens.ops.scan_ops." + n
       for n in ("cumsum", "cumprod", "segment_sum", "segment_mean", "segment_max", "segment_min",
                 "segment_prod", "unsorted_segment_sum", "unsorted_segment_max", "unsorted_segment_min")}})
math_special = LazyNamespace("special", ["lens.ops.special_fns"])
# tf.linalg's own names for the matrix ops (tf.linalg.diag is TF1's matrix_diag, not tf.diag).
# tf.strings: TF1.15's names (tf.strings.split returns a RaggedTensor there: left out).
strings = LazyNamespace("strings", ["lens.ops.strings_extra"], {
    "as_string": "lens.ops.string_ops.as_string",
    "join": "lens.ops.string_ops.string_join", "to_number": "lens.ops.string_ops.string_to_number",
    "to_hash_bucket_fast": "lens.ops.hash_ops.string_to_hash_bucket_fast",
    **{n: "lens.ops.string_ops." + n for n in ("reduce_join", "substr", "regex_replace", "strip",
                                                       "length")}})
# tf.image: TF1's public names only (the gradient ops and AdjustContrastv2 stay internal).
image = LazyNamespace("image", [], {
    **{n: "lens.ops.image_ops." + n for n in (
        "resize_bilinear", "resize_nearest_neighbor", "ResizeMethod")},
    **{n: "lens.ops.image_resize_more.resize_images" for n in ("resize_images", "resize")},
    **{n: "lens.ops.image_composites." + n for n in (
        "flip_left_right", "flip_up_down", "transpose_image", "per_image_standardization",
        "central_crop", "crop_to_bounding_box", "pad_to_bounding_box", "resize_image_with_crop_or_pad",
        "resize_with_crop_or_pad", "convert_image_dtype", "rgb_to_grayscale", "adjust_brightness",
        "adjust_contrast")},
    "transpose": "lens.ops.image_composites.transpose_image"})
linalg = LazyNamespace("linalg", ["lens.ops.linalg", "lens.ops.linear_operator"], {
    **{n: "lens.ops.linalg_extra." + f for n, f in [
        ("eye", "eye"), ("matrix_transpose", "matrix_transpose"), ("transpose", "matrix_transpose"),
        ("trace", "trace"), ("band_part", "matrix_band_part"), ("diag", "matrix_diag"),
        ("diag_part", "matrix_diag_part"), ("set_diag", "matrix_set_diag"), ("tensordot", "tensordot"),
        ("inv", "matrix_inverse"), ("det", "matrix_determinant"), ("cholesky", "cholesky")]},
    "einsum": "lens.ops.linalg_einsum.einsum",
    "qr": "lens.ops.special_ops.qr", "svd": "lens.ops.special_ops.svd",
    **{n: "lens.ops.linalg_solve." + f for n, f in [
        ("adjoint", "adjoint"), ("cholesky_solve", "cholesky_solve"), ("cross", "cross"), ("eigh", "self_adjoint_eig"),
        ("eigvalsh", "self_adjoint_eigvals"), ("expm", "expm"), ("logdet", "logdet"), ("lstsq", "lstsq"),
        ("matrix_rank", "matrix_rank"), ("matvec", "matvec"), ("normalize", "normalize"), ("pinv", "pinv"),
        ("slogdet", "slogdet"), ("solve", "matrix_solve"), ("sqrtm", "sqrtm"),
        ("triangular_solve", "matrix_triangular_solve")]},
    "global_norm": "lens.ops.clip.global_norm", "l2_normalize": "lens.ops.nn.l2_normalize",
    "tensor_diag": "lens.ops.init_ops.diag", "tensor_diag_part": "lens.ops.init_ops.diag_part"})
random = LazyNamespace("random", ["lens.ops.random"], {
    **{n: "lens.ops.random_stateless.stateless_random_" + n[len("stateless_"):]
       for n in ("stateless_uniform", "stateless_normal")},
    "stateless_truncated_normal": "lens.ops.random_stateless.stateless_truncated_normal",
    **{n: "lens.ops.random_stateless_more." + n for n in (
        "stateless_categorical", "stateless_multinomial", "stateless_parameterized_truncated_normal")},
    **{n: "lens.ops.random_stateless_more.stateless_random_" + n[len("stateless_"):]
       for n in ("stateless_gamma", "stateless_poisson", "stateless_binomial")},
    "split": "lens.ops.random_stateless_more.stateless_split",
    "fold_in": "lens.ops.random_stateless_more.stateless_fold_in",
    "Algorithm": "lens.ops.random_stateless_more.Algorithm",
    "experimental": "lens.tf1.namespaces.random_experimental"})
random_experimental = LazyNamespace("experimental", [], {
    n: "lens.ops.random_stateless_more." + n for n in ("stateless_split", "stateless_fold_in", "Algorithm")})
layers = LazyNamespace("layers", ["lens.layers"])
losses = LazyNamespace("losses", ["lens.losses", "lens.losses.pairwise"])
version = LazyNamespace("version", ["lens.tf1.version_names"])
# tf.dtypes: the DType module plus TF's cast helpers filed under it.
dtypes = LazyNamespace("dtypes", ["lens.framework.dtypes"], {
    "cast": "lens.ops.math.cast", "saturate_cast": "lens.ops.image_composites.saturate_cast",
    "as_string": "lens.ops.string_ops.as_string", "complex": "lens.ops.complex_ops.complex"})
metrics = LazyNamespace("metrics", ["lens.metrics"])
data = LazyNamespace("data", ["lens.data"])
python_io = LazyNamespace("python_io", ["lens.events.tfrecord"])
train_queue_runner = LazyNamespace("queue_runner", ["lens.training.queue_runner"])
queue = LazyNamespace("queue", ["lens.ops.data_flow_ops"])
# tf.gfile keeps TF1's CamelCase names; tf.io.gfile has TF2's snake_case ones.
gfile = LazyNamespace("gfile", [], {n: "lens.events.gfile." + n for n in (
    "Copy", "DeleteRecursively", "Exists", "FastGFile", "GFile", "Glob", "IsDirectory", "ListDirectory", "MakeDirs",
    "MkDir", "Open", "Remove", "Rename", "Stat", "Walk")})
io_gfile = LazyNamespace("gfile", [], {n: "lens.events.gfile." + n for n in (
    "GFile", "copy", "exists", "get_registered_schemes", "glob", "isdir", "join", "listdir", "makedirs", "mkdir",
    "remove", "rename", "rmtree", "stat", "walk")})
io = LazyNamespace("io", ["lens.events.tfrecord", "lens.ops.parsing", "lens.ops.parsing_sequence",
                          "lens.ops.data_flow_ops", "lens.events.io_ops",
                          "lens.ops.encode_ops"], {
    "gfile": io_gfile, "match_filenames_once": "lens.training.input.match_filenames_once",
    "write_graph": "lens.training.saver.write_graph",
    "decode_csv": "lens.ops.string_csv.decode_csv",
    **{n: "lens.ops.sparse_serialize." + n for n in ("serialize_sparse", "serialize_many_sparse",
                                                     "deserialize_many_sparse")},
    "decode_raw": "lens.ops.string_ops.decode_raw"})
debugging = LazyNamespace("debugging", ["lens.ops.control_flow", "lens.ops.asserts_extra"], {
    "experimental": "lens.dbg.dumping_callback",
    **{n: "lens.ops.logic." + n for n in ("is_finite", "is_inf", "is_nan")},
    **{n: "lens.ops.math_more." + n for n in ("is_non_decreasing", "is_strictly_increasing")},
    "is_numeric_tensor": "lens.tf1.compat_names.is_numeric_tensor"})
saved_model = LazyNamespace("saved_model", ["lens.training.saved_model"])
pywrap_tensorflow = LazyNamespace("pywrap_tensorflow", ["lens.training.checkpoint_reader"])
feature_column = LazyNamespace("feature_column", ["lens.feature_column"])
estimator = LazyNamespace("estimator", ["lens.estimator"], {"inputs": "lens.estimator.inputs"})
client = LazyNamespace("client", [], {"timeline": "lens.client.timeline"})
contrib = LazyNamespace("contrib", [], {"layers": "lens.layers.contrib", "lookup": "lens.tf1.namespaces.contrib_lookup", "estimator": "lens.estimator.contrib",
                                        "rnn": "lens.rnn.rnn_cell", "training": "lens.tf1.namespaces.contrib_training",
                                        "tensorboard": "lens.plugins.contrib_tensorboard",
                                        "eager": "lens.tf1.namespaces.contrib_eager",
                                        "summary": "lens.events.contrib_summary",
                                        "factorization": "lens.factorization",
                                        "tensor_forest": "lens.tf1.namespaces.contrib_tensor_forest",
                                        "boosted_trees": "lens.estimator.contrib_boosted_trees",
                                        "learn": "lens.tf1.namespaces.contrib_learn"})
contrib_training = LazyNamespace("training", [], {
    n: "lens.training.device_setter." + n for n in ("GreedyLoadBalancingStrategy", "byte_size_load_fn")})
# tf.contrib.tensor_forest: the forest graphs (a library) and client.random_forest's estimator.
contrib_tensor_forest = LazyNamespace("tensor_forest", ["lens.tensor_forest"], {
    "python": "lens.tensor_forest.python", "client": "lens.estimator.contrib_tensor_forest"})
# tf.contrib.learn: what TF1 programs still take from it (RunConfig for contrib estimators).
contrib_learn = LazyNamespace("learn", ["lens.estimator.contrib_learn"])
# tf.contrib.eager (`import tensorflow.contrib.eager as tfe`): the eager switch, tape helpers, Iterator.
contrib_eager = LazyNamespace("eager", ["lens.ops.backprop"], {
    "Variable": "lens.ops.variables.Variable", "Iterator": "lens.data.eager_iterator.EagerIterator",
    **{n: "lens.framework.eager." + n for n in ("enable_eager_execution", "executing_eagerly")},
    "in_eager_mode": "lens.framework.eager.executing_eagerly"})
# TF's python/platform: tf.logging, tf.app (with tf.app.flags), tf.flags (absl.flags), tf.test, tf.resource_loader.
logging = LazyNamespace("logging", ["lens.platform.tf_logging"])
app = LazyNamespace("app", ["lens.platform.app"])
flags = LazyNamespace("flags", ["lens.platform.flags"])
test = LazyNamespace("test", ["lens.platform.test_util"], {"TestCase": "lens.platform.test_case.TestCase",
                     "create_local_cluster": "lens.distributed.server.create_local_cluster"})
resource_loader = LazyNamespace("resource_loader", ["lens.platform.resource_loader"])
graph_util = LazyNamespace("graph_util", ["lens.framework.graph_util", "lens.framework.graph_util_extra"], {
    "import_graph_def": "lens.framework.importer.import_graph_def"})
_SP, _SPX = "lens.ops.sparse_ops.", "lens.ops.sparse_ops_extra."
sparse = LazyNamespace("sparse", [], {
    "SparseTensor": "lens.framework.sparse_tensor.SparseTensor",
    "add": _SP + "sparse_add", "to_dense": _SP + "sparse_tensor_to_dense", "reorder": _SP + "sparse_reorder",
    "reshape": _SP + "sparse_reshape", "reduce_sum": _SP + "sparse_reduce_sum",
    "reduce_max": _SP + "sparse_reduce_max", "matmul": _SP + "sparse_tensor_dense_matmul",
    "sparse_dense_matmul": _SP + "sparse_tensor_dense_matmul", "from_dense": _SP + "from_dense",
    "retain": _SP + "sparse_retain", "fill_empty_rows": _SP + "sparse_fill_empty_rows",
    "placeholder": _SP + "sparse_placeholder",
    **{n: _SPX + "sparse_" + n for n in ("concat", "slice", "split", "transpose", "softmax", "maximum", "minimum",
                                         "to_indicator", "expand_dims", "eye", "reset_shape")},
    **{"segment_" + n: "lens.ops.sparse_math.sparse_segment_" + n for n in ("sum", "mean", "sqrt_n")},
    **{n: "lens.ops.sparse_misc.sparse_" + n for n in ("reduce_sum_sparse", "reduce_max_sparse", "merge", "mask")},
    "cross": "lens.ops.sparse_cross.sparse_cross", "cross_hashed": "lens.ops.sparse_cross.sparse_cross_hashed"})
lookup = LazyNamespace("lookup", [], {
    **{n: "lens.ops.lookup_ops." + n for n in ("KeyValueTensorInitializer", "StaticHashTable", "TextFileIndex",
                                               "TextFileInitializer")},
    "StaticVocabularyTable": "lens.ops.lookup_vocab.StaticVocabularyTable",
    "experimental": "lens.tf1.namespaces.lookup_experimental"})
lookup_experimental = LazyNamespace("experimental", ["lens.ops.lookup_mutable"])
contrib_lookup = LazyNamespace("lookup", ["lens.ops.lookup_vocab"], {
    **{n: "lens.ops.lookup_ops." + n for n in ("HashTable", "KeyValueTensorInitializer", "TextFileIndex",
                                               "TextFileInitializer", "tables_initializer")},
    "MutableHashTable": "lens.ops.lookup_mutable.MutableHashTable",
    "MutableDenseHashTable": "lens.ops.lookup_mutable.DenseHashTable"})
sets = LazyNamespace("sets", ["lens.ops.set_ops"])
bitwise = LazyNamespace("bitwise", ["lens.ops.bitwise_ops"])


def _noop(*args, **kwargs):
    """Accept and ignore (TF1 logging verbosity)."""


_PROTO_NAMES = {
    "Summary": "lens.proto.summary_pb2.Summary", "Event": "lens.proto.event_pb2.Event",
    "SessionLog": "lens.proto.event_pb2.SessionLog", "HistogramProto": "lens.proto.histogram_pb2.HistogramProto",
    "GraphDef": "lens.proto.graph_pb2.GraphDef", "NodeDef": "lens.proto.node_def_pb2.NodeDef",
    "RunOptions": "lens.proto.config_pb2.RunOptions", "RunMetadata": "lens.proto.config_pb2.RunMetadata",
    "ConfigProto": "lens.proto.config_pb2.ConfigProto", "GPUOptions": "lens.proto.config_pb2.GPUOptions",
    "OptimizerOptions": "lens.proto.config_pb2.OptimizerOptions",
    "GraphOptions": "lens.proto.config_pb2.GraphOptions",
    "MetaGraphDef": "lens.proto.meta_graph_pb2.MetaGraphDef", "TensorInfo": "lens.proto.meta_graph_pb2.TensorInfo",
    "AttrValue": "lens.proto.attr_value_pb2.AttrValue", "NameAttrList": "lens.proto.attr_value_pb2.NameAttrList",
    "SummaryMetadata": "lens.proto.summary_pb2.SummaryMetadata", "LogMessage": "lens.proto.event_pb2.LogMessage",
}


def __getattr__(name):
    if name in _PROTO_NAMES:
        try:
            return _resolve(_PROTO_NAMES[name])
        except (ImportError, AttributeError):
            pass
    if name == "compat":
        import lens
        compat = types.ModuleType("compat")
        compat.v1 = lens
        return compat
    raise AttributeError(name)
