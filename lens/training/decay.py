"""TF1's learning-rate decays: graph tensors of the global step, with TF1's names and formulas."""
import math

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope

__all__ = ["exponential_decay", "piecewise_constant", "polynomial_decay", "cosine_decay",
           "natural_exp_decay", "inverse_time_decay", "linear_cosine_decay", "cosine_decay_restarts"]


def _need_step(global_step, fn):
    if global_step is None:
        raise ValueError("global_step is required for %s: pass tf.train.get_or_create_global_step() (or any "
                         "step tensor)." % fn)


def _ops():
    from lens.ops import array, logic, math as m
    return array, logic, m


def _step_ratio(lr, global_step, decay_steps, staircase):
    """(lr tensor, step as lr's dtype, global_step / decay_steps, floored when staircase)."""
    array, _, m = _ops()
    lr = convert_to_tensor(lr, name="learning_rate")
    dtype = lr.dtype
    step = array.cast(global_step, dtype)
    steps = array.cast(decay_steps, dtype)
    p = m.truediv(step, steps)
    if staircase:
        p = m.floor(p)
    return lr, dtype, p


def exponential_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * decay_rate ^ (global_step / decay_steps) (the exponent floored when staircase)."""
    _need_step(global_step, "exponential_decay")
    array, _, m = _ops()
    with name_scope(name, "ExponentialDecay", [learning_rate, global_step, decay_steps, decay_rate]) as scope:
        lr, dtype, p = _step_ratio(learning_rate, global_step, decay_steps, staircase)
        rate = array.cast(decay_rate, dtype)
        return m.multiply(lr, m.pow(rate, p), name=scope)


def natural_exp_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate * exp(-decay_rate * global_step / decay_steps)."""
    _need_step(global_step, "natural_exp_decay")
    array, _, m = _ops()
    with name_scope(name, "NaturalExpDecay", [learning_rate, global_step, decay_rate]) as scope:
        lr, dtype, p = _step_ratio(learning_rate, global_step, decay_steps, staircase)
        rate = array.cast(decay_rate, dtype)
        return m.multiply(lr, m.exp(m.multiply(m.negative(rate), p)), name=scope)


def inverse_time_decay(learning_rate, global_step, decay_steps, decay_rate, staircase=False, name=None):
    """learning_rate / (1 + decay_rate * global_step / decay_steps)."""
    _need_step(global_step, "inverse_time_decay")
    array, _, m = _ops()
    with name_scope(name, "InverseTimeDecay", [learning_rate, global_step, decay_rate]) as scope:
        lr, dtype, p = _step_ratio(learning_rate, global_step, decay_steps, staircase)
        rate = array.cast(decay_rate, dtype)
        return m.truediv(lr, m.add(1.0, m.multiply(rate, p)), name=scope)


def piecewise_constant(x, boundaries, values, name=None):
    """values[i] where boundaries[i-1] < x <= boundaries[i] (values[0] up to boundaries[0] included)."""
    array, logic, m = _ops()
    if len(boundaries) != len(values) - 1:
        raise ValueError("The length of boundaries should be 1 less than the length of values: got %d "
                         "boundaries and %d values." % (len(boundaries), len(values)))
    with name_scope(name, "PiecewiseConstant", [x] + list(boundaries) + list(values)) as scope:
        x = convert_to_tensor(x)
        bts = [convert_to_tensor(b) for b in boundaries]
        vts = [convert_to_tensor(v) for v in values]
        for i, b in enumerate(bts):
            if b.dtype.base_dtype is not x.dtype.base_dtype:
                # TF1 allows int32 boundaries against an int64 step; anything else is a user error.
                if x.dtype.base_dtype is _dt.int64 and b.dtype.base_dtype is _dt.int32:
                    bts[i] = array.cast(b, _dt.int64)
                else:
                    raise ValueError("Boundaries (%s) must have the same dtype as x (%s)."
                                     % (b.dtype.base_dtype.name, x.dtype.base_dtype.name))
        for v in vts[1:]:
            if v.dtype.base_dtype is not vts[0].dtype.base_dtype:
                raise ValueError("Values must have elements all with the same dtype (%s vs %s)."
                                 % (vts[0].dtype.base_dtype.name, v.dtype.base_dtype.name))
        # Walk from the last interval down so the first matching interval wins.
        result = vts[-1]
        for b, v in reversed(list(zip(bts, vts[:-1]))):
            result = logic.where(logic.less_equal(x, b), v, result)
        from lens.ops.core import identity
        return identity(result, name=scope)


