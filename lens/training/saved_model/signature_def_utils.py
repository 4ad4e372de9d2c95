"""SignatureDef builders and checks (tf.saved_model.signature_def_utils)."""
from lens.framework import dtypes as _dt
from lens.framework.graph import Tensor
from lens.proto import meta_graph_pb2
from lens.training.saved_model import signature_constants as sc
from lens.training.saved_model.utils import build_tensor_info

__all__ = ["build_signature_def", "predict_signature_def", "classification_signature_def",
           "regression_signature_def", "is_valid_signature", "get_signature_def_by_key"]


def build_signature_def(inputs=None, outputs=None, method_name=None):
    """A SignatureDef from {key: TensorInfo} inputs and outputs and a method name."""
    sig = meta_graph_pb2.SignatureDef()
    for key, info in (inputs or {}).items():
        sig.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        sig.outputs[key].CopyFrom(info)
    if method_name is not None:
        sig.method_name = method_name
    return sig


def predict_signature_def(inputs, outputs):
    """A predict SignatureDef from {key: Tensor} inputs and outputs."""
    if not inputs:
        raise ValueError("Prediction inputs cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction outputs cannot be None or empty.")
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()},
                               {k: build_tensor_info(t) for k, t in outputs.items()}, sc.PREDICT_METHOD_NAME)


def _string_tensor(t, what):
    if t is None:
        raise ValueError("%s cannot be None." % what)
    if not isinstance(t, Tensor) or t.dtype.base_dtype != _dt.string:
        raise ValueError("%s must be a string Tensor, got %r." % (what, t))
    return build_tensor_info(t)


def classification_signature_def(examples, classes, scores):
    """A classify SignatureDef: serialized examples in, string classes and/or float scores out."""
    inputs = {sc.CLASSIFY_INPUTS: _string_tensor(examples, "Classification examples")}
    if classes is None and scores is None:
        raise ValueError("Classification classes and scores cannot both be None.")
    outputs = {}
    if classes is not None:
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = _string_tensor(classes, "Classification classes")
    if scores is not None:
        if not isinstance(scores, Tensor) or scores.dtype.base_dtype != _dt.float32:
            raise ValueError("Classification scores must be a float Tensor, got %r." % (scores,))
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = build_tensor_info(scores)
    return build_signature_def(inputs, outputs, sc.CLASSIFY_METHOD_NAME)


def regression_signature_def(examples, predictions):
    """A regress SignatureDef: serialized examples in, float predictions out."""
    inputs = {sc.REGRESS_INPUTS: _string_tensor(examples, "Regression examples")}
    if predictions is None:
        raise ValueError("Regression output cannot be None.")
    if not isinstance(predictions, Tensor) or predictions.dtype.base_dtype != _dt.float32:
        raise ValueError("Regression output must be a float Tensor, got %r." % (predictions,))
    return build_signature_def(inputs, {sc.REGRESS_OUTPUTS: build_tensor_info(predictions)}, sc.REGRESS_METHOD_NAME)


def _named(infos, key, dtypes):
    info = infos.get(key)
    return info is not None and info.name and info.dtype in dtypes


def is_valid_signature(signature_def):
    """True when signature_def is a well-formed predict, classify or regress signature."""
    if signature_def is None or not signature_def.method_name:
        return False
    method = signature_def.method_name
    ins, outs = signature_def.inputs, signature_def.outputs
    string, floats = {_dt.string.as_datatype_enum}, {_dt.float32.as_datatype_enum}
    if method == sc.PREDICT_METHOD_NAME:
        return bool(ins) and bool(outs) and all(i.name or i.HasField("coo_sparse") for i in
                                                list(ins.values()) + list(outs.values()))
    if method == sc.CLASSIFY_METHOD_NAME:
        if set(ins) != {sc.CLASSIFY_INPUTS} or not _named(ins, sc.CLASSIFY_INPUTS, string) or not outs:
            return False
        if set(outs) - {sc.CLASSIFY_OUTPUT_CLASSES, sc.CLASSIFY_OUTPUT_SCORES}:
            return False
        return (sc.CLASSIFY_OUTPUT_CLASSES not in outs or _named(outs, sc.CLASSIFY_OUTPUT_CLASSES, string)) and \
            (sc.CLASSIFY_OUTPUT_SCORES not in outs or _named(outs, sc.CLASSIFY_OUTPUT_SCORES, floats))
    if method == sc.REGRESS_METHOD_NAME:
        return set(ins) == {sc.REGRESS_INPUTS} and _named(ins, sc.REGRESS_INPUTS, string) and \
            set(outs) == {sc.REGRESS_OUTPUTS} and _named(outs, sc.REGRESS_OUTPUTS, floats)
    return False


def get_signature_def_by_key(meta_graph_def, signature_def_key):
    """The SignatureDef under signature_def_key; ValueError naming it and the keys there are."""
    if signature_def_key not in meta_graph_def.signature_def:
        raise ValueError("No SignatureDef with key '%s' found in MetaGraphDef. Available signatures: %s"
                         % (signature_def_key, sorted(meta_graph_def.signature_def)))
    return meta_graph_def.signature_def[signature_def_key]
