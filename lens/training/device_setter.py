"""tf.train.replica_device_setter: variables round-robin (or load-balanced) over ps tasks, the rest on the worker."""
import logging

from lens.distributed.cluster import ClusterSpec
from lens.framework.devices import DeviceSpec

_log = logging.getLogger("lens")

STANDARD_PS_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "MutableHashTable", "MutableHashTableV2",
                   "MutableHashTableOfTensors", "MutableHashTableOfTensorsV2", "MutableDenseHashTable",
                   "MutableDenseHashTableV2", "VarHandleOp", "BoostedTreesEnsembleResourceHandleOp",
                   "BoostedTreesQuantileStreamResourceHandleOp")


class _RoundRobinStrategy:
    """ps task 0, 1, ..., n-1, 0, ... for successive ps ops."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class GreedyLoadBalancingStrategy:
    """Each ps op goes to the ps task with the least load so far (load_fn(op) adds to it)."""

    def __init__(self, num_tasks, load_fn):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = [0] * num_tasks

    def __call__(self, op):
        task = min(range(self._num_tasks), key=lambda i: (self._ps_loads[i], i))
        self._ps_loads[task] += self._load_fn(op)
        return task


def byte_size_load_fn(op):
    """The bytes of the variable op creates (its dtype size times its elements)."""
    elem_size = 4
    dtype = op._attrs.get("dtype")
    if dtype is not None:
        elem_size = dtype.base_dtype.size
    shape = op._attrs.get("shape")
    if shape is None or not shape.is_fully_defined():
        shape = op.outputs[0].shape if op.outputs else shape
    if shape is not None and shape.is_fully_defined():
        return shape.num_elements() * elem_size
    return elem_size


class _ReplicaDeviceChooser:
    """The device function replica_device_setter returns."""

    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks, self._ps_device, self._worker_device = ps_tasks, ps_device, worker_device
        self._merge_devices, self._ps_ops, self._ps_strategy = merge_devices, ps_ops, ps_strategy

    def device_function(self, op):
        """The device op should get: a ps task for ps ops, the worker otherwise (merged with op's own)."""
        if not self._merge_devices and op.device:
            return op.device
        current = DeviceSpec.from_string(op.device or "")
        if self._ps_tasks and self._ps_device and op.type in self._ps_ops:
            ps = DeviceSpec.from_string(self._ps_device)
            if ps.job and (not current.job or current.job == ps.job):
                ps = ps.replace(task=self._ps_strategy(op))
            return ps.make_merged_spec(current).to_string()
        worker = DeviceSpec.from_string(self._worker_device or "")
        return worker.make_merged_spec(current).to_string()


def replica_device_setter(ps_tasks=0, ps_device="/job:ps", worker_device="/job:worker", merge_devices=True,
                          cluster=None, ps_ops=None, ps_strategy=None):
    """A device function for `with tf.device(...)`: ps ops on ps tasks, everything else on worker_device."""
    if cluster is not None:
        spec = (cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)).as_dict()
        ps_job = DeviceSpec.from_string(ps_device).job or "ps"
        if not spec.get(ps_job):
            return None
        ps_tasks = len(spec[ps_job])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        _log.warning("DEPRECATION NOTE: replica_device_setter(merge_devices=False) is deprecated; "
                     "explicit op devices are then kept as they are, unmerged")
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable (e.g. GreedyLoadBalancingStrategy(n, byte_size_load_fn))")
    return _ReplicaDeviceChooser(ps_tasks, ps_device, worker_device, merge_devices, ps_ops,
                                 ps_strategy).device_function