def polynomial_decay(learning_rate, global_step, decay_steps, end_learning_rate=0.0001, power=1.0,
                     cycle=False, name=None):
    """(lr - end) * (1 - min(step, decay_steps) / decay_steps) ^ power + end (cycle restarts the schedule)."""
    _need_step(global_step, "polynomial_decay")
    array, logic, m = _ops()
    with name_scope(name, "PolynomialDecay", [learning_rate, global_step, decay_steps, end_learning_rate,
                                              power]) as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype
        step = array.cast(global_step, dtype)
        steps = array.cast(decay_steps, dtype)
        end = array.cast(end_learning_rate, dtype)
        pw = array.cast(power, dtype)
        if cycle:
            # Step 0 still uses one period, hence the multiplier of at least 1.
            mult = logic.where(logic.equal(step, 0.0), array.ones_like(step), m.ceil(m.truediv(step, steps)))
            steps = m.multiply(steps, mult)
        else:
            step = m.minimum(step, steps)
        frac = m.truediv(step, steps)
        return m.add(m.multiply(m.subtract(lr, end), m.pow(m.subtract(1.0, frac), pw)), end, name=scope)


def cosine_decay(learning_rate, global_step, decay_steps, alpha=0.0, name=None):
    """lr * ((1 - alpha) * 0.5 * (1 + cos(pi * min(step, decay_steps) / decay_steps)) + alpha)."""
    _need_step(global_step, "cosine_decay")
    array, _, m = _ops()
    with name_scope(name, "CosineDecay", [learning_rate, global_step]) as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype
        steps = array.cast(decay_steps, dtype)
        step = m.minimum(array.cast(global_step, dtype), steps)
        frac = m.truediv(step, steps)
        cosine = m.multiply(0.5, m.add(1.0, m.cos(m.multiply(math.pi, frac))))
        decayed = m.add(m.multiply(1.0 - alpha, cosine), alpha)
        return m.multiply(lr, decayed, name=scope)


def linear_cosine_decay(learning_rate, global_step, decay_steps, num_periods=0.5, alpha=0.0, beta=0.001,
                        name=None):
    """lr * ((alpha + linear) * cosine + beta), linear = (decay_steps - step) / decay_steps."""
    _need_step(global_step, "linear_cosine_decay")
    array, _, m = _ops()
    with name_scope(name, "LinearCosineDecay", [learning_rate, global_step]) as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype
        steps = array.cast(decay_steps, dtype)
        step = m.minimum(array.cast(global_step, dtype), steps)
        linear = m.truediv(m.subtract(steps, step), steps)
        frac = m.multiply(m.multiply(2.0 * num_periods, math.pi), m.truediv(step, steps))
        cosine = m.multiply(0.5, m.add(1.0, m.cos(frac)))
        return m.multiply(lr, m.add(m.multiply(m.add(alpha, linear), cosine), beta), name=scope)


def cosine_decay_restarts(learning_rate, global_step, first_decay_steps, t_mul=2.0, m_mul=1.0, alpha=0.0,
                          name=None):
    """SGDR: cosine periods growing by t_mul, each restart scaled by m_mul."""
    _need_step(global_step, "cosine_decay_restarts")
    array, logic, m = _ops()
    with name_scope(name, "SGDRDecay", [learning_rate, global_step]) as scope:
        lr = convert_to_tensor(learning_rate, name="learning_rate")
        dtype = lr.dtype
        first = array.cast(first_decay_steps, dtype)
        frac = m.truediv(array.cast(global_step, dtype), first)
        if t_mul == 1.0:
            i_restart = m.floor(frac)
            frac = m.subtract(frac, i_restart)
        else:
            # Which period frac falls in: the geometric series 1 + t + t^2 + ... inverted.
            i_restart = m.floor(m.truediv(m.log(m.subtract(1.0, m.multiply(frac, 1.0 - t_mul))),
                                          math.log(t_mul)))
            sum_r = m.truediv(m.subtract(1.0, m.pow(array.cast(t_mul, dtype), i_restart)), 1.0 - t_mul)
            frac = m.truediv(m.subtract(frac, sum_r), m.pow(array.cast(t_mul, dtype), i_restart))
        m_fac = m.pow(array.cast(m_mul, dtype), i_restart)
        cosine = m.multiply(m.multiply(0.5, m_fac), m.add(1.0, m.cos(m.multiply(math.pi, frac))))
        decayed = m.add(m.multiply(1.0 - alpha, cosine), alpha)
        return m.multiply(lr, decayed, name=scope)

