"""Import every op family so every op type is registered (used by the facade and tests)."""
import importlib

FAMILIES = ["core", "math", "array", "reduce", "logic", "sequence", "slicing", "linalg", "overloads",
            "indexing", "random", "nn", "control_flow", "conv", "pool", "nn_extra", "rnn_ops", "parsing",
            "math_special", "scan_ops", "linalg_extra", "linalg_einsum", "array_extra", "scatter_ops", "image_ops",
            "image_composites", "special_ops", "string_ops", "string_csv", "data_flow_ops", "sparse_map_ops", "encode_ops", "accumulator_ops", "hash_ops",
            "sparse_ops", "sparse_ops_extra", "bitwise_ops", "set_ops", "state_scatter", "embedding_sparse",
            "lookup_ops", "tensor_array_ops", "tensor_array", "sparse_math", "sparse_misc", "sparse_serialize",
            "lookup_mutable", "segment_scatter_extra", "sparse_cross",
            "special_fns", "math_more", "linalg_solve", "strings_extra",
            "random_stateless", "random_stateless_more", "array_more",
            "parsing_sequence"]

# The model families of issue 15 (FFTs and complex parts, tf.signal's composites, ...).
FAMILIES += ["complex_ops", "signal_fft", "signal_ops", "image_codecs", "image_color", "image_boxes", "image_quality",
             "space_batch", "conv3d", "nn_more", "nn_sampled", "ctc", "audio_ops", "nn_morph", "image_resize_more",
             "image_glimpse", "fake_quant", "edit_distance"]

# Gradients that need ops from a family above their own op's family (TF's *_grad.py modules): the op
# definitions register no gradient for these types, so they must be imported for every op to have one.
GRADIENTS = ["array_grad", "logic_grad", "math_grad", "slicing_grad"]


def load_all():
    """Import each op family module that exists, then the gradient modules."""
    for fam in FAMILIES:
        try:
            importlib.import_module("lens.ops." + fam)
        except ModuleNotFoundError as e:
            if e.name != "lens.ops." + fam:
                raise
    for mod in GRADIENTS:
        importlib.import_module("lens.ops." + mod)


load_all()

# Variables take the same Python operators as Tensors (they read `v/read`).
from lens.ops.overloads import install as _install  # noqa: E402
from lens.ops.variables import Variable as _Variable  # noqa: E402

_install(_Variable)

# Eager execution: tf.Variable's eager class and tf.GradientTape (they register with variables.py).
from lens.ops import backprop as _backprop, eager_variables as _eager_variables  # noqa: E402,F401

# Ops defined outside lens/ops (optimizer updates, summaries) are registered too, so a
# GraphDef holding them imports and runs without first touching tf.train or tf.summary.
for _mod in ("lens.training.gradient_descent", "lens.training.optimizers_ops", "lens.training.optimizers_sparse_ops",
             "lens.training.optimizers_proximal", "lens.events.summary_ops"):
    importlib.import_module(_mod)
