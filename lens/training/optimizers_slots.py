"""Slot variables named as TF1's slot_creator does: `<var op name>/<slot scope>` (uniquified)."""
from lens.framework import dtypes as _dt
from lens.framework.graph import get_default_graph, name_scope
from lens.framework.tensor_shape import as_shape


def _primary_name(primary):
    # A primary may carry the prefix TF1 gave its slots (canned estimators' partitioned names).
    return getattr(primary, "_slot_prefix", None) or primary.op.name


def create_slot_with_initializer(primary, initializer, shape, dtype, name):
    """A non-trainable variable `<primary>/<name>` (or `..._N` when taken) set by initializer."""
    from lens.ops.variable_scope import _get_default_variable_store, variable_scope
    shape = as_shape(shape)
    g = primary.graph if hasattr(primary, "graph") else get_default_graph()
    # Slots live outside control flow and control dependencies, next to their primary (TF1's init_scope).
    with g.as_default(), g.control_dependencies(None), \
            variable_scope(None, default_name=_primary_name(primary) + "/" + name) as vs:
        with name_scope(None), g.colocate_with(primary.op):
            return _get_default_variable_store().get_variable(
                vs.name, shape=shape, dtype=_dt.as_dtype(dtype).base_dtype, initializer=initializer,
                reuse=None, trainable=False, collections=None, validate_shape=shape.is_fully_defined())


def create_zeros_slot(primary, name, dtype=None):
    """A slot of primary's shape and dtype holding zeros."""
    from lens.ops import init_ops
    dtype = _dt.as_dtype(dtype or primary.dtype).base_dtype
    shape = primary.get_shape()
    if not shape.is_fully_defined():
        raise ValueError("Cannot create a slot for %s: its shape %s is not fully defined (lens needs a "
                         "static shape for slot variables)" % (_primary_name(primary), shape))
    return create_slot_with_initializer(primary, init_ops.zeros_initializer(dtype=dtype), shape, dtype, name)


def create_slot(primary, val, name):
    """A slot initialized from the tensor val (e.g. EMA shadows start at the variable's value)."""
    from lens.ops.variable_scope import _get_default_variable_store, variable_scope
    g = primary.graph
    with g.as_default(), g.control_dependencies(None), \
            variable_scope(None, default_name=_primary_name(primary) + "/" + name) as vs:
        with name_scope(None), g.colocate_with(primary.op):
            return _get_default_variable_store().get_variable(
                vs.name, shape=None, dtype=val.dtype.base_dtype, initializer=val, reuse=None, trainable=False,
                collections=None, validate_shape=val.get_shape().is_fully_defined())
