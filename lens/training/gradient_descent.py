"""GradientDescentOptimizer and its ApplyGradientDescent op (an in-place update, as TF1)."""
import numpy as np

from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.registry import register_op
from lens.ops.conv_np import SCRATCH_MIN_BYTES, scratch
from lens.ops.state_scatter import scatter_sub
from lens.training.optimizer import Optimizer, cast_like


def _make_apply_gd(op, ctx, donated=frozenset()):
    name = op._inputs[0].op.name
    store = ctx.variables
    own_delta = 2 in donated    # the plan proved nothing else reads delta: scale it in place
    ndarray = np.ndarray

    def apply(alpha, delta):
        var = store[name]
        if var.base is not None:
            var = store[name] = np.array(var, copy=True)     # a view (a restored checkpoint's) is not ours
        var.flags.writeable = True
        dtype = var.dtype
        if type(delta) is ndarray and delta.dtype == dtype and type(alpha) is ndarray and alpha.dtype == dtype \
                and delta.shape == var.shape and not alpha.ndim:
            # var -= alpha * delta, the product written into delta when it is ours (one buffer
            # fewer passing through the cache), else into a reused per-thread buffer; same values.
            if own_delta and delta.flags.writeable:
                np.multiply(delta, alpha, out=delta)
                step = delta
            elif var.nbytes < SCRATCH_MIN_BYTES:    # small (a bias): fresh costs less than the lookup
                step = np.multiply(delta, alpha)
            else:
                step = np.multiply(delta, alpha, out=scratch("gd_step", var.shape, dtype))
            np.subtract(var, step, out=var)
            var.flags.writeable = False
            return var
        step = np.multiply(delta, alpha, dtype=dtype,
                           out=scratch("gd_step", np.broadcast_shapes(np.shape(delta), np.shape(alpha)), dtype))
        np.subtract(var, step, out=var, casting="unsafe")
        var.flags.writeable = False
        return var
    return apply


register_op("ApplyGradientDescent", make=_make_apply_gd, inplace=_make_apply_gd, handle_inputs=(0,),
            not_differentiable=True, stateful=True, shape=lambda op: [op._inputs[0].shape])


def apply_gradient_descent(var, alpha, delta, use_locking=False, name=None):
    """var -= alpha * delta, in place; returns var."""
    return apply_op("ApplyGradientDescent", [(var, "var"), (alpha, "alpha"), (delta, "delta")],
                    {"use_locking": use_locking, "T": var.dtype.base_dtype}, name=name or "ApplyGradientDescent",
                    dtypes=[var.dtype], same_dtype=False)


class GradientDescentOptimizer(Optimizer):
    """Plain SGD: var -= learning_rate * grad."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._learning_rate_tensor = None

    def _prepare(self):
        lr = self._call_if_callable(self._learning_rate)
        self._learning_rate_tensor = convert_to_tensor(lr, name="learning_rate")

    def _apply_dense(self, grad, var):
        return apply_gradient_descent(var._ref(), cast_like(self._learning_rate_tensor, var), grad,
                                      use_locking=self._use_locking).op

    def _apply_sparse_duplicate_indices(self, grad, var):
        # Repeated rows need no summing first: scatter_sub adds them all up.
        delta = grad.values * cast_like(self._learning_rate_tensor, var)
        return scatter_sub(var, grad.indices, delta, use_locking=self._use_locking).op
