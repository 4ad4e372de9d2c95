"""TF's python/ops/resources: the graph's resource list and the op that initializes them."""
from lens.framework import dtypes as _dt
from lens.framework.convert import constant
from lens.framework.graph import GraphKeys, add_to_collection, get_collection, name_scope
from lens.ops.array import stack
from lens.ops.indexing import boolean_mask
from lens.ops.core import group, no_op
from lens.ops.logic import logical_not

__all__ = ["shared_resources", "local_resources", "register_resource", "initialize_resources",
           "report_uninitialized_resources"]


class _Resource:
    """A resource handle with the op creating it and a bool tensor telling whether it exists."""

    def __init__(self, handle, create, is_initialized):
        self.handle, self.create, self.is_initialized = handle, create, is_initialized

    @property
    def op(self):
        return self.handle.op


def register_resource(handle, create_op, is_initialized_op, is_shared=True):
    """Adds a resource to the graph's shared (or local) resource list."""
    key = GraphKeys.RESOURCES if is_shared else GraphKeys.LOCAL_RESOURCES
    add_to_collection(key, _Resource(handle, create_op, is_initialized_op))


def shared_resources():
    """The resources shared between sessions (GraphKeys.RESOURCES)."""
    return get_collection(GraphKeys.RESOURCES)


def local_resources():
    """The resources local to a session (GraphKeys.LOCAL_RESOURCES)."""
    return get_collection(GraphKeys.LOCAL_RESOURCES)


def initialize_resources(resource_list, name="init"):
    """One op creating every resource of the list (a no_op for an empty list)."""
    if resource_list:
        return group(*[r.create for r in resource_list], name=name)
    return no_op(name=name)


def report_uninitialized_resources(resource_list=None, name=None):
    """A string vector naming the resources (default: shared and local) not created yet."""
    if resource_list is None:
        resource_list = shared_resources() + local_resources()
    with name_scope(name or "report_uninitialized_resources"):
        if not resource_list:
            return constant([], dtype=_dt.string)
        names = constant([r.handle.op.name for r in resource_list])
        missing = logical_not(stack([r.is_initialized for r in resource_list]))
        return boolean_mask(names, missing)
