"""tf.losses: weighted losses with TF1's reductions, the LOSSES collection and the total loss."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import GraphKeys, get_default_graph, name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops import nn as N
from lens.ops.core import stop_gradient
from lens.ops.logic import equal, where
from lens.ops.reduce import reduce_sum

__all__ = ["Reduction", "compute_weighted_loss", "add_loss", "get_losses", "get_regularization_loss",
           "get_regularization_losses", "get_total_loss", "absolute_difference", "mean_squared_error", "log_loss",
           "hinge_loss", "huber_loss", "sigmoid_cross_entropy", "softmax_cross_entropy",
           "sparse_softmax_cross_entropy", "cosine_distance"]


class Reduction:
    """How a weighted loss is reduced (TF1's string values)."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls):
        """Every valid reduction."""
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE, cls.SUM_OVER_NONZERO_WEIGHTS,
                cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key):
        """ValueError naming the valid values when key is not one."""
        if key not in cls.all():
            raise ValueError("Invalid Reduction Key %r; use one of %s" % (key, ", ".join(map(repr, cls.all()))))


def _check_broadcast(weights, losses):
    """TF1 accepts scalar weights, or weights of the losses' rank with each dim 1 or equal."""
    ws, ls = weights.shape, losses.shape
    if ws.ndims in (None, 0) or ls.ndims is None:
        return
    ok = ws.ndims == ls.ndims and all(w is None or l is None or w in (1, l)
                                      for w, l in zip(ws.as_list(), ls.as_list()))
    if not ok:
        raise ValueError("weights can not be broadcast to values. values.rank=%d. weights.rank=%d. values.shape=%s. "
                         "weights.shape=%s. Give weights the losses' shape (dims may be 1) or a scalar."
                         % (ls.ndims, ws.ndims, ls, ws))


def _safe_div(total, count):
    return M.div_no_nan(total, count, name="value")


def _num_present(losses, weights):
    with name_scope(None, "num_present", (losses, weights)):
        present = where(equal(weights, 0.0), A.zeros_like(weights), A.ones_like(weights))
        present = M.multiply(present, A.ones_like(losses))   # broadcast to the losses' shape
        return reduce_sum(present, name="value")


