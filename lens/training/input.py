"""TF1's queue-based input pipelines: input producers, limit_epochs, match_filenames_once and the batchers."""
from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import GraphKeys, Tensor, control_dependencies, name_scope
from lens.framework.tensor_shape import as_shape
from lens.framework.sparse_tensor import SparseTensor, SparseTensorValue
from lens.ops import data_flow_ops, sparse_map_ops
from lens.ops.array import cast, expand_dims, fill, reshape, shape, size
from lens.ops.control_flow import Assert
from lens.ops.core import identity
from lens.ops.indexing import boolean_mask, gather
from lens.ops.logic import greater
from lens.ops.math import maximum
from lens.ops.random import random_shuffle
from lens.ops.sequence import range as _range
from lens.ops.variables import Variable
from lens.events import summary_ops
from lens.events.io_ops import matching_files
from lens.training.queue_runner import QueueRunner, add_queue_runner

__all__ = ["limit_epochs", "input_producer", "string_input_producer", "range_input_producer",
           "slice_input_producer", "match_filenames_once", "batch", "maybe_batch", "shuffle_batch",
           "maybe_shuffle_batch", "batch_join", "maybe_batch_join", "shuffle_batch_join",
           "maybe_shuffle_batch_join"]


def match_filenames_once(pattern, name=None):
    """A local variable holding the files matching pattern (a glob), computed when it is initialized."""
    with name_scope(name, "matching_filenames", [pattern]) as name:
        return Variable(matching_files(pattern), trainable=False, name=name, validate_shape=False,
                        collections=[GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """tensor, but OutOfRangeError once it has been evaluated num_epochs times (None: no limit)."""
    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError("num_epochs must be > 0 not %d." % num_epochs)
    with name_scope(name, "limit_epochs", [tensor]) as name:
        epochs = Variable(convert_to_tensor(0, dtype=_dt.int64), name="epochs", trainable=False,
                          collections=[GraphKeys.LOCAL_VARIABLES])
        counter = epochs.count_up_to(num_epochs)
        with control_dependencies([counter]):
            return identity(tensor, name=name)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None, capacity=32,
                   shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFOQueue fed (by a QueueRunner) with the rows of input_tensor, reshuffled each epoch if shuffle."""
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(as_shape(element_shape)) \
            if input_tensor.shape.ndims is not None else as_shape(element_shape)
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or `element_shape` must be "
                             "specified")
        if shuffle:
            input_tensor = random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = data_flow_ops.FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype],
                                    shapes=[element_shape], shared_name=shared_name, name=name)
        enq = q.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            summary_ops.scalar(summary_name, cast(q.size(), _dt.float32) * (1.0 / capacity))
        return q


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):
    """A queue of the strings (e.g. filenames) of a 1-D string tensor, for a reader to dequeue."""
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, Tensor) and not string_tensor:
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = convert_to_tensor(string_tensor, dtype=_dt.string)
        with control_dependencies([Assert(greater(size(string_tensor), 0), [not_null_err])]):
            string_tensor = identity(string_tensor)
        return input_producer(string_tensor, element_shape=[], num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                              capacity=capacity, shared_name=shared_name, name=name,
                              summary_name="fraction_of_%d_full" % capacity, cancel_op=cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None, cancel_op=None):
    """A queue of the integers 0 .. limit-1 (int32), for as many epochs as asked."""
    with name_scope(name, "input_producer", [limit]) as name:
        range_tensor = _range(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity, shared_name,
                              "fraction_of_%d_full" % capacity, name, cancel_op)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32, shared_name=None,
                         name=None):
    """One row (the same index) of each tensor in tensor_list per dequeue, through a range producer."""
    with name_scope(name, "input_producer", tensor_list):
        tensor_list = [convert_to_tensor(t) for t in tensor_list]
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                                     capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [gather(t, index) for t in tensor_list]


# ------------------------------------------------------------------ batching
def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_original_type(original, dequeued):
    if isinstance(original, dict):
        if len(original) == 1:
            dequeued = [dequeued]
        return {k: dequeued[i] for i, k in enumerate(sorted(original, key=str))}
    return dequeued


def _validate(tensor_list):
    if isinstance(tensor_list, Tensor):
        raise TypeError("Expected a list or dict of tensors to batch, got the single tensor %s: wrap it in a "
                        "list, e.g. tf.train.batch([%s], ...)" % (tensor_list.name, tensor_list.op.name))
    tensor_list = [t if isinstance(t, SparseTensor) else SparseTensor.from_value(t) if isinstance(t, SparseTensorValue)
                   else convert_to_tensor(t) for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _validate_keep_input(keep_input, enqueue_many):
    keep_input = convert_to_tensor(keep_input, dtype=_dt.bool)
    if keep_input.shape.ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and keep_input.shape.ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if keep_input.shape.ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _dtypes(tensor_list_list):
    types = [t.dtype.base_dtype for t in tensor_list_list[0]]
    for tl in tensor_list_list[1:]:
        other = [t.dtype.base_dtype for t in tl]
        if other != types:
            raise TypeError("Expected types to be consistent: %s vs. %s."
                            % (", ".join(x.name for x in types), ", ".join(x.name for x in other)))
    return types


def _shapes(tensor_list_list, shapes, enqueue_many):
    if shapes is not None:
        return [as_shape(s) for s in shapes]
    out = []
    for i in range(len(tensor_list_list[0])):
        merged = None
        for tl in tensor_list_list:
            s = tl[i].shape
            if s.ndims is None:
                raise ValueError("Cannot infer Tensor's rank: %s" % tl[i])
            s = s[1:] if enqueue_many else s
            merged = s if merged is None else merged.merge_with(s)
        out.append(merged)
    return out


def _enqueue_ops(queue, tensor_list_list, enqueue_many, keep_input):
    """One enqueue op per tensor list; keep_input (scalar or, with enqueue_many, vector) masks what goes in."""
    ops = []
    const_true = keep_input.op._type == "Const" and keep_input.shape.ndims == 0 and \
        bool(keep_input.op._attrs["value"])
    for tl in tensor_list_list:
        if const_true:
            ops.append(queue.enqueue_many(tl) if enqueue_many else queue.enqueue(tl))
            continue
        # A filtered element is enqueued as a batch of 0 or 1 elements (a vector mask for enqueue_many).
        if enqueue_many:
            mask = keep_input if keep_input.shape.ndims == 1 else fill(shape(tl[0])[0:1], keep_input)
            ops.append(queue.enqueue_many([boolean_mask(t, mask) for t in tl]))
        else:
            mask = reshape(keep_input, [1])
            ops.append(queue.enqueue_many([boolean_mask(expand_dims(t, 0), mask) for t in tl]))
    return ops


def _queue_batch(kind, tensor_list_list, original, batch_size, keep_input, threads, capacity, enqueue_many,
                 shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name, min_after_dequeue=None,
                 seed=None):
    keep_input = _validate_keep_input(keep_input, enqueue_many)
    tensor_list_list, sparse_info = _store_sparse(tensor_list_list, enqueue_many)
    types = _dtypes(tensor_list_list)
    shapes = _shapes(tensor_list_list, shapes, enqueue_many)
    if kind == "shuffle":
        queue = data_flow_ops.RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue, dtypes=types,
                                                 shapes=shapes, seed=seed, shared_name=shared_name)
    elif dynamic_pad:
        queue = data_flow_ops.PaddingFIFOQueue(capacity=capacity, dtypes=types, shapes=shapes,
                                               shared_name=shared_name)
    else:
        queue = data_flow_ops.FIFOQueue(capacity=capacity, dtypes=types, shapes=shapes, shared_name=shared_name)
    ops = _enqueue_ops(queue, tensor_list_list, enqueue_many, keep_input)
    add_queue_runner(QueueRunner(queue, ops * threads))
    if kind == "shuffle":
        full = cast(maximum(0, queue.size() - min_after_dequeue), _dt.float32) * (1.0 / (capacity - min_after_dequeue))
        summary_ops.scalar("fraction_over_%d_of_%d_full" % (min_after_dequeue, capacity - min_after_dequeue), full)
    else:
        summary_ops.scalar("fraction_of_%d_full" % capacity, cast(queue.size(), _dt.float32) * (1.0 / capacity))
    if allow_smaller_final_batch:
        dequeued = queue.dequeue_up_to(batch_size, name=name)
    else:
        dequeued = queue.dequeue_many(batch_size, name=name)
    return _as_original_type(original, _restore_sparse(dequeued, sparse_info))


def _store_sparse(tensor_list_list, enqueue_many):
    """SparseTensors replaced by int64 handles into one session map per position (queues carry dense tensors)."""
    positions = [i for i, t in enumerate(tensor_list_list[0]) if isinstance(t, SparseTensor)]
    if not positions:
        return tensor_list_list, []
    info = []
    out = [list(tl) for tl in tensor_list_list]
    for i in positions:
        if not all(isinstance(tl[i], SparseTensor) for tl in tensor_list_list):
            raise ValueError("Inconsistent SparseTensors list: component %d is sparse in some lists only" % i)
        first = tensor_list_list[0][i]
        shared_name = first.indices.graph.unique_name("SparseTensorsMap")
        rank = first.dense_shape.shape.as_list()[0] if first.dense_shape.shape.ndims == 1 else None
        add = (sparse_map_ops.add_many_sparse_to_tensors_map if enqueue_many
               else sparse_map_ops.add_sparse_to_tensors_map)
        for tl in out:
            tl[i] = add(tl[i], shared_name=shared_name)
        batched_rank = None if rank is None else rank + (0 if enqueue_many else 1)
        info.append((i, shared_name, first.dtype.base_dtype, batched_rank))
    return out, info


def _restore_sparse(dequeued, sparse_info):
    """The batched SparseTensors back in place of their dequeued handle vectors."""
    if not sparse_info:
        return dequeued
    single = not isinstance(dequeued, list)
    parts = [dequeued] if single else list(dequeued)
    for i, shared_name, dtype, rank in sparse_info:
        parts[i] = sparse_map_ops.take_many_sparse_from_tensors_map(_MapRef(shared_name, dtype), parts[i], rank=rank)
    return parts[0] if single else parts


class _MapRef:
    """The shared name and dtype of one sparse map (what take_many reads from its map op)."""

    def __init__(self, shared_name, dtype):
        self._attrs = {"shared_name": shared_name, "T": dtype}

    def get_attr(self, name):
        return self._attrs[name]


def _single(kind, tensors, batch_size, keep_input, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
            allow_smaller_final_batch, shared_name, name, default, **shuffle):
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, default, list(tensor_list) if not isinstance(tensor_list, Tensor) else None) as name:
        if kind == "shuffle" and shuffle["capacity_"] <= shuffle["min_after_dequeue"]:
            raise ValueError("capacity %d must be bigger than min_after_dequeue %d."
                             % (shuffle["capacity_"], shuffle["min_after_dequeue"]))
        shuffle.pop("capacity_", None)
        tensor_list = _validate(tensor_list)
        return _queue_batch(kind, [tensor_list], tensors, batch_size, keep_input, num_threads, capacity,
                            enqueue_many, shapes, dynamic_pad, allow_smaller_final_batch, shared_name, name, **shuffle)


def _join(kind, tensors_list, batch_size, keep_input, capacity, enqueue_many, shapes, dynamic_pad,
          allow_smaller_final_batch, shared_name, name, default, **shuffle):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        keys = set(tensors_list[0])
        if any(set(t) != keys for t in tensors_list[1:]):
            raise ValueError("All dictionaries in tensors_list must have the same keys")
    tll = [_as_tensor_list(t) for t in tensors_list]
    with name_scope(name, default, [t for tl in tll for t in tl]) as name:
        if kind == "shuffle" and capacity <= shuffle["min_after_dequeue"]:
            raise ValueError("capacity %d must be bigger than min_after_dequeue %d."
                             % (capacity, shuffle["min_after_dequeue"]))
        tll = [_validate(tl) for tl in tll]
        if any(len(tl) != len(tll[0]) for tl in tll):
            raise ValueError("Expected all tensor lists to have the same length: %s" % [len(tl) for tl in tll])
        return _queue_batch(kind, tll, tensors_list[0], batch_size, keep_input, 1, capacity, enqueue_many, shapes,
                            dynamic_pad, allow_smaller_final_batch, shared_name, name, **shuffle)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
          allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches of batch_size elements of tensors (a list or dict), filled by num_threads queue-runner threads."""
    return _single("fifo", tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes, dynamic_pad,
                   allow_smaller_final_batch, shared_name, name, "batch")


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
                dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """batch, enqueueing only the elements for which keep_input is True."""
    return _single("fifo", tensors, batch_size, keep_input, num_threads, capacity, enqueue_many, shapes,
                   dynamic_pad, allow_smaller_final_batch, shared_name, name, "batch")


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None, enqueue_many=False,
                  shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Random batches drawn from a RandomShuffleQueue holding at least min_after_dequeue elements."""
    return _single("shuffle", tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes, False,
                   allow_smaller_final_batch, shared_name, name, "shuffle_batch",
                   capacity_=capacity, min_after_dequeue=min_after_dequeue, seed=seed)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1, seed=None,
                        enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                        name=None):
    """shuffle_batch, enqueueing only the elements for which keep_input is True."""
    return _single("shuffle", tensors, batch_size, keep_input, num_threads, capacity, enqueue_many, shapes, False,
                   allow_smaller_final_batch, shared_name, name, "shuffle_batch",
                   capacity_=capacity, min_after_dequeue=min_after_dequeue, seed=seed)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None, dynamic_pad=False,
               allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches mixing elements from several tensor lists, one enqueue thread each."""
    return _join("fifo", tensors_list, batch_size, True, capacity, enqueue_many, shapes, dynamic_pad,
                 allow_smaller_final_batch, shared_name, name, "batch_join")


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False, shapes=None,
                     dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """batch_join, enqueueing only the elements for which keep_input is True."""
    return _join("fifo", tensors_list, batch_size, keep_input, capacity, enqueue_many, shapes, dynamic_pad,
                 allow_smaller_final_batch, shared_name, name, "batch_join")


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None, enqueue_many=False,
                       shapes=None, allow_smaller_final_batch=False, shared_name=None, name=None):
    """shuffle_batch over several tensor lists, one enqueue thread each."""
    return _join("shuffle", tensors_list, batch_size, True, capacity, enqueue_many, shapes, False,
                 allow_smaller_final_batch, shared_name, name, "shuffle_batch_join",
                 min_after_dequeue=min_after_dequeue, seed=seed)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input, seed=None,
                             enqueue_many=False, shapes=None, allow_smaller_final_batch=False, shared_name=None,
                             name=None):
    """shuffle_batch_join, enqueueing only the elements for which keep_input is True."""
    return _join("shuffle", tensors_list, batch_size, keep_input, capacity, enqueue_many, shapes, False,
                 allow_smaller_final_batch, shared_name, name, "shuffle_batch_join",
                 min_after_dequeue=min_after_dequeue, seed=seed)
