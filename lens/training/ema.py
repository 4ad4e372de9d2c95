"""ExponentialMovingAverage: shadow variables `<var>/ExponentialMovingAverage` updated by apply()."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import GraphKeys, get_default_graph, name_scope
from lens.training.optimizers_slots import create_slot, create_zeros_slot

__all__ = ["ExponentialMovingAverage"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _assign_moving_average(avg, value, decay, zero_debias):
    """avg -= (1 - decay) * (avg - value), or the zero-debiased form over hidden accumulators."""
    from lens.ops import array, math as m
    from lens.ops.variables import assign_sub
    with name_scope(None, "AssignMovingAvg", [avg, value, decay]) as scope:
        decay = array.cast(decay, avg.dtype.base_dtype)
        one_minus = m.subtract(convert_to_tensor(1.0, dtype=avg.dtype.base_dtype), decay)
        if not zero_debias:
            return assign_sub(avg, m.multiply(m.subtract(avg.value(), value), one_minus), name=scope)
        return _zero_debias(avg, value, decay, one_minus, scope)


def _zero_debias(avg, value, decay, one_minus, scope):
    """avg = biased / (1 - decay^steps): removes the pull toward the zero initial value."""
    from lens.ops import math as m
    from lens.training.optimizers_slots import create_slot_with_initializer
    from lens.ops import init_ops
    from lens.ops.variables import assign, assign_add, assign_sub
    g = get_default_graph()
    dtype = avg.dtype.base_dtype
    biased = create_slot_with_initializer(avg, init_ops.zeros_initializer(dtype=dtype), avg.get_shape(),
                                          dtype, "biased")
    local_step = create_slot_with_initializer(avg, init_ops.zeros_initializer(dtype=dtype), [], dtype,
                                              "local_step")
    up_biased = assign_sub(biased, m.multiply(m.subtract(biased.value(), value), one_minus))
    up_step = assign_add(local_step, convert_to_tensor(1.0, dtype=dtype))
    with g.control_dependencies([up_biased, up_step]):
        unbiased = m.truediv(biased.read_value(), m.subtract(1.0, m.pow(decay, local_step.read_value())))
    return assign(avg, unbiased, name=scope)


class ExponentialMovingAverage:
    """Maintains shadow = decay * shadow + (1 - decay) * value for variables and tensors."""

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}

    @property
    def name(self):
        """The name of this EMA (the suffix of its shadow variables)."""
        return self._name

    def apply(self, var_list=None):
        """Create shadows for var_list (default: trainable variables) and return the op updating them."""
        from lens.ops.core import group
        from lens.ops.variables import Variable, trainable_variables
        if var_list is None:
            var_list = trainable_variables()
        var_list = list(var_list)
        debiased = set()
        for var in var_list:
            if var.dtype.base_dtype.name not in _FLOATS:
                raise TypeError("The variables must be half, float, or double: %s (got %s)"
                                % (var.name, var.dtype.base_dtype.name))
            if var in self._averages:
                continue
            if isinstance(var, Variable):
                avg = create_slot(var, var.initialized_value(), self._name)
                get_default_graph().add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
            else:
                avg = create_zeros_slot(var, self._name)
                if self._zero_debias:
                    debiased.add(avg)
            self._averages[var] = avg
        with name_scope(self._name) as scope:
            decay = convert_to_tensor(self._decay, name="decay")
            if self._num_updates is not None:
                from lens.ops import array, math as m
                n = array.cast(self._num_updates, _dt.float32, name="num_updates")
                decay = m.minimum(decay, m.truediv(m.add(1.0, n), m.add(10.0, n)))
            updates = [_assign_moving_average(self._averages[v], v, decay, self._averages[v] in debiased)
                       for v in var_list]
            return group(*updates, name=scope)

    def average(self, var):
        """The shadow variable of var, or None."""
        return self._averages.get(var)

    def average_name(self, var):
        """The name the shadow of var has (or would have): `<var op name>/<ema name>`."""
        if var in self._averages:
            return self._averages[var].op.name
        return var.op.name + "/" + self._name

    def variables_to_restore(self, moving_avg_variables=None):
        """{checkpoint name: variable} that restores shadow values into the variables themselves."""
        from lens.ops.variables import global_variables, moving_average_variables, trainable_variables
        if moving_avg_variables is None:
            moving_avg_variables = trainable_variables() + moving_average_variables()
        averaged = list(dict.fromkeys(moving_avg_variables))
        name_map = {self.average_name(v): v for v in averaged}
        averaged_names = {v.name for v in averaged}
        for v in global_variables():
            if v.name not in averaged_names and v.op.name not in name_map:
                name_map[v.op.name] = v
        return name_map
