"""tf.metrics.auc: TF1's streaming Riemann-sum AUC over per-threshold confusion counts.

The four count variables (`auc/true_positives`, `auc/false_negatives`, `auc/true_negatives`,
`auc/false_positives`, one slot per threshold) only ever grow, so `update_op` returns the AUC
of every batch seen so far and `value` the AUC before the current batch.
"""
import importlib
import logging

from lens.framework import dtypes as _dt
from lens.framework.convert import constant, convert_to_tensor
from lens.framework.graph import control_dependencies
from lens.metrics.common import (add_collections, broadcast_weights, metric_variable,
                                        remove_squeezable_dimensions, to_float32)
from lens.ops.array import cast, expand_dims, ones_like, reshape, transpose
from lens.ops.core import identity
from lens.ops.logic import greater, greater_equal, less_equal, logical_and, logical_not, where
from lens.ops.math import add, div, div_no_nan, log, maximum, minimum, multiply, subtract
from lens.ops.reduce import reduce_all, reduce_sum
from lens.ops.variable_scope import variable_scope
from lens.ops.variables import assign_add

__all__ = ["auc"]

_log = logging.getLogger("lens")
_KEPSILON = 1e-7   # pushes the end thresholds just outside [0, 1] so 0 and 1 predictions count
_EPSILON = 1.0e-6  # keeps the rates finite when a count is still zero
_SUMMATIONS = ("trapezoidal", "minoring", "majoring", "careful_interpolation")


def _range_checks(predictions):
    """Run-time asserts that predictions lie in [0, 1], when the Assert op exists."""
    try:
        control_flow = importlib.import_module("lens.ops.control_flow")
    except ModuleNotFoundError as e:
        if e.name != "lens.ops.control_flow":
            raise
        return []
    assert_fn = getattr(control_flow, "Assert", None)
    if assert_fn is None:
        return []
    zero, one = cast(0.0, predictions.dtype.base_dtype), cast(1.0, predictions.dtype.base_dtype)
    ok = reduce_all(logical_and(greater_equal(predictions, zero), less_equal(predictions, one)))
    return [assert_fn(ok, ["predictions must be in [0, 1]"], name="assert_predictions_in_range")]


def confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None, includes=None):
    """(values, update_ops) dicts keyed 'tp', 'fn', 'tn', 'fp': per-threshold count variables."""
    includes = ("tp", "fn", "tn", "fp") if includes is None else includes
    for key in includes:
        if key not in ("tp", "fn", "tn", "fp"):
            raise ValueError("Invalid key: %s (use 'tp', 'fn', 'tn' or 'fp')" % key)
    predictions = convert_to_tensor(predictions)
    checks = _range_checks(predictions)
    with control_dependencies(checks):
        predictions, labels, weights = remove_squeezable_dimensions(
            cast(predictions, _dt.float32), cast(labels, _dt.bool), weights)
        if checks:
            # A same-dtype cast adds no op, so pin the checks to an Identity that the counts use.
            predictions = identity(predictions)
    num_thresholds = len(thresholds)
    # Broadcasting [1, N] against [T, 1] gives TF1's tiled [T, N] comparison without the tiles.
    preds_row = transpose(reshape(predictions, [-1, 1]))
    label_is_pos = reshape(labels, [1, -1])
    thresh_col = expand_dims(constant(list(thresholds), dtype=_dt.float32), 1)
    pred_is_pos = greater(preds_row, thresh_col)
    weights_row = None
    if weights is not None:
        weights_row = reshape(broadcast_weights(to_float32(weights), predictions), [1, -1])
    conditions = {
        "tp": ("true_positives", lambda: logical_and(label_is_pos, pred_is_pos)),
        "fn": ("false_negatives", lambda: logical_and(label_is_pos, logical_not(pred_is_pos))),
        "tn": ("true_negatives", lambda: logical_and(logical_not(label_is_pos), logical_not(pred_is_pos))),
        "fp": ("false_positives", lambda: logical_and(logical_not(label_is_pos), pred_is_pos)),
    }
    values, update_ops = {}, {}
    for key in ("tp", "fn", "tn", "fp"):   # TF1's creation order
        if key not in includes:
            continue
        var_name, condition = conditions[key]
        var = metric_variable([num_thresholds], _dt.float32, name=var_name)
        hits = to_float32(condition())
        if weights_row is not None:
            hits = multiply(hits, weights_row)
        update_ops[key] = assign_add(var, reduce_sum(hits, 1))
        values[key] = var
    return values, update_ops


