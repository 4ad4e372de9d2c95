"""TF1's in-place training ops (ApplyMomentum, ApplyAdam, ApplyRMSProp, ...): kernels and raw wrappers.

Each op takes the variable and its slots as references (updated in place in the session's variable
store, as TF1's ref kernels do), then the scalar hyperparameters and the gradient, in TF's input
order, and returns the updated variable.
"""
import threading

import numpy as np

from lens.framework import errors
from lens.framework.convert import apply_op
from lens.framework.registry import register_op
from lens.ops import intra_op

# op type -> (input names in TF's order, how many leading inputs are references)
SIGNATURES = {
    "ApplyMomentum": (("var", "accum", "lr", "grad", "momentum"), 2),
    "ApplyAdagrad": (("var", "accum", "lr", "grad"), 2),
    "ApplyAdadelta": (("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"), 3),
    "ApplyAdam": (("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon",
                   "grad"), 3),
    "ApplyRMSProp": (("var", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"), 3),
    "ApplyCenteredRMSProp": (("var", "mg", "ms", "mom", "lr", "rho", "momentum", "epsilon", "grad"), 4),
    "ApplyFtrl": (("var", "accum", "linear", "grad", "lr", "l1", "l2", "lr_power"), 3),
    "ApplyFtrlV2": (("var", "accum", "linear", "grad", "lr", "l1", "l2", "l2_shrinkage", "lr_power"), 3),
}


# ------------------------------------------------------------------ update rules (NumPy, in place)
def _momentum(attrs, var, accum, lr, grad, momentum):
    accum *= momentum
    accum += grad
    if attrs.get("use_nesterov"):
        var -= grad * lr + accum * (momentum * lr)
    else:
        var -= accum * lr


def _adagrad(attrs, var, accum, lr, grad):
    if attrs.get("update_slots", True):
        accum += np.square(grad)
    var -= grad * lr / np.sqrt(accum)


def _adadelta(attrs, var, accum, accum_update, lr, rho, epsilon, grad):
    accum *= rho
    accum += np.square(grad) * (1 - rho)
    update = np.sqrt(accum_update + epsilon) / np.sqrt(accum + epsilon) * grad
    var -= update * lr
    accum_update *= rho
    accum_update += np.square(update) * (1 - rho)


# Adam on big variables runs in slices of this many elements: each slice's passes (moments, step)
# then read the slice from the cache instead of memory, and temporaries stay small. Slices of
# 128K (a few MiB of working set, in the last-level cache) measured fastest shared between two
# threads: fewer NumPy calls, so the threads hand the GIL over less often than with 32K.
ADAM_BLOCK = 1 << 17


def _adam_blocked(var, m, v, alpha, one_b1, one_b2, epsilon, grad):
    """The non-Nesterov Adam step in place, slice by slice, with the same operations in the same
    order as the plain rule (bit-identical results), through two reused slice buffers."""
    vf, mf, sf, gf = var.reshape(-1), m.reshape(-1), v.reshape(-1), grad.reshape(-1)
    n = vf.size
    blocks = range(0, n, ADAM_BLOCK)
    per = -(-len(blocks) // 32)     # chunks of slices, shared with an intra-op helper
    buffers = {}                    # thread -> its two slice buffers, made once per call

    def chunk(i):
        tu = buffers.get(threading.get_ident())
        if tu is None:
            tu = buffers[threading.get_ident()] = (np.empty(ADAM_BLOCK, var.dtype),
                                                   np.empty(ADAM_BLOCK, var.dtype))
        t, u = tu
        for s in blocks[i * per:(i + 1) * per]:
            _adam_slice(vf, mf, sf, gf, t, u, s, min(n, s + ADAM_BLOCK), alpha, one_b1, one_b2, epsilon)
    intra_op.run_chunks(chunk, -(-len(blocks) // per))


def _adam_slice(vf, mf, sf, gf, t, u, s, e, alpha, one_b1, one_b2, epsilon):
    """One slice [s, e) of the blocked Adam step (t, u: this thread's slice buffers)."""
    g, mm, vv, tt, uu = gf[s:e], mf[s:e], sf[s:e], t[:e - s], u[:e - s]
    np.subtract(g, mm, out=tt)          # m += (grad - m) * (1 - beta1)
    tt *= one_b1
    mm += tt
    np.multiply(g, g, out=tt)           # v += (grad^2 - v) * (1 - beta2)
    tt -= vv
    tt *= one_b2
    vv += tt
    np.sqrt(vv, out=tt)                 # var -= m * alpha / (sqrt(v) + epsilon)
    tt += epsilon
    np.multiply(mm, alpha, out=uu)
    uu /= tt
    vf[s:e] -= uu


def _adam(attrs, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    alpha = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    grad = np.asarray(grad)
    if (var.size >= ADAM_BLOCK and not attrs.get("use_nesterov") and var.dtype == m.dtype == v.dtype
            == grad.dtype == np.result_type(alpha, var) and var.dtype.kind == "f"
            and all(a.flags.c_contiguous for a in (var, m, v, grad))):
        _adam_blocked(var, m, v, alpha, 1 - beta1, 1 - beta2, epsilon, grad)
        return
    m += (grad - m) * (1 - beta1)
    v += (np.square(grad) - v) * (1 - beta2)
    if attrs.get("use_nesterov"):
        var -= (grad * (1 - beta1) + m * beta1) * alpha / (np.sqrt(v) + epsilon)
    else:
        var -= m * alpha / (np.sqrt(v) + epsilon)


def _rmsprop(attrs, var, ms, mom, lr, rho, momentum, epsilon, grad):
    ms += (np.square(grad) - ms) * (1 - rho)
    mom *= momentum
    mom += grad * lr / np.sqrt(ms + epsilon)
    var -= mom


def _centered_rmsprop(attrs, var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    ms += (np.square(grad) - ms) * (1 - rho)
    mg += (grad - mg) * (1 - rho)
    mom *= momentum
    mom += grad * lr / np.sqrt(ms - np.square(mg) + epsilon)
    var -= mom


def _ftrl_core(var, accum, linear, grad, grad_for_linear, lr, l1, l2, lr_power):
    new_accum = accum + np.square(grad)
    if lr_power == -0.5:
        new_pow, old_pow = np.sqrt(new_accum), np.sqrt(accum)
    else:
        new_pow, old_pow = np.power(new_accum, -lr_power), np.power(accum, -lr_power)
    linear += grad_for_linear - (new_pow - old_pow) / lr * var
    quadratic = new_pow / lr + 2 * l2
    shrunk = (np.sign(linear) * l1 - linear) / quadratic
    var[...] = np.where(np.abs(linear) > l1, shrunk, 0)
    accum[...] = new_accum


def _ftrl(attrs, var, accum, linear, grad, lr, l1, l2, lr_power):
    _ftrl_core(var, accum, linear, grad, grad, lr, l1, l2, lr_power)


def _ftrl_v2(attrs, var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power):
    # The shrinkage term enters the linear accumulator only; accum still sums the raw gradient.
    _ftrl_core(var, accum, linear, grad, grad + 2 * l2_shrinkage * var, lr, l1, l2, lr_power)


RULES = {"ApplyMomentum": _momentum, "ApplyAdagrad": _adagrad, "ApplyAdadelta": _adadelta,
         "ApplyAdam": _adam, "ApplyRMSProp": _rmsprop, "ApplyCenteredRMSProp": _centered_rmsprop,
         "ApplyFtrl": _ftrl, "ApplyFtrlV2": _ftrl_v2}


# ------------------------------------------------------------------ kernels and shapes
def _writable(store, name):
    """The stored array of name, writable in place (copied first when it is a view of something else)."""
    arr = store[name]
    if arr.base is not None:
        arr = store[name] = np.array(arr, copy=True)
    arr.flags.writeable = True
    return arr


def _make_kernel(op_type):
    names, n_refs = SIGNATURES[op_type]
    rule = RULES[op_type]

    def make(op, ctx):
        store = ctx.variables
        ref_names = [t.op.name for t in op._inputs[:n_refs]]
        attrs = dict(op._attrs)
        grad_pos = names.index("grad") - n_refs

        def run(*values):
            var_shape = store[ref_names[0]].shape
            for rn, arg in zip(ref_names[1:], names[1:n_refs]):
                if store[rn].shape != var_shape:
                    raise errors.InvalidArgumentError(
                        None, op, "var and %s do not have the same shape %s %s (variable %s, slot %s)"
                        % (arg, list(var_shape), list(store[rn].shape), ref_names[0], rn))
            if np.shape(values[grad_pos]) != var_shape:
                raise errors.InvalidArgumentError(
                    None, op, "var and grad do not have the same shape %s %s (variable %s)"
                    % (list(var_shape), list(np.shape(values[grad_pos])), ref_names[0]))
            arrays = [_writable(store, rn) for rn in ref_names]
            try:
                rule(attrs, *arrays, *values)
            finally:
                for a in arrays:
                    a.flags.writeable = False
            return arrays[0]
        return run
    return make


def _make_shape(op_type):
    names, n_refs = SIGNATURES[op_type]

    def shape(op):
        var_shape = op._inputs[0].shape
        for arg, t in zip(names[1:], op._inputs[1:]):
            if arg in names[1:n_refs] or arg == "grad":
                try:
                    var_shape = var_shape.merge_with(t.shape)
                except ValueError:
                    raise ValueError("Shapes must be equal for 'var' and '%s' of '%s' (op: '%s'): %s vs %s"
                                     % (arg, op.name, op_type, op._inputs[0].shape, t.shape)) from None
            elif t.shape.ndims not in (None, 0):
                raise ValueError("Shape must be rank 0 but is rank %d for '%s' (op: '%s') input '%s': the "
                                 "hyperparameter must be a scalar" % (t.shape.ndims, op.name, op_type, arg))
        return [var_shape]
    return shape


for _type, (_names, _n_refs) in SIGNATURES.items():
    register_op(_type, make=_make_kernel(_type), shape=_make_shape(_type), handle_inputs=tuple(range(_n_refs)),
                not_differentiable=True, stateful=True)


# ------------------------------------------------------------------ raw wrappers (gen_training_ops style)
def _apply(op_type, args, use_locking, name, **attrs):
    names, n_refs = SIGNATURES[op_type]
    var = args[0]
    base = var.dtype.base_dtype
    inputs = []
    for arg, value in zip(names, args):
        if hasattr(value, "_ref"):
            value = value._ref()
        if arg in names[:n_refs] and not (hasattr(value, "dtype") and value.dtype.is_ref_dtype):
            raise TypeError("%s: input '%s' must be a variable reference (a Variable), got %r"
                            % (op_type, arg, value))
        inputs.append((value, arg))
    all_attrs = {"T": base, "use_locking": bool(use_locking)}
    all_attrs.update(attrs)
    # Every input (refs included) has the variable's base dtype: hyperparameters become consts of it.
    return apply_op(op_type, inputs, all_attrs, name=name or op_type, dtypes=[base._as_ref],
                    input_dtype=base, same_dtype=True)


def apply_momentum(var, accum, lr, grad, momentum, use_locking=False, use_nesterov=False, name=None):
    """accum = accum * momentum + grad; var -= lr * accum (or the Nesterov step)."""
    return _apply("ApplyMomentum", [var, accum, lr, grad, momentum], use_locking, name,
                  use_nesterov=bool(use_nesterov))


def apply_adagrad(var, accum, lr, grad, use_locking=False, update_slots=True, name=None):
    """accum += grad^2; var -= lr * grad / sqrt(accum)."""
    return _apply("ApplyAdagrad", [var, accum, lr, grad], use_locking, name, update_slots=bool(update_slots))


def apply_adadelta(var, accum, accum_update, lr, rho, epsilon, grad, use_locking=False, name=None):
    """Adadelta's accumulators and step."""
    return _apply("ApplyAdadelta", [var, accum, accum_update, lr, rho, epsilon, grad], use_locking, name)


def apply_adam(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, use_locking=False,
               use_nesterov=False, name=None):
    """Adam's moment updates and bias-corrected step."""
    return _apply("ApplyAdam", [var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad],
                  use_locking, name, use_nesterov=bool(use_nesterov))


def apply_rms_prop(var, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False, name=None):
    """ms = rho*ms + (1-rho)*grad^2; mom = momentum*mom + lr*grad/sqrt(ms+eps); var -= mom."""
    return _apply("ApplyRMSProp", [var, ms, mom, lr, rho, momentum, epsilon, grad], use_locking, name)


def apply_centered_rms_prop(var, mg, ms, mom, lr, rho, momentum, epsilon, grad, use_locking=False, name=None):
    """RMSProp normalized by the centered second moment ms - mg^2."""
    return _apply("ApplyCenteredRMSProp", [var, mg, ms, mom, lr, rho, momentum, epsilon, grad],
                  use_locking, name)


def apply_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, use_locking=False, name=None):
    """FTRL-Proximal step."""
    return _apply("ApplyFtrl", [var, accum, linear, grad, lr, l1, l2, lr_power], use_locking, name)


def apply_ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power, use_locking=False, name=None):
    """FTRL-Proximal step with L2 shrinkage."""
    return _apply("ApplyFtrlV2", [var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power],
                  use_locking, name)
