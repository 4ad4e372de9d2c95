"""TF1's sparse training ops (SparseApplyMomentum, SparseApplyAdagrad, ...): the dense update rules of
optimizers_ops applied to the rows `indices` of the variable and its slots, in place."""
import numpy as np

from lens.framework import errors
from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.registry import register_op
from lens.training.optimizers_ops import RULES, SIGNATURES, _writable


def _sparse_signature(dense):
    names, n_refs = SIGNATURES[dense]
    at = names.index("grad") + 1
    return names[:at] + ("indices",) + names[at:], n_refs


SPARSE = {"Sparse" + d: d for d in ("ApplyMomentum", "ApplyAdagrad", "ApplyAdadelta", "ApplyRMSProp",
                                    "ApplyCenteredRMSProp", "ApplyFtrl", "ApplyFtrlV2")}


def _make_kernel(op_type):
    dense = SPARSE[op_type]
    names, n_refs = _sparse_signature(dense)
    rule = RULES[dense]
    hyper = [n for n in names[n_refs:]]
    g_pos, i_pos = hyper.index("grad"), hyper.index("indices")

    def make(op, ctx):
        store = ctx.variables
        ref_names = [t.op.name for t in op._inputs[:n_refs]]
        attrs = dict(op._attrs)

        def run(*values):
            var = store[ref_names[0]]
            grad, idx = np.asarray(values[g_pos]), np.asarray(values[i_pos]).reshape(-1)
            if list(grad.shape) != [len(idx)] + list(var.shape[1:]):
                raise errors.InvalidArgumentError(None, op, "var and grad do not have the same shape in the rows "
                                                  "indices picks: var %s, grad %s, indices %s"
                                                  % (list(var.shape), list(grad.shape), [len(idx)]))
            bad = np.nonzero((idx < 0) | (idx >= var.shape[0]))[0]
            if len(bad):
                raise errors.InvalidArgumentError(None, op, "Index %d at offset %d in indices is out of range"
                                                  % (idx[bad[0]], bad[0]))
            others = [v for k, v in enumerate(values) if k != i_pos]
            arrays = [_writable(store, rn) for rn in ref_names]
            # Unique rows update at once; repeated rows one after another, as TF's per-index loop.
            groups = [idx] if len(np.unique(idx)) == len(idx) else [idx[k:k + 1] for k in range(len(idx))]
            try:
                start = 0
                for rows in groups:
                    picked = [a[rows] for a in arrays]
                    args = list(others)
                    args[g_pos] = grad[start:start + len(rows)]
                    rule(attrs, *picked, *args)
                    for a, p in zip(arrays, picked):
                        a[rows] = p
                    start += len(rows)
            finally:
                for a in arrays:
                    a.flags.writeable = False
            return arrays[0]
        return run
    return make


for _type in SPARSE:
    register_op(_type, make=_make_kernel(_type), shape=lambda op: [op._inputs[0].shape],
                handle_inputs=tuple(range(_sparse_signature(SPARSE[_type])[1])), not_differentiable=True,
                stateful=True)


def _sparse_apply(op_type, args, use_locking, name, **attrs):
    names, n_refs = _sparse_signature(SPARSE[op_type])
    base = args[0].dtype.base_dtype
    inputs = []
    for arg, value in zip(names, args):
        if hasattr(value, "_ref"):
            value = value._ref()
        if arg in names[:n_refs]:
            if not (hasattr(value, "dtype") and value.dtype.is_ref_dtype):
                raise TypeError("%s: input '%s' must be a variable reference (a Variable), got %r"
                                % (op_type, arg, value))
        elif arg == "indices":
            value = convert_to_tensor(value, name="indices")
            if value.dtype.base_dtype not in (_dt.int32, _dt.int64):
                raise TypeError("%s: indices must be int32 or int64, got %s" % (op_type, value.dtype.name))
        else:
            value = convert_to_tensor(value, dtype=base, name=arg)
        inputs.append((value, arg))
    all_attrs = {"T": base, "Tindices": inputs[names.index("indices")][0].dtype.base_dtype,
                 "use_locking": bool(use_locking)}
    all_attrs.update(attrs)
    return apply_op(op_type, inputs, all_attrs, name=name or op_type, dtypes=[base._as_ref], same_dtype=False)


def sparse_apply_momentum(var, accum, lr, grad, indices, momentum, use_locking=False, use_nesterov=False,
                          name=None):
    """ApplyMomentum on the rows indices of var and accum."""
    return _sparse_apply("SparseApplyMomentum", [var, accum, lr, grad, indices, momentum], use_locking, name,
                         use_nesterov=bool(use_nesterov))


def sparse_apply_adagrad(var, accum, lr, grad, indices, use_locking=False, update_slots=True, name=None):
    """ApplyAdagrad on the rows indices."""
    return _sparse_apply("SparseApplyAdagrad", [var, accum, lr, grad, indices], use_locking, name,
                         update_slots=bool(update_slots))


def sparse_apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, indices, use_locking=False, name=None):
    """ApplyAdadelta on the rows indices."""
    return _sparse_apply("SparseApplyAdadelta", [var, accum, accum_update, lr, rho, epsilon, grad, indices],
                         use_locking, name)


def sparse_apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, indices, use_locking=False, name=None):
    """ApplyRMSProp on the rows indices."""
    return _sparse_apply("SparseApplyRMSProp", [var, ms, mom, lr, rho, momentum, epsilon, grad, indices],
                         use_locking, name)


def sparse_apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices, use_locking=False,
                                   name=None):
    """ApplyCenteredRMSProp on the rows indices."""
    return _sparse_apply("SparseApplyCenteredRMSProp",
                         [var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices], use_locking, name)


def sparse_apply_ftrl(var, accum, linear, grad, indices, lr, l1, l2, lr_power, use_locking=False, name=None):
    """ApplyFtrl on the rows indices."""
    return _sparse_apply("SparseApplyFtrl", [var, accum, linear, grad, indices, lr, l1, l2, lr_power],
                         use_locking, name)


def sparse_apply_ftrl_v2(var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power, use_locking=False,
                         name=None):
    """ApplyFtrlV2 on the rows indices."""
    return _sparse_apply("SparseApplyFtrlV2",
                         [var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power], use_locking, name)
