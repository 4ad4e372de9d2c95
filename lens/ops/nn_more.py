"""The rest of tf.nn's composites, built as TF builds them on lens ops: swish/silu, moments helpers
(sufficient_statistics, normalize_moments, weighted_moments), zero_fraction, log_poisson_loss,
compute_average_loss, scale_regularization_loss, batch_norm_with_global_normalization,
approx_max_k / approx_min_k, atrous_conv2d_transpose, conv2d_backprop_*_v2."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import name_scope
from lens.ops import array as A
from lens.ops import math as M
from lens.ops import reduce as R


def silu(features, beta=1.0, name=None):
    """features * sigmoid(beta * features)."""
    with name_scope(name, "swish", [features]):
        x = convert_to_tensor(features, name="features")
        z = x if beta == 1.0 else M.multiply(x, convert_to_tensor(beta, dtype=x.dtype.base_dtype))
        return M.multiply(x, M.sigmoid(z))


swish = silu


def zero_fraction(value, name=None):
    """The fraction of zeros in value, as a float32 scalar."""
    from lens.ops.logic import equal
    with name_scope(name, "zero_fraction", [value]):
        v = convert_to_tensor(value, name="value")
        zero = convert_to_tensor(0, dtype=v.dtype.base_dtype)
        return R.reduce_mean(M.cast(equal(v, zero), _dt.float32))


def _keep(keep_dims, keepdims):
    return bool(keepdims if keepdims is not None else keep_dims)


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """(count, sum of x - shift, sum of (x - shift)^2, shift) over axes."""
    keep = _keep(keep_dims, keepdims)
    with name_scope(name, "sufficient_statistics", [x, shift]):
        x = convert_to_tensor(x, name="x")
        dims = x.shape.as_list() if x.shape.ndims is not None else None
        axes = [int(a) for a in np.ravel(axes)]
        if dims is not None and all(dims[a] is not None for a in axes):
            count = convert_to_tensor(float(np.prod([dims[a] for a in axes])), dtype=x.dtype.base_dtype, name="count")
        else:
            from lens.ops.indexing import gather
            count = M.cast(R.reduce_prod(gather(A.shape(x), axes)), x.dtype.base_dtype, name="count")
        if shift is not None:
            shift = convert_to_tensor(shift, dtype=x.dtype.base_dtype, name="shift")
            m_ss = M.subtract(x, shift)
            v_ss = M.squared_difference(x, shift)
        else:
            m_ss, v_ss = x, M.square(x)
        return (count, R.reduce_sum(m_ss, axes, keepdims=keep, name="mean_ss"),
                R.reduce_sum(v_ss, axes, keepdims=keep, name="var_ss"), shift)


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """(mean, variance) from sufficient statistics."""
    with name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = M.reciprocal(convert_to_tensor(counts), name="divisor")
        shifted_mean = M.multiply(mean_ss, divisor, name="shifted_mean")
        mean = M.add(shifted_mean, shift, name="mean") if shift is not None else shifted_mean
        variance = M.subtract(M.multiply(variance_ss, divisor), M.square(shifted_mean), name="variance")
        return mean, variance


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """(mean, variance) of x over axes with frequency_weights broadcast against x."""
    from lens.ops.core import stop_gradient
    keep = _keep(keep_dims, keepdims)
    with name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = convert_to_tensor(x, name="x")
        w = convert_to_tensor(frequency_weights, dtype=x.dtype.base_dtype, name="frequency_weights")
        axes = [int(a) for a in np.ravel(axes)]
        weighted_sum = R.reduce_sum(M.multiply(w, x), axes, keepdims=True)
        sum_w = R.reduce_sum(M.add(w, A.zeros_like(x)), axes, keepdims=True)
        divisor = M.reciprocal(sum_w)
        mean = M.multiply(weighted_sum, divisor)
        dist = R.reduce_sum(M.multiply(w, M.squared_difference(x, stop_gradient(mean))), axes, keepdims=True)
        variance = M.multiply(dist, divisor)
        if not keep:
            mean, variance = A.squeeze(mean, axes), A.squeeze(variance, axes)
        return mean, variance


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets (+ Stirling's approximation of log(targets!) when full)."""
    from lens.ops.logic import less_equal, where
    with name_scope(name, "log_poisson_loss", [targets, log_input]):
        log_input = convert_to_tensor(log_input, name="log_input")
        targets = convert_to_tensor(targets, dtype=log_input.dtype.base_dtype, name="targets")
        if not log_input.shape.is_compatible_with(targets.shape):
            raise ValueError("log_input and targets must have the same shape (%s vs %s)"
                             % (log_input.shape, targets.shape))
        result = M.subtract(M.exp(log_input), M.multiply(log_input, targets))
        if compute_full_loss:
            two_pi = convert_to_tensor(2 * np.pi, dtype=targets.dtype.base_dtype)
            stirling = M.add(M.subtract(M.multiply(targets, M.log(targets)), targets),
                             M.multiply(0.5, M.log(M.multiply(two_pi, targets))))
            one = convert_to_tensor(1.0, dtype=targets.dtype.base_dtype)
            result = M.add(result, where(less_equal(targets, one), A.zeros_like(targets), stirling))
        return result


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """sum(per_example_loss * sample_weight) / global_batch_size (default: the batch's size; one replica)."""
    with name_scope(None, "weighted_loss", [per_example_loss, sample_weight]):
        loss = convert_to_tensor(per_example_loss, name="per_example_loss")
        if not loss.dtype.base_dtype.is_floating:
            raise TypeError("per_example_loss must be a floating point tensor, got %s" % loss.dtype.name)
        if sample_weight is not None:
            loss = M.multiply(loss, M.cast(sample_weight, loss.dtype.base_dtype))
        if global_batch_size is None:
            n = loss.shape.as_list()[0] if loss.shape.ndims else None
            global_batch_size = n if n is not None else M.cast(A.shape(loss)[0], loss.dtype.base_dtype)
        elif not hasattr(global_batch_size, "op") and global_batch_size <= 0:
            raise ValueError("Invalid value passed for `global_batch_size`: %s" % global_batch_size)
        return M.truediv(R.reduce_sum(loss), M.cast(global_batch_size, loss.dtype.base_dtype))


