"""TF1's optimizers: Momentum, Adagrad, Adadelta, Adam, RMSProp, Ftrl (slots named as TF1)."""
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import get_default_graph
from lens.ops import math as M
from lens.ops.core import group
from lens.ops.state_scatter import scatter_add
from lens.ops.variables import assign, assign_sub
from lens.training import optimizers_ops as ops
from lens.training import optimizers_sparse_ops as sparse
from lens.training.gradient_descent import GradientDescentOptimizer
from lens.training.optimizer import Optimizer, cast_like

__all__ = ["Optimizer", "GradientDescentOptimizer", "MomentumOptimizer", "AdagradOptimizer",
           "AdadeltaOptimizer", "AdamOptimizer", "RMSPropOptimizer", "FtrlOptimizer"]


class _HyperOptimizer(Optimizer):
    """An optimizer whose hyperparameters become named tensors in _prepare (TF1's `<name>_t`)."""

    _HYPER = ()   # (attribute, tensor name) pairs, in TF's creation order

    def _prepare(self):
        for attr, tname in self._HYPER:
            value = self._call_if_callable(getattr(self, "_" + attr))
            setattr(self, "_%s_t" % attr, convert_to_tensor(value, name=tname))

    def _h(self, attr, var):
        """Hyperparameter attr as a tensor of var's dtype."""
        return cast_like(getattr(self, "_%s_t" % attr), var)


class MomentumOptimizer(_HyperOptimizer):
    """accum = momentum * accum + grad; var -= lr * accum (use_nesterov for Nesterov's step)."""

    _HYPER = (("learning_rate", "learning_rate"), ("momentum", "momentum"))

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _apply_dense(self, grad, var):
        return ops.apply_momentum(var, self.get_slot(var, "momentum"), self._h("learning_rate", var), grad,
                                  self._h("momentum", var), use_locking=self._use_locking,
                                  use_nesterov=self._use_nesterov).op

    def _apply_sparse(self, grad, var):
        return sparse.sparse_apply_momentum(var, self.get_slot(var, "momentum"), self._h("learning_rate", var),
                                            grad.values, grad.indices, self._h("momentum", var),
                                            use_locking=self._use_locking, use_nesterov=self._use_nesterov).op