def _thresholds(num_thresholds, thresholds):
    if thresholds is not None:
        inner = sorted(float(t) for t in thresholds)
    else:
        if num_thresholds < 2:
            raise ValueError("num_thresholds must be at least 2, got %r" % (num_thresholds,))
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON] + inner + [1.0 + _KEPSILON]


def _interpolate_pr_auc(tp, fp, fn, n, name):
    """PR AUC by interpolating precision between thresholds (Davis & Goadrich)."""
    dtp = subtract(tp[:n - 1], tp[1:])
    p = add(tp, fp)
    prec_slope = div_no_nan(dtp, maximum(subtract(p[:n - 1], p[1:]), 0.0), name="prec_slope")
    intercept = subtract(tp[1:], multiply(prec_slope, p[1:]))
    safe_p_ratio = where(logical_and(greater(p[:n - 1], 0.0), greater(p[1:], 0.0)),
                         div_no_nan(p[:n - 1], maximum(p[1:], 0.0), name="recall_relative_ratio"),
                         ones_like(p[1:]))
    increments = div_no_nan(multiply(prec_slope, add(dtp, multiply(intercept, log(safe_p_ratio)))),
                            maximum(add(tp[1:], fn[1:]), 0.0), name="pr_auc_increment")
    return reduce_sum(increments, name=name)


def _compute_auc(tp, fn, tn, fp, n, curve, summation_method, name):
    if curve == "PR" and summation_method == "careful_interpolation":
        return _interpolate_pr_auc(tp, fp, fn, n, name)
    rec = div(add(tp, _EPSILON), add(add(tp, fn), _EPSILON))
    if curve == "ROC":
        x, y = div(fp, add(add(fp, tn), _EPSILON)), rec
    else:
        x, y = rec, div(add(tp, _EPSILON), add(add(tp, fp), _EPSILON))
    widths = subtract(x[:n - 1], x[1:])
    if summation_method in ("trapezoidal", "careful_interpolation"):
        heights = div(add(y[:n - 1], y[1:]), 2.0)
    elif summation_method == "minoring":
        heights = minimum(y[:n - 1], y[1:])
    else:
        heights = maximum(y[:n - 1], y[1:])
    return reduce_sum(multiply(widths, heights), name=name)


def auc(labels, predictions, weights=None, num_thresholds=200, metrics_collections=None,
        updates_collections=None, curve="ROC", name=None, summation_method="trapezoidal",
        thresholds=None):
    """Streaming area under the ROC or PR curve over num_thresholds thresholds: (auc, update_op)."""
    if curve not in ("ROC", "PR"):
        raise ValueError("curve must be either ROC or PR, %s unknown" % (curve,))
    if summation_method not in _SUMMATIONS:
        raise ValueError("Invalid summation_method: %s (use one of %s)"
                         % (summation_method, ", ".join(_SUMMATIONS)))
    with variable_scope(name, "auc", (labels, predictions, weights)):
        thresh = _thresholds(num_thresholds, thresholds)
        n = len(thresh)
        values, updates = confusion_matrix_at_thresholds(labels, predictions, thresh, weights)
        if curve == "PR" and summation_method == "trapezoidal":
            _log.warning('Trapezoidal rule is known to produce incorrect PR-AUCs; please switch to '
                         '"careful_interpolation" instead.')
        value = _compute_auc(values["tp"], values["fn"], values["tn"], values["fp"], n, curve,
                             summation_method, "value")
        update_op = _compute_auc(updates["tp"], updates["fn"], updates["tn"], updates["fp"], n, curve,
                                 summation_method, "update_op")
    add_collections(value, update_op, metrics_collections, updates_collections)
    return value, update_op
