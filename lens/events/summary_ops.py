"""tf.summary ops: graph ops whose kernels return serialized Summary bytes (TF1 op types and tags)."""
import contextlib
import re

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import constant, convert_to_tensor
from lens.framework.graph import GraphKeys, get_default_graph, name_scope
from lens.framework.registry import register_op
from lens.events import summary_builders as B

_INVALID_TAG = re.compile(r"[^-/\w\.]")


def _clean_tag(name):
    # TF1 replaces characters a tag may not hold and drops a leading slash.
    if name is None:
        return None
    new = _INVALID_TAG.sub("_", name).lstrip("/")
    return new


@contextlib.contextmanager
def summary_scope(name, family=None, default_name=None, values=None):
    """Yields (tag, scope): the tag is the uniquified op name, prefixed by family."""
    name = _clean_tag(name)
    family = _clean_tag(family)
    base = name if family is None else "%s/%s" % (family, name)
    with name_scope(base, default_name, values) as scope:
        tag = scope.rstrip("/") if family is None else "%s/%s" % (family, scope.rstrip("/"))
        yield tag, scope


def _item(x):
    return x.item() if isinstance(x, np.ndarray) else x


def _tag_of(t):
    t = _item(t)
    return t.decode() if isinstance(t, bytes) else str(t)


register_op("ScalarSummary", fn=lambda tags, values: np.bytes_(B.scalar(_tag_of(tags), values)),
            not_differentiable=True)
register_op("HistogramSummary", fn=lambda tag, values: np.bytes_(B.histogram(_tag_of(tag), values)),
            not_differentiable=True)


def _image_make(op, ctx):
    n = op._attrs.get("max_images", 3)
    return lambda tag, tensor: np.bytes_(B.image(_tag_of(tag), tensor, max_outputs=n))


def _audio_make(op, ctx):
    n = op._attrs.get("max_outputs", 3)
    return lambda tag, tensor, rate: np.bytes_(B.audio(_tag_of(tag), tensor, float(rate), max_outputs=n))


def _tensor_summary_make(op, ctx):
    return lambda tag, tensor, meta: np.bytes_(B.tensor_summary(_tag_of(tag), tensor, summary_metadata=_item(meta)))


register_op("ImageSummary", make=_image_make, not_differentiable=True)
register_op("AudioSummaryV2", make=_audio_make, not_differentiable=True)
register_op("TensorSummaryV2", make=_tensor_summary_make, not_differentiable=True)
register_op("MergeSummary", fn=lambda *inputs: np.bytes_(B.merge(inputs)), not_differentiable=True)


def _collect(op_out, collections):
    g = op_out.graph
    for key in (collections if collections is not None else [GraphKeys.SUMMARIES]):
        g.add_to_collection(key, op_out)
    return op_out


def _summary_op(op_type, inputs, attrs, scope):
    g = get_default_graph()
    op = g._create_op(op_type, inputs, [_dt.string], attrs, scope, shapes=[[]], frames_skip=3)
    return op._outputs[0]


def scalar(name, tensor, collections=None, family=None):
    """A scalar summary; tag = the op's uniquified name (e.g. 'train/loss')."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        x = convert_to_tensor(tensor)
        tags = constant(tag, name="tags")
        out = _summary_op("ScalarSummary", [tags, x], {"T": x.dtype.base_dtype}, scope)
    return _collect(out, collections)


def histogram(name, values, collections=None, family=None):
    """A histogram summary over TF1's default buckets."""
    with summary_scope(name, family, values=[values], default_name="HistogramSummary") as (tag, scope):
        x = convert_to_tensor(values)
        t = constant(tag, name="tag")
        out = _summary_op("HistogramSummary", [t, x], {"T": x.dtype.base_dtype}, scope)
    return _collect(out, collections)


def image(name, tensor, max_outputs=3, collections=None, family=None):
    """An image summary of a [batch, h, w, 1|3|4] tensor (tags name/image/i)."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        x = convert_to_tensor(tensor)
        t = constant(tag, name="tag")
        out = _summary_op("ImageSummary", [t, x], {"max_images": max_outputs, "T": x.dtype.base_dtype}, scope)
    return _collect(out, collections)


def audio(name, tensor, sample_rate, max_outputs=3, collections=None, family=None):
    """An audio summary of a [batch, frames(, channels)] float tensor in [-1, 1]."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        x = convert_to_tensor(tensor, dtype=_dt.float32)
        t = constant(tag, name="tag")
        rate = convert_to_tensor(sample_rate, dtype=_dt.float32, name="sample_rate")
        out = _summary_op("AudioSummaryV2", [t, x, rate], {"max_outputs": max_outputs}, scope)
    return _collect(out, collections)


def _tensor_summary(name, tensor, metadata_bytes, collections, family=None):
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        x = convert_to_tensor(tensor)
        t = constant(tag, name="tag")
        meta = constant(metadata_bytes, dtype=_dt.string, name="serialized_summary_metadata")
        out = _summary_op("TensorSummaryV2", [t, x, meta], {"T": x.dtype.base_dtype}, scope)
    return _collect(out, collections)


def text(name, tensor, collections=None):
    """A text summary of a string tensor (Markdown in the board)."""
    from lens.proto import summary_pb2
    meta = summary_pb2.SummaryMetadata(plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    x = convert_to_tensor(tensor)
    if x.dtype.base_dtype is not _dt.string:
        raise ValueError("Expected tensor %s to have dtype string, got %s" % (x.name, x.dtype.name))
    return _tensor_summary(name, x, meta.SerializeToString(), collections)


def tensor_summary(name, tensor, summary_description=None, collections=None, summary_metadata=None,
                   family=None, display_name=None):
    """A summary holding a whole tensor."""
    from lens.proto import summary_pb2
    meta = summary_metadata or summary_pb2.SummaryMetadata()
    if display_name:
        meta.display_name = display_name
    if summary_description:
        meta.summary_description = summary_description
    return _tensor_summary(name, tensor, meta.SerializeToString(), collections, family)


def merge(inputs, collections=None, name=None):
    """One summary holding every value of the inputs."""
    xs = [convert_to_tensor(i) for i in inputs]
    g = get_default_graph()
    with g.name_scope(name or "Merge") as scope:
        op = g._create_op("MergeSummary", xs, [_dt.string], {"N": len(xs)}, scope, shapes=[[]], frames_skip=3)
    out = op._outputs[0]
    for key in collections or []:
        g.add_to_collection(key, out)
    return out


def merge_all(key=GraphKeys.SUMMARIES, scope=None, name=None):
    """Merge every summary of a collection; None when it is empty."""
    items = get_default_graph().get_collection(key, scope=scope)
    if not items:
        return None
    return merge(items, name=name)


def get_summary_description(node_def):
    """The SummaryDescription of a TensorSummary node (TF1 API)."""
    from lens.proto import summary_pb2
    return summary_pb2.SummaryDescription()


__all__ = ["scalar", "histogram", "image", "audio", "text", "tensor_summary", "merge", "merge_all",
           "summary_scope", "get_summary_description"]