def scale_regularization_loss(regularization_loss):
    """The regularization loss (summed if a list) scaled by 1 / replicas: one replica in lens."""
    if isinstance(regularization_loss, (list, tuple)):
        regularization_loss = M.add_n(list(regularization_loss))
    return M.truediv(regularization_loss, 1.0)


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None, variance_epsilon=None,
                                         scale_after_normalization=None, name=None, input=None,  # noqa: A002
                                         mean=None, variance=None):
    """TF1's batch_norm_with_global_normalization: batch_normalization with gamma when scaling after."""
    from lens.ops.nn_extra import batch_normalization
    t = input if t is None else t
    m = mean if m is None else m
    v = variance if v is None else v
    with name_scope(name, "batchnorm", [t, m, v, beta, gamma]):
        return batch_normalization(t, m, v, beta, gamma if scale_after_normalization else None, variance_epsilon)


def _approx_k(operand, k, dim, largest):
    from lens.ops.nn_extra import top_k
    x = convert_to_tensor(operand, name="operand")
    rank = x.shape.ndims
    if rank is None:
        raise ValueError("approx_max_k needs the operand's rank")
    dim = dim % rank
    perm = [i for i in range(rank) if i != dim] + [dim]
    moved = A.transpose(x, perm) if dim != rank - 1 else x
    values, idx = top_k(moved if largest else M.negative(moved), k, sorted=True)
    if not largest:
        values = M.negative(values)
    if dim != rank - 1:
        back = list(np.argsort(perm))
        values, idx = A.transpose(values, back), A.transpose(idx, back)
    return values, idx


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """(values, indices) of the k largest along reduction_dimension (exact: recall 1 on CPU)."""
    with name_scope(name, "ApproxTopK", [operand]):
        return _approx_k(operand, k, reduction_dimension, True)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """(values, indices) of the k smallest along reduction_dimension (exact: recall 1 on CPU)."""
    with name_scope(name, "ApproxTopK", [operand]):
        return _approx_k(operand, k, reduction_dimension, False)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d: conv2d_transpose with the filter dilated by rate."""
    from lens.ops.conv import conv2d_backprop_input
    if padding not in ("SAME", "VALID"):
        raise ValueError("padding must be either VALID or SAME: %r" % (padding,))
    if rate < 1:
        raise ValueError("rate %d cannot be less than one" % rate)
    with name_scope(name, "atrous_conv2d_transpose", [value, filters, output_shape]) as scope:
        return conv2d_backprop_input(output_shape, filters, value, [1, 1, 1, 1], padding,
                                     dilations=[1, rate, rate, 1], name=scope)


def conv2d_backprop_filter_v2(input, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                              explicit_paddings=None, data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """conv2d_backprop_filter with the filter's shape taken from a filter tensor."""
    from lens.ops.conv import conv2d_backprop_filter
    if explicit_paddings:
        raise ValueError("conv2d_backprop_filter_v2: lens takes SAME or VALID padding, not explicit_paddings")
    f = convert_to_tensor(filter, name="filter")
    return conv2d_backprop_filter(input, f.shape.as_list() if f.shape.is_fully_defined() else A.shape(f),
                                  out_backprop, strides, padding, data_format=data_format, dilations=dilations,
                                  name=name)