def compute_weighted_loss(losses, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                          reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """losses * weights reduced as asked (default: sum / number of nonzero weights); added to loss_collection."""
    Reduction.validate(reduction)
    with name_scope(scope, "weighted_loss", (losses, weights)):
        losses = convert_to_tensor(losses)
        input_dtype = losses.dtype.base_dtype
        losses = A.cast(losses, _dt.float32) if input_dtype is not _dt.float32 else losses
        weights = A.cast(convert_to_tensor(weights), _dt.float32)
        _check_broadcast(weights, losses)
        weighted = M.multiply(losses, weights)
        if reduction == Reduction.NONE:
            loss = weighted
        else:
            loss = reduce_sum(weighted)
            if reduction == Reduction.MEAN:
                loss = _safe_div(loss, reduce_sum(M.multiply(A.ones_like(losses), weights)))
            elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                loss = _safe_div(loss, _num_present(losses, weights))
            elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                with name_scope(None, "num_elements", [losses]) as sc:
                    n = A.cast(A.size(losses), losses.dtype.base_dtype, name=sc)
                loss = _safe_div(loss, n)
        if input_dtype is not _dt.float32:
            loss = A.cast(loss, input_dtype)
        add_loss(loss, loss_collection)
        return loss


def add_loss(loss, loss_collection=GraphKeys.LOSSES):
    """Put loss in loss_collection (nothing when the collection is None)."""
    if loss_collection:
        get_default_graph().add_to_collection(loss_collection, loss)


def get_losses(scope=None, loss_collection=GraphKeys.LOSSES):
    """The losses in loss_collection (filtered by scope)."""
    return get_default_graph().get_collection(loss_collection, scope)


def get_regularization_losses(scope=None):
    """The tensors in REGULARIZATION_LOSSES (filtered by scope)."""
    return get_default_graph().get_collection(GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope=None, name="total_regularization_loss"):
    """Sum of the regularization losses, or 0.0 when there are none."""
    losses = get_regularization_losses(scope)
    if losses:
        return M.add_n(losses, name=name)
    return convert_to_tensor(0.0)


def get_total_loss(add_regularization_losses=True, name="total_loss", scope=None):
    """Sum of the LOSSES collection plus (by default) the regularization losses."""
    losses = get_losses(scope)
    if add_regularization_losses:
        losses = losses + get_regularization_losses(scope)
    if not losses:
        raise ValueError("No losses to sum: the LOSSES and REGULARIZATION_LOSSES collections are empty. Build a "
                         "tf.losses.* loss (or tf.losses.add_loss) first.")
    return M.add_n(losses, name=name)


def _pair(labels, predictions, what="predictions"):
    """Both cast to float32 (as TF1 does), with compatible static shapes."""
    predictions = _to_float(convert_to_tensor(predictions, name=what))
    labels = _to_float(convert_to_tensor(labels, name="labels"))
    if not predictions.shape.is_compatible_with(labels.shape):
        raise ValueError("Shapes %s and %s are incompatible: labels and %s must have the same shape"
                         % (predictions.shape, labels.shape, what))
    return labels, predictions


def _to_float(t):
    return t if t.dtype.base_dtype is _dt.float32 else A.cast(t, _dt.float32)


def _need(labels, other, what):
    if labels is None:
        raise ValueError("labels must not be None.")
    if other is None:
        raise ValueError("%s must not be None." % what)


def absolute_difference(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                        reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted |predictions - labels|."""
    _need(labels, predictions, "predictions")
    with name_scope(scope, "absolute_difference", (predictions, labels, weights)) as sc:
        labels, predictions = _pair(labels, predictions)
        losses = M.abs(M.subtract(predictions, labels))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def mean_squared_error(labels, predictions, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                       reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted (predictions - labels) ** 2."""
    _need(labels, predictions, "predictions")
    with name_scope(scope, "mean_squared_error", (predictions, labels, weights)) as sc:
        labels, predictions = _pair(labels, predictions)
        losses = M.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def log_loss(labels, predictions, weights=1.0, epsilon=1e-7, scope=None, loss_collection=GraphKeys.LOSSES,
             reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted -labels * log(p + eps) - (1 - labels) * log(1 - p + eps)."""
    _need(labels, predictions, "predictions")
    with name_scope(scope, "log_loss", (predictions, labels, weights)) as sc:
        labels, predictions = _pair(labels, predictions)
        one = convert_to_tensor(1.0, dtype=predictions.dtype.base_dtype)
        eps = convert_to_tensor(epsilon, dtype=predictions.dtype.base_dtype)
        losses = M.subtract(M.negative(M.multiply(labels, M.log(M.add(predictions, eps)))),
                            M.multiply(M.subtract(one, labels), M.log(M.add(M.subtract(one, predictions), eps))))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def hinge_loss(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted max(0, 1 - (2 * labels - 1) * logits) for labels in {0, 1}."""
    _need(labels, logits, "logits")
    with name_scope(scope, "hinge_loss", (logits, labels, weights)) as sc:
        labels, logits = _pair(labels, logits, "logits")
        one = convert_to_tensor(1.0, dtype=logits.dtype.base_dtype)
        signs = M.subtract(M.multiply(convert_to_tensor(2.0, dtype=logits.dtype.base_dtype), labels), one)
        losses = N.relu(M.subtract(one, M.multiply(signs, logits)))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def huber_loss(labels, predictions, weights=1.0, delta=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
               reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted Huber loss: quadratic within delta of the label, linear beyond."""
    _need(labels, predictions, "predictions")
    with name_scope(scope, "huber_loss", (predictions, labels, weights)) as sc:
        labels, predictions = _pair(labels, predictions)
        t = predictions.dtype.base_dtype
        abs_error = M.abs(M.subtract(predictions, labels))
        d = convert_to_tensor(delta, dtype=t, name="delta")
        quadratic = M.minimum(abs_error, d)
        linear = M.subtract(abs_error, quadratic)
        losses = M.add(M.multiply(convert_to_tensor(0.5, dtype=t), M.square(quadratic)), M.multiply(d, linear))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def sigmoid_cross_entropy(multi_class_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted sigmoid cross entropy; label_smoothing pulls labels toward 1/2."""
    _need(multi_class_labels, logits, "logits")
    with name_scope(scope, "sigmoid_cross_entropy_loss", (logits, multi_class_labels, weights)) as sc:
        labels, logits = _pair(multi_class_labels, logits, "logits")
        if label_smoothing > 0:
            labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
        losses = N.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def softmax_cross_entropy(onehot_labels, logits, weights=1.0, label_smoothing=0, scope=None,
                          loss_collection=GraphKeys.LOSSES, reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted softmax cross entropy of one-hot labels; label_smoothing mixes in the uniform distribution."""
    _need(onehot_labels, logits, "logits")
    with name_scope(scope, "softmax_cross_entropy_loss", (logits, onehot_labels, weights)) as sc:
        labels, logits = _pair(onehot_labels, logits, "logits")
        if label_smoothing > 0:
            n = A.cast(A.shape(labels)[-1], logits.dtype.base_dtype)
            labels = labels * (1 - label_smoothing) + label_smoothing / n
        losses = N.softmax_cross_entropy_with_logits_v2(labels=stop_gradient(labels), logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def _squeeze_sparse_labels(labels, logits, weights):
    """TF1's squeezable dimensions for class-id labels: labels [batch, 1] against logits
    [batch, classes] lose their last axis, and so do weights one rank above the labels."""
    labels, logits = convert_to_tensor(labels), convert_to_tensor(logits)
    if labels.shape.ndims is not None and logits.shape.ndims == labels.shape.ndims \
            and labels.shape.as_list()[-1] in (1, None):
        labels = A.squeeze(labels, [-1])
    weights = convert_to_tensor(weights)
    if labels.shape.ndims is not None and weights.shape.ndims == labels.shape.ndims + 1:
        weights = A.squeeze(weights, [-1])
    return labels, weights


def sparse_softmax_cross_entropy(labels, logits, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                                 reduction=Reduction.SUM_BY_NONZERO_WEIGHTS):
    """Weighted softmax cross entropy of integer class labels."""
    _need(labels, logits, "logits")
    with name_scope(scope, "sparse_softmax_cross_entropy_loss", (logits, labels, weights)) as sc:
        labels, weights = _squeeze_sparse_labels(labels, logits, weights)
        losses = N.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)


def cosine_distance(labels, predictions, axis=None, weights=1.0, scope=None, loss_collection=GraphKeys.LOSSES,
                    reduction=Reduction.SUM_BY_NONZERO_WEIGHTS, dim=None):
    """Weighted 1 - sum(labels * predictions, axis) for unit-normalized inputs."""
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("You must specify 'axis'.")
    _need(labels, predictions, "predictions")
    with name_scope(scope, "cosine_distance_loss", (predictions, labels, weights)) as sc:
        labels, predictions = _pair(labels, predictions)
        one = convert_to_tensor(1.0, dtype=predictions.dtype.base_dtype)
        losses = M.subtract(one, reduce_sum(M.multiply(predictions, labels), axis, keepdims=True))
        return compute_weighted_loss(losses, weights, sc, loss_collection, reduction)
