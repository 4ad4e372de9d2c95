"""tf.saved_model in its TF1 meaning: SavedModelBuilder, loader.load, simple_save, signatures and constants."""
from lens.training.saved_model import (builder, constants, loader, main_op, signature_constants,  # noqa: F401
                                       signature_def_utils, tag_constants, utils)
from lens.training.saved_model.builder import SavedModelBuilder, simple_save
from lens.training.saved_model.constants import *  # noqa: F401,F403
from lens.training.saved_model.main_op import main_op_with_restore
from lens.training.saved_model.loader import contains_saved_model, load, maybe_saved_model_directory
from lens.training.saved_model.signature_constants import *  # noqa: F401,F403
from lens.training.saved_model.signature_def_utils import (build_signature_def, classification_signature_def,
                                                           is_valid_signature, predict_signature_def,
                                                           regression_signature_def)
from lens.training.saved_model.tag_constants import *  # noqa: F401,F403
from lens.training.saved_model.utils import build_tensor_info, get_tensor_from_tensor_info

Builder = SavedModelBuilder

__all__ = (["builder", "constants", "loader", "main_op", "signature_constants", "signature_def_utils", "tag_constants",
            "utils", "SavedModelBuilder", "Builder", "simple_save", "load", "contains_saved_model",
            "maybe_saved_model_directory", "build_signature_def", "classification_signature_def",
            "is_valid_signature", "predict_signature_def", "regression_signature_def", "build_tensor_info",
            "get_tensor_from_tensor_info", "main_op_with_restore"] + signature_constants.__all__ + tag_constants.__all__
           + constants.__all__)