def conv2d_backprop_input_v2(input, filter, out_backprop, strides, padding, use_cudnn_on_gpu=True,  # noqa: A002
                             explicit_paddings=None, data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """conv2d_backprop_input with the input's shape taken from an input tensor."""
    from lens.ops.conv import conv2d_backprop_input
    if explicit_paddings:
        raise ValueError("conv2d_backprop_input_v2: lens takes SAME or VALID padding, not explicit_paddings")
    x = convert_to_tensor(input, name="input")
    return conv2d_backprop_input(x.shape.as_list() if x.shape.is_fully_defined() else A.shape(x), filter,
                                 out_backprop, strides, padding, data_format=data_format, dilations=dilations,
                                 name=name)


def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """Dropout whose keep mask comes from uniform_sampler(shape, dtype) >= rate (kept values scaled by 1/(1-rate))."""
    import numbers
    if isinstance(rate, numbers.Real) and not 0 <= rate < 1:
        raise ValueError("`rate` must be a scalar tensor or a float in the range [0, 1). Received: rate=%s" % rate)
    from lens.ops.logic import greater_equal
    with name_scope(name, "general_dropout", [x]):
        x = convert_to_tensor(x, name="x")
        if not x.dtype.base_dtype.is_floating:
            raise ValueError("x has to be a floating point tensor since it's going to be scaled. Received: "
                             "x_dtype=%s" % x.dtype.name)
        if isinstance(rate, numbers.Real) and rate == 0:
            return x
        dt = x.dtype.base_dtype
        r = convert_to_tensor(rate, dtype=dt, name="rate")
        scaled = M.multiply(x, M.truediv(convert_to_tensor(1.0, dtype=dt), M.subtract(1.0, r)))
        shape = A.shape(x) if noise_shape is None else noise_shape
        keep = M.cast(greater_equal(uniform_sampler(shape=shape, dtype=dt), r), dt)
        out = M.multiply(scaled, keep)
        out.set_shape(x.shape)
        return out


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """general_dropout with the keep mask drawn by stateless_uniform(seed): the same seed, the same mask."""
    from lens.ops.random_stateless import stateless_random_uniform as stateless_uniform
    if rng_alg not in (None, "auto_select", "philox", 1, 0, 3):
        raise ValueError("rng_alg must be one of TF's Algorithm values, got %r" % (rng_alg,))

    def sampler(shape, dtype):
        return stateless_uniform(shape, seed, dtype=dtype)
    with name_scope(name, "stateless_dropout", [x]):
        return general_dropout(x, rate, sampler, noise_shape=noise_shape)
