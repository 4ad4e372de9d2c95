"""tf.case: nested lazy conds over (predicate, function) pairs."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import control_dependencies, name_scope


def _pairs(pred_fn_pairs):
    items = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    out = []
    for p in items:
        if not isinstance(p, tuple) or len(p) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple (pred, fn), got %r" % (p,))
        pred, fn = p
        pred = convert_to_tensor(pred)
        if pred.dtype.base_dtype is not _dt.bool:
            raise TypeError("pred must be Tensor of type bool: %s (dtype %s)" % (pred.name, pred.dtype.name))
        if not callable(fn):
            raise TypeError("fn for pred %s must be callable." % pred.name)
        out.append((pred, fn))
    return out


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """The result of the fn of the first true pred (default() if none); only that fn runs."""
    from lens.ops import array as A
    from lens.ops.control_flow_assert import Assert
    from lens.ops.control_flow_cond import cond
    from lens.ops.reduce import reduce_sum
    from lens.ops.logic import less_equal
    pairs = _pairs(pred_fn_pairs)
    if not pairs and default is None:
        raise ValueError("case: pred_fn_pairs is empty and no default was given.")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    with name_scope(name, "case", [p for p, _ in pairs]):
        if not pairs:
            return default()
        deps = []
        if default is None:
            # TF1: the last pair becomes the default, guarded by an assertion that its pred holds.
            last_pred, last_fn = pairs.pop()

            def default():
                guard = Assert(last_pred, ["Input error: None of conditions evaluated as True:",
                                           A.stack([p for p, _ in pairs] + [last_pred])])
                with control_dependencies([guard]):
                    return _identities(last_fn())
        if exclusive:
            preds = A.stack([p for p, _ in pairs])
            count = reduce_sum(A.cast(preds, _dt.int32))
            deps.append(Assert(less_equal(count, 1), [
                "Input error: exclusive=True: more than 1 conditions (%s) evaluated as True:"
                % ", ".join(p.name for p, _ in pairs), preds]))

        def chain(k):
            if k == len(pairs):
                return default
            pred, fn = pairs[k]
            return lambda: cond(pred, fn, chain(k + 1), strict=strict)
        with control_dependencies(deps):
            return chain(0)()


def _identities(res):
    from lens.ops import control_flow_nest as nest
    from lens.ops.core import identity
    return nest.map_structure(lambda x: identity(x) if not hasattr(x, "type") else x, res)


__all__ = ["case"]
