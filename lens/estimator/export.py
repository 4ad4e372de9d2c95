"""tf.estimator.export: serving input receivers, export outputs and their signatures (TF1.15)."""
import collections
import logging

from lens.framework import dtypes as _dt
from lens.framework.graph import Tensor
from lens.ops.parsing import SparseTensor
from lens.training.saved_model import signature_constants as sc
from lens.training.saved_model import signature_def_utils as sig_utils

__all__ = ["ServingInputReceiver", "build_raw_serving_input_receiver_fn",
           "build_parsing_serving_input_receiver_fn", "PredictOutput", "RegressionOutput",
           "ClassificationOutput", "ExportOutput"]

_log = logging.getLogger("lens")
_SINGLE_FEATURE_DEFAULT_NAME = "feature"
_SINGLE_RECEIVER_DEFAULT_NAME = "input"


def _wrap_and_check(tensors, field_name, default_key):
    if tensors is None:
        raise ValueError("{}s must be defined.".format(field_name))
    if not isinstance(tensors, dict):
        tensors = {default_key: tensors}
    for name, tensor in tensors.items():
        if not isinstance(name, str):
            raise ValueError("{} keys must be strings: {}.".format(field_name, name))
        if not isinstance(tensor, (Tensor, SparseTensor)):
            raise ValueError("{} {} must be a Tensor or SparseTensor.".format(field_name, name))
    return tensors


class ServingInputReceiver(collections.namedtuple("ServingInputReceiver", [
        "features", "receiver_tensors", "receiver_tensors_alternatives"])):
    """The features a model gets at serving time and the tensors a request feeds."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = _wrap_and_check(features, "feature", _SINGLE_FEATURE_DEFAULT_NAME)
        receiver_tensors = _wrap_and_check(receiver_tensors, "receiver_tensor", _SINGLE_RECEIVER_DEFAULT_NAME)
        return super().__new__(cls, features, receiver_tensors, receiver_tensors_alternatives)


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A receiver fn feeding placeholders shaped like features (minus the batch size) straight in."""
    def serving_input_receiver_fn():
        from lens.ops.core import placeholder
        receivers = {}
        for name, t in features.items():
            shape = [default_batch_size] + t.shape.as_list()[1:] if t.shape.ndims else None
            receivers[name] = placeholder(t.dtype.base_dtype, shape=shape, name=t.op.name)
        return ServingInputReceiver(receivers, dict(receivers))
    return serving_input_receiver_fn


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A receiver fn taking serialized tf.Example protos (`input_example_tensor`) and parsing them."""
    def serving_input_receiver_fn():
        from lens.ops.core import placeholder
        from lens.ops.parsing import parse_example
        serialized = placeholder(_dt.string, shape=[default_batch_size], name="input_example_tensor")
        return ServingInputReceiver(parse_example(serialized, feature_spec), {"examples": serialized})
    return serving_input_receiver_fn


class ExportOutput:
    """One output of an exported model; as_signature_def builds its SignatureDef."""

    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError


def _single_string_input(receiver_tensors, what):
    if len(receiver_tensors) != 1:
        raise ValueError("{} input must be a single string Tensor; got {}".format(what, receiver_tensors))
    (_, examples), = receiver_tensors.items()
    if not isinstance(examples, Tensor) or examples.dtype.base_dtype != _dt.string:
        raise ValueError("{} input must be a single string Tensor; got {}".format(what, receiver_tensors))
    return examples


class PredictOutput(ExportOutput):
    """Named output tensors for the predict API."""

    def __init__(self, outputs):
        outputs = outputs if isinstance(outputs, dict) else {"output": outputs}
        for key, value in outputs.items():
            if not isinstance(key, str):
                raise ValueError("Prediction output key must be a string; got {}.".format(key))
            if not isinstance(value, Tensor):
                raise ValueError("Prediction output value must be a Tensor; got {}.".format(value))
        self.outputs = outputs

    def as_signature_def(self, receiver_tensors):
        return sig_utils.predict_signature_def(receiver_tensors, self.outputs)


class RegressionOutput(ExportOutput):
    """A float value for the regress API."""

    def __init__(self, value):
        if not (isinstance(value, Tensor) and value.dtype.is_floating):
            raise ValueError("Regression output value must be a float32 Tensor; got {}".format(value))
        self.value = value

    def as_signature_def(self, receiver_tensors):
        return sig_utils.regression_signature_def(_single_string_input(receiver_tensors, "Regression"), self.value)


class ClassificationOutput(ExportOutput):
    """Scores and/or class names for the classify API."""

    def __init__(self, scores=None, classes=None):
        if scores is not None and not (isinstance(scores, Tensor) and scores.dtype.is_floating):
            raise ValueError("Classification scores must be a float32 Tensor; got {}".format(scores))
        if classes is not None and not (isinstance(classes, Tensor) and classes.dtype.base_dtype == _dt.string):
            raise ValueError("Classification classes must be a string Tensor; got {}".format(classes))
        if scores is None and classes is None:
            raise ValueError("At least one of scores and classes must be set.")
        self.scores, self.classes = scores, classes

    def as_signature_def(self, receiver_tensors):
        return sig_utils.classification_signature_def(
            _single_string_input(receiver_tensors, "Classification"), self.classes, self.scores)


def build_all_signature_defs(receiver_tensors, export_outputs, serving_only=True):
    """{name: SignatureDef} of the export outputs that can be served; the others are logged."""
    if not isinstance(export_outputs, dict):
        raise ValueError("export_outputs must be a dict and not {}".format(type(export_outputs)))
    signatures, excluded = {}, {}
    for key, output in export_outputs.items():
        if not isinstance(output, ExportOutput):
            raise ValueError("Values in export_outputs must be ExportOutput objects. Given: {}".format(export_outputs))
        try:
            signatures[key or "None"] = output.as_signature_def(receiver_tensors)
        except ValueError as e:
            excluded[key or "None"] = str(e)
    if serving_only:
        signatures = {k: v for k, v in signatures.items() if sig_utils.is_valid_signature(v)}
    for key, why in sorted(excluded.items()):
        _log.warning("Signatures EXCLUDED from export because they cannot be be served via TensorFlow "
                     "Serving APIs: '%s' : %s", key, why)
    if sc.DEFAULT_SERVING_SIGNATURE_DEF_KEY not in signatures:
        _log.warning("Export includes no default signature!")
    return signatures
