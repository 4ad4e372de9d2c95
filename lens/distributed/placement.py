"""Placing a graph on a cluster's devices: one CPU per task, unpinned ops on the session's task."""
from lens.distributed import ray_env
from lens.framework import dtypes, errors
from lens.framework.devices import DeviceSpec, Placer


def cluster_devices(cluster, job, index):
    """Full device names of every task, the session's own task first (where unpinned ops go)."""
    own = "%s/device:CPU:0" % ray_env.task_name(job, index)
    names = [own]
    for j in cluster.jobs:
        for i in cluster.task_indices(j):
            name = "%s/device:CPU:0" % ray_env.task_name(j, i)
            if name != own:
                names.append(name)
    return names


class ClusterPlacer(Placer):
    """TF1's placer over the cluster's devices instead of this process's."""

    def __init__(self, graph, config, cluster, job, index):
        super().__init__(graph, config)
        self.names = cluster_devices(cluster, job, index)
        self.specs = [DeviceSpec.from_string(n) for n in self.names]

    def _groups(self, ops):
        """The placer's colocation groups, plus each resource handle's consumers with its producer
        (a queue or accumulator lives in one task's process: its ops must run there)."""
        groups = super()._groups(ops)
        owner = {}
        for root, members in groups.items():
            for m in members:
                owner[m] = root
        parent = {}

        def find(x):
            while parent.get(x, x) is not x:
                x = parent[x]
            return x
        placed_before = {}      # a handle made by an op placed in an earlier run: follow its device
        for op in ops:
            for t in op._inputs:
                if t._dtype.base_dtype != dtypes.resource:
                    continue
                if t._op in owner:
                    a, b = find(owner[t._op]), find(owner[op])
                    if a is not b:
                        parent[b] = a
                elif t._op in self.assigned:
                    placed_before.setdefault(owner[op], []).append(t._op)
        if not parent and not placed_before:
            return groups
        merged = {}
        for root, members in groups.items():
            merged.setdefault(find(root), []).extend(members)
        for root, producers in placed_before.items():
            merged[find(root)][:0] = producers
        return merged

    def _place_group(self, root, members):
        try:
            return super()._place_group(root, members)
        except errors.InvalidArgumentError:
            # As TF's placer on a reference or resource edge: the variable's (queue's) device wins over
            # a consumer's request (a device function put IsVariableInitialized or a read on the worker).
            owners = [m for m in members if m._device and any(
                t._dtype.is_ref_dtype or t._dtype.base_dtype == dtypes.resource for t in m._outputs)]
            if not owners or len(owners) == len(members):
                raise
            return super()._place_group(owners[0], owners)

    def _cannot_assign(self, op):
        spec = DeviceSpec.from_string(op._device)
        known = sorted({n.split("/")[1][4:] for n in self.names})
        hint = ""
        if spec.job is not None and spec.job not in known:
            hint = " (the cluster has no job %r; its jobs are %s: add it to the ClusterSpec or fix the " \
                   "device)" % (spec.job, known)
        return errors.InvalidArgumentError(
            op.node_def, op, "Cannot assign a device for operation '%s': Operation was explicitly "
            "assigned to %s but available devices are [ %s ]. Make sure the device specification "
            "refers to a valid device.%s" % (op._name, op._device, ", ".join(self.names), hint))