class AdagradOptimizer(_HyperOptimizer):
    """accum += grad^2; var -= lr * grad / sqrt(accum)."""

    _HYPER = (("learning_rate", "learning_rate"),)

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError("initial_accumulator_value must be positive: %s" % initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list):
        from lens.ops.init_ops import constant_initializer
        for v in var_list:
            dtype = v.dtype.base_dtype
            self._get_or_make_slot_with_initializer(
                v, constant_initializer(self._initial_accumulator_value, dtype=dtype), v.get_shape(), dtype,
                "accumulator", self._name)

    def _apply_dense(self, grad, var):
        return ops.apply_adagrad(var, self.get_slot(var, "accumulator"), self._h("learning_rate", var), grad,
                                 use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        return sparse.sparse_apply_adagrad(var, self.get_slot(var, "accumulator"), self._h("learning_rate", var),
                                           grad.values, grad.indices, use_locking=self._use_locking).op


class AdadeltaOptimizer(_HyperOptimizer):
    """Adadelta (Zeiler 2012) with TF1's defaults lr=0.001, rho=0.95, epsilon=1e-8."""

    _HYPER = (("lr", "lr"), ("rho", "rho"), ("epsilon", "epsilon"))

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name)

    def _apply_dense(self, grad, var):
        return ops.apply_adadelta(var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
                                  self._h("lr", var), self._h("rho", var), self._h("epsilon", var), grad,
                                  use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        return sparse.sparse_apply_adadelta(var, self.get_slot(var, "accum"), self.get_slot(var, "accum_update"),
                                            self._h("lr", var), self._h("rho", var), self._h("epsilon", var),
                                            grad.values, grad.indices, use_locking=self._use_locking).op


class AdamOptimizer(_HyperOptimizer):
    """Adam (Kingma & Ba) with bias correction through `beta1_power` / `beta2_power` variables."""

    _HYPER = (("lr", "learning_rate"), ("beta1", "beta1"), ("beta2", "beta2"), ("epsilon", "epsilon"))

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False,
                 name="Adam"):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _get_beta_accumulators(self):
        g = get_default_graph()
        return self._get_non_slot_variable("beta1_power", g), self._get_non_slot_variable("beta2_power", g)

    def _create_slots(self, var_list):
        first = min(var_list, key=lambda v: v.name)
        self._create_non_slot_variable(self._call_if_callable(self._beta1), "beta1_power", first)
        self._create_non_slot_variable(self._call_if_callable(self._beta2), "beta2_power", first)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _apply_dense(self, grad, var):
        b1p, b2p = self._get_beta_accumulators()
        return ops.apply_adam(var, self.get_slot(var, "m"), self.get_slot(var, "v"), cast_like(b1p.value(), var),
                              cast_like(b2p.value(), var), self._h("lr", var), self._h("beta1", var),
                              self._h("beta2", var), self._h("epsilon", var), grad,
                              use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        # TF1's composite: decay both moments everywhere, then scatter-add the rows' contributions.
        b1p, b2p = self._get_beta_accumulators()
        b1, b2, eps = self._h("beta1", var), self._h("beta2", var), self._h("epsilon", var)
        one = M.cast(1, var.dtype.base_dtype)
        lr = self._h("lr", var) * M.sqrt(one - cast_like(b2p.value(), var)) / (one - cast_like(b1p.value(), var))
        g = get_default_graph()
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = assign(m, m * b1, use_locking=self._use_locking)
        with g.control_dependencies([m_t]):
            m_t = scatter_add(m, grad.indices, grad.values * (one - b1), use_locking=self._use_locking)
        v_t = assign(v, v * b2, use_locking=self._use_locking)
        with g.control_dependencies([v_t]):
            v_t = scatter_add(v, grad.indices, (grad.values * grad.values) * (one - b2),
                              use_locking=self._use_locking)
        var_update = assign_sub(var, lr * m_t / (M.sqrt(v_t) + eps), use_locking=self._use_locking)
        return group(var_update, m_t, v_t)

    def _finish(self, update_ops, name_scope_):
        from lens.ops.core import group
        g = get_default_graph()
        # The powers advance only after every variable has taken this step's bias correction.
        with g.control_dependencies(update_ops):
            b1p, b2p = self._get_beta_accumulators()
            with g.colocate_with(b1p.op):
                up1 = b1p.assign(b1p * cast_like(self._beta1_t, b1p), use_locking=self._use_locking)
                up2 = b2p.assign(b2p * cast_like(self._beta2_t, b2p), use_locking=self._use_locking)
        return group(*(list(update_ops) + [up1, up2]), name=name_scope_)


class RMSPropOptimizer(_HyperOptimizer):
    """RMSProp with optional momentum and centering (TF1's slots: rms, mg, momentum)."""

    _HYPER = (("learning_rate", "learning_rate"), ("decay", "decay"), ("momentum", "momentum"),
              ("epsilon", "epsilon"))

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._learning_rate, self._decay, self._momentum, self._epsilon = learning_rate, decay, momentum, epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        from lens.ops.init_ops import ones_initializer
        for v in var_list:
            dtype = v.dtype.base_dtype
            self._get_or_make_slot_with_initializer(v, ones_initializer(dtype=dtype), v.get_shape(), dtype,
                                                    "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name)
            self._zeros_slot(v, "momentum", self._name)

    def _apply_dense(self, grad, var):
        hyper = [self._h(a, var) for a in ("learning_rate", "decay", "momentum", "epsilon")]
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return ops.apply_centered_rms_prop(var, self.get_slot(var, "mg"), rms, mom, *hyper, grad,
                                               use_locking=self._use_locking).op
        return ops.apply_rms_prop(var, rms, mom, *hyper, grad, use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        hyper = [self._h(a, var) for a in ("learning_rate", "decay", "momentum", "epsilon")]
        rms, mom = self.get_slot(var, "rms"), self.get_slot(var, "momentum")
        if self._centered:
            return sparse.sparse_apply_centered_rms_prop(var, self.get_slot(var, "mg"), rms, mom, *hyper,
                                                         grad.values, grad.indices,
                                                         use_locking=self._use_locking).op
        return sparse.sparse_apply_rms_prop(var, rms, mom, *hyper, grad.values, grad.indices,
                                            use_locking=self._use_locking).op


class FtrlOptimizer(_HyperOptimizer):
    """FTRL-Proximal (McMahan et al. 2013) with L1/L2 and optional L2 shrinkage."""

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False,
                 name="Ftrl", accum_name=None, linear_name=None, l2_shrinkage_regularization_strength=0.0,
                 beta=None):
        super().__init__(use_locking, name)
        checks = [(initial_accumulator_value < 0.0, "initial_accumulator_value %f needs to be positive or zero",
                   initial_accumulator_value),
                  (learning_rate_power > 0.0, "learning_rate_power %f needs to be negative or zero",
                   learning_rate_power),
                  (l1_regularization_strength < 0.0, "l1_regularization_strength %f needs to be positive or zero",
                   l1_regularization_strength),
                  (l2_regularization_strength < 0.0, "l2_regularization_strength %f needs to be positive or zero",
                   l2_regularization_strength),
                  (l2_shrinkage_regularization_strength < 0.0,
                   "l2_shrinkage_regularization_strength %f needs to be positive or zero",
                   l2_shrinkage_regularization_strength)]
        for bad, msg, value in checks:
            if bad:
                raise ValueError(msg % value)
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._accum_name, self._linear_name = accum_name, linear_name

    def _prepare(self):
        self._learning_rate_t = convert_to_tensor(self._call_if_callable(self._learning_rate),
                                                  name="learning_rate")
        self._l1_t = convert_to_tensor(self._l1, name="l1_regularization_strength")
        # beta folds into L2 as beta / (2 * learning_rate), as TF1.15 does.
        adjusted = self._l2 + (self._beta / (2.0 * self._learning_rate_t) if self._beta else 0.0)
        self._adjusted_l2_t = convert_to_tensor(adjusted, name="adjusted_l2_regularization_strength")
        self._l2_shrinkage_t = convert_to_tensor(self._l2_shrinkage, name="l2_shrinkage_regularization_strength")
        self._learning_rate_power_t = convert_to_tensor(self._learning_rate_power, name="learning_rate_power")

    def _create_slots(self, var_list):
        from lens.ops.init_ops import constant_initializer
        for v in var_list:
            dtype = v.dtype.base_dtype
            self._get_or_make_slot_with_initializer(
                v, constant_initializer(self._initial_accumulator_value, dtype=dtype), v.get_shape(), dtype,
                "accum", self._accum_name or self._name)
            self._zeros_slot(v, "linear", self._linear_name or self._name)

    def _apply_dense(self, grad, var):
        accum, linear = self.get_slot(var, "accum"), self.get_slot(var, "linear")
        lr, l1, l2 = self._h("learning_rate", var), self._h("l1", var), self._h("adjusted_l2", var)
        power = self._h("learning_rate_power", var)
        if self._l2_shrinkage <= 0.0:
            return ops.apply_ftrl(var, accum, linear, grad, lr, l1, l2, power, use_locking=self._use_locking).op
        return ops.apply_ftrl_v2(var, accum, linear, grad, lr, l1, l2, self._h("l2_shrinkage", var), power,
                                 use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        accum, linear = self.get_slot(var, "accum"), self.get_slot(var, "linear")
        lr, l1, l2 = self._h("learning_rate", var), self._h("l1", var), self._h("adjusted_l2", var)
        power = self._h("learning_rate_power", var)
        if self._l2_shrinkage <= 0.0:
            return sparse.sparse_apply_ftrl(var, accum, linear, grad.values, grad.indices, lr, l1, l2, power,
                                            use_locking=self._use_locking).op
        return sparse.sparse_apply_ftrl_v2(var, accum, linear, grad.values, grad.indices, lr, l1, l2,
                                           self._h("l2_shrinkage", var), power, use_locking=self._use_locking).op
