"""TF1's proximal and dual-averaging optimizers: ProximalGradientDescent, ProximalAdagrad, AdagradDA,
with their training ops (Apply* and SparseApply*, in place like the others of optimizers_ops)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import colocate_with
from lens.framework.registry import register_op
from lens.ops import math as M
from lens.ops.core import identity
from lens.ops.init_ops import constant_initializer
from lens.training import optimizers_ops as ops
from lens.training import optimizers_sparse_ops as sparse
from lens.training.optimizer import Optimizer, cast_like

__all__ = ["ProximalGradientDescentOptimizer", "ProximalAdagradOptimizer", "AdagradDAOptimizer"]


# ------------------------------------------------------------------ update rules (NumPy, in place)
def _shrink(prox, lr, l1, l2):
    """The proximal step of l1 and l2: sign(p) max(|p| - lr l1, 0) / (1 + lr l2)."""
    return np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, 0) / (1 + lr * l2)


def _proximal_gd(attrs, var, alpha, l1, l2, delta):
    var[...] = _shrink(var - alpha * delta, alpha, l1, l2)


def _proximal_adagrad(attrs, var, accum, lr, l1, l2, grad):
    accum += np.square(grad)
    step = lr / np.sqrt(accum)
    var[...] = _shrink(var - step * grad, step, l1, l2)


def _adagrad_da(attrs, var, grad_acc, grad_sq_acc, grad, lr, l1, l2, global_step):
    grad_acc += grad
    grad_sq_acc += np.square(grad)
    step = float(global_step)
    kept = np.sign(grad_acc) * np.maximum(np.abs(grad_acc) - l1 * step, 0) if l1 > 0 else grad_acc
    var[...] = -lr * kept / (l2 * step * lr + np.sqrt(grad_sq_acc))


ops.SIGNATURES.update({
    # TF calls the gradient input of ApplyProximalGradientDescent `delta`; the shared kernel wants `grad`.
    "ApplyProximalGradientDescent": (("var", "alpha", "l1", "l2", "grad"), 1),
    "ApplyProximalAdagrad": (("var", "accum", "lr", "l1", "l2", "grad"), 2),
    "ApplyAdagradDA": (("var", "gradient_accumulator", "gradient_squared_accumulator", "grad", "lr", "l1", "l2",
                        "global_step"), 3),
})
ops.RULES.update({"ApplyProximalGradientDescent": _proximal_gd, "ApplyProximalAdagrad": _proximal_adagrad,
                  "ApplyAdagradDA": _adagrad_da})
for _type in ("ApplyProximalGradientDescent", "ApplyProximalAdagrad", "ApplyAdagradDA"):
    register_op(_type, make=ops._make_kernel(_type), shape=lambda op: [op._inputs[0].shape],
                handle_inputs=tuple(range(ops.SIGNATURES[_type][1])), not_differentiable=True, stateful=True)

# The sparse forms: the same rules on the rows `indices`.
sparse.SPARSE.update({"SparseApplyProximalGradientDescent": "ApplyProximalGradientDescent",
                      "SparseApplyProximalAdagrad": "ApplyProximalAdagrad", "SparseApplyAdagradDA": "ApplyAdagradDA"})
for _type in ("SparseApplyProximalGradientDescent", "SparseApplyProximalAdagrad", "SparseApplyAdagradDA"):
    register_op(_type, make=sparse._make_kernel(_type), shape=lambda op: [op._inputs[0].shape],
                handle_inputs=tuple(range(sparse._sparse_signature(sparse.SPARSE[_type])[1])),
                not_differentiable=True, stateful=True)


# ------------------------------------------------------------------ raw wrappers
def apply_proximal_gradient_descent(var, alpha, l1, l2, delta, use_locking=False, name=None):
    """var = prox(var - alpha * delta) for the l1 and l2 strengths."""
    return ops._apply("ApplyProximalGradientDescent", [var, alpha, l1, l2, delta], use_locking, name)


def apply_proximal_adagrad(var, accum, lr, l1, l2, grad, use_locking=False, name=None):
    """accum += grad^2; var = prox(var - lr / sqrt(accum) * grad)."""
    return ops._apply("ApplyProximalAdagrad", [var, accum, lr, l1, l2, grad], use_locking, name)


def _da_inputs(names, args):
    base = args[0].dtype.base_dtype
    out = []
    for arg, value in zip(names, args):
        if hasattr(value, "_ref"):
            value = value._ref()
        elif arg == "global_step":
            value = convert_to_tensor(value, dtype=_dt.int64, name=arg)
        elif arg == "indices":
            value = convert_to_tensor(value, name=arg)
        elif not (hasattr(value, "dtype") and value.dtype.is_ref_dtype):
            value = convert_to_tensor(value, dtype=base, name=arg)
        out.append((value, arg))
    return base, out


def apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2, global_step,
                     use_locking=False, name=None):
    """Adagrad dual averaging: the accumulators grow, var is recomputed from them (global_step: int64)."""
    names = ops.SIGNATURES["ApplyAdagradDA"][0]
    base, inputs = _da_inputs(names, [var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2,
                                      global_step])
    return apply_op("ApplyAdagradDA", inputs, {"T": base, "use_locking": bool(use_locking)},
                    name=name or "ApplyAdagradDA", dtypes=[base._as_ref], same_dtype=False)


def sparse_apply_proximal_gradient_descent(var, alpha, l1, l2, grad, indices, use_locking=False, name=None):
    """ApplyProximalGradientDescent on the rows indices."""
    return sparse._sparse_apply("SparseApplyProximalGradientDescent", [var, alpha, l1, l2, grad, indices],
                                use_locking, name)


def sparse_apply_proximal_adagrad(var, accum, lr, l1, l2, grad, indices, use_locking=False, name=None):
    """ApplyProximalAdagrad on the rows indices."""
    return sparse._sparse_apply("SparseApplyProximalAdagrad", [var, accum, lr, l1, l2, grad, indices],
                                use_locking, name)


def sparse_apply_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, indices, lr, l1, l2,
                            global_step, use_locking=False, name=None):
    """ApplyAdagradDA on the rows indices."""
    names = sparse._sparse_signature("ApplyAdagradDA")[0]
    args = [var, gradient_accumulator, gradient_squared_accumulator, grad, indices, lr, l1, l2, global_step]
    base, inputs = _da_inputs(names, args)
    return apply_op("SparseApplyAdagradDA", inputs,
                    {"T": base, "Tindices": inputs[4][0].dtype.base_dtype, "use_locking": bool(use_locking)},
                    name=name or "SparseApplyAdagradDA", dtypes=[base._as_ref], same_dtype=False)


# ------------------------------------------------------------------ optimizers
class _Regularized(Optimizer):
    def _prepare(self):
        self._learning_rate_t = convert_to_tensor(self._call_if_callable(self._learning_rate), name="learning_rate")
        self._l1_t = convert_to_tensor(self._l1, name="l1_regularization_strength")
        self._l2_t = convert_to_tensor(self._l2, name="l2_regularization_strength")

    def _hyper(self, var):
        return [cast_like(t, var) for t in (self._learning_rate_t, self._l1_t, self._l2_t)]


class ProximalGradientDescentOptimizer(_Regularized):
    """Gradient descent followed by the proximal step of the l1 and l2 penalties (FOBOS)."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _apply_dense(self, grad, var):
        return apply_proximal_gradient_descent(var, *self._hyper(var), grad, use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        return sparse_apply_proximal_gradient_descent(var, *self._hyper(var), grad.values, grad.indices,
                                                      use_locking=self._use_locking).op


class ProximalAdagradOptimizer(_Regularized):
    """Adagrad's step size followed by the proximal step of the l1 and l2 penalties."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False, name="ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _create_slots(self, var_list):
        for v in var_list:
            dtype = v.dtype.base_dtype
            self._get_or_make_slot_with_initializer(
                v, constant_initializer(self._initial_accumulator_value, dtype=dtype), v.get_shape(), dtype,
                "accumulator", self._name)

    def _apply_dense(self, grad, var):
        lr, l1, l2 = self._hyper(var)
        return apply_proximal_adagrad(var, self.get_slot(var, "accumulator"), lr, l1, l2, grad,
                                      use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        lr, l1, l2 = self._hyper(var)
        return sparse_apply_proximal_adagrad(var, self.get_slot(var, "accumulator"), lr, l1, l2, grad.values,
                                             grad.indices, use_locking=self._use_locking).op


class AdagradDAOptimizer(_Regularized):
    """Adagrad dual averaging (for sparse linear models): var from the running gradient sums."""

    def __init__(self, learning_rate, global_step, initial_gradient_squared_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False,
                 name="AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError("initial_gradient_squared_accumulator_value must be positive: %s"
                             % initial_gradient_squared_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_gradient_squared_accumulator_value = initial_gradient_squared_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength
        self._global_step = global_step
        self._global_step_on_worker = None

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "gradient_accumulator", self._name)
            dtype = v.dtype.base_dtype
            self._get_or_make_slot_with_initializer(
                v, constant_initializer(self._initial_gradient_squared_accumulator_value, dtype=dtype),
                v.get_shape(), dtype, "gradient_squared_accumulator", self._name)

    def _prepare(self):
        super()._prepare()
        if self._global_step is None:
            raise ValueError("Global step can't be None.")
        # The step the update is for: global_step + 1 (apply_gradients increments it afterwards).
        with colocate_with(self._global_step):
            self._global_step_on_worker = M.add(identity(self._global_step), 1)

    def _step(self):
        return M.cast(self._global_step_on_worker, _dt.int64)

    def _apply_dense(self, grad, var):
        lr, l1, l2 = self._hyper(var)
        return apply_adagrad_da(var, self.get_slot(var, "gradient_accumulator"),
                                self.get_slot(var, "gradient_squared_accumulator"), grad, lr, l1, l2, self._step(),
                                use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        lr, l1, l2 = self._hyper(var)
        return sparse_apply_adagrad_da(var, self.get_slot(var, "gradient_accumulator"),
                                       self.get_slot(var, "gradient_squared_accumulator"), grad.values, grad.indices,
                                       lr, l1, l2, self._step(), use_locking=self._use_locking).op
