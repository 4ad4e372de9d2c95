"""tf.contrib.estimator.multi_head: several named heads trained on one model's logits.

Logits (a dict by head name, or one tensor split along its last axis) feed each head; the loss
is the (weighted) sum of the heads' losses; predictions are keyed (head name, prediction key);
metrics and summaries carry the head's name as a suffix (`accuracy/head_a`, `loss/head_a`)."""
from lens.estimator.canned.head import DEFAULT_SERVING_KEY, make_train_op, summary_key
from lens.estimator.export import PredictOutput
from lens.estimator.model_fn import EstimatorSpec, ModeKeys
from lens.events.summary_ops import scalar as summary_scalar
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.metrics import mean as metric_mean
from lens.ops.indexing import split
from lens.ops.math import add_n, multiply

__all__ = ["MultiHead", "multi_head"]


class MultiHead:
    """Combines named heads; see multi_head."""

    def __init__(self, heads, head_weights=None):
        self._heads, self._weights = tuple(heads), tuple(head_weights) if head_weights else None

    name = property(lambda self: "_".join(h.name for h in self._heads))
    logits_dimension = property(lambda self: sum(h.logits_dimension for h in self._heads))

    def _split_logits(self, logits):
        if isinstance(logits, dict):
            missing = [h.name for h in self._heads if h.name not in logits]
            if missing:
                raise ValueError("logits has no entries for heads {}; it has {}".format(missing, sorted(logits)))
            return [convert_to_tensor(logits[h.name]) for h in self._heads]
        logits = convert_to_tensor(logits)
        with name_scope(None, "split_logits"):
            return split(logits, [h.logits_dimension for h in self._heads], axis=-1)

    def _labels_of(self, labels, head):
        if not isinstance(labels, dict):
            raise ValueError("labels must be a dict keyed by head name for a multi_head. Given: {}".format(labels))
        if head.name not in labels:
            raise ValueError("labels has no entry for head {}; it has {}".format(head.name, sorted(labels)))
        return labels[head.name]

    def create_estimator_spec(self, features, mode, logits, labels=None, optimizer=None, train_op_fn=None,
                              regularization_losses=None):
        """One EstimatorSpec over all heads."""
        parts = self._split_logits(logits)
        predictions, per_head = {}, []
        for head, head_logits in zip(self._heads, parts):
            with name_scope(head.name):
                head_pred = head.predictions(head_logits)
            per_head.append((head, head_logits, head_pred))
            predictions.update({(head.name, key): value for key, value in head_pred.items()})
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode=mode, predictions=predictions, export_outputs=self._export_outputs(per_head))
        losses, metrics = [], {}
        for i, (head, head_logits, head_pred) in enumerate(per_head):
            with name_scope(head.name):
                loss, unreduced, weights, processed = head.create_loss(features, head_logits,
                                                                       self._labels_of(labels, head))
                if mode == ModeKeys.EVAL:
                    with name_scope(None, "metrics"):
                        metrics.update(head.eval_metric_ops(processed, head_logits, head_pred, weights, unreduced))
                        metrics[summary_key(head.name, "loss")] = metric_mean(loss, name="loss")
            losses.append((head, loss if self._weights is None else multiply(loss, self._weights[i])))
        with name_scope(None, "multi_head"):
            total = add_n([loss for _, loss in losses])
            if regularization_losses:
                total = add_n([total] + list(regularization_losses))
        if mode == ModeKeys.EVAL:
            return EstimatorSpec(mode=mode, predictions=predictions, loss=total, eval_metric_ops=metrics)
        train_op = make_train_op(total, optimizer, train_op_fn)
        with name_scope(""):
            summary_scalar("loss", total)
            for head, loss in losses:
                summary_scalar(summary_key(head.name, "loss"), loss)
        return EstimatorSpec(mode=mode, predictions=predictions, loss=total, train_op=train_op)

    def _export_outputs(self, per_head):
        outputs, merged = {}, {}
        for i, (head, _, head_pred) in enumerate(per_head):
            head_outputs = head.export_outputs(head_pred)
            if i == 0:
                outputs[DEFAULT_SERVING_KEY] = head_outputs[DEFAULT_SERVING_KEY]
            outputs[head.name] = head_outputs[DEFAULT_SERVING_KEY]
            for key, output in head_outputs.items():
                if key != DEFAULT_SERVING_KEY:
                    outputs["{}/{}".format(head.name, key)] = output
            merged.update({"{}/{}".format(head.name, key): value for key, value in head_pred.items()})
        outputs["predict"] = PredictOutput(merged)
        return outputs


def multi_head(heads, head_weights=None):
    """A head combining named heads, optionally weighting their losses."""
    if not heads:
        raise ValueError("Must specify heads. Given: {}".format(heads))
    if head_weights and len(head_weights) != len(heads):
        raise ValueError("heads and head_weights must have the same size. Given len(heads): {}. Given "
                         "len(head_weights): {}.".format(len(heads), len(head_weights)))
    for head in heads:
        if not head.name:
            raise ValueError("All given heads must have name specified. Given: {}".format(head))
    return MultiHead(heads, head_weights)
