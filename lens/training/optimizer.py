"""Optimizer base class with TF1's compute_gradients / apply_gradients / minimize and naming."""
from lens.framework.graph import GraphKeys, Tensor, get_default_graph, name_scope
from lens.framework.indexed_slices import IndexedSlices
from lens.framework.eager import executing_eagerly
from lens.ops.gradients import gradients


def _trainable_default():
    g = get_default_graph()
    return (g.get_collection(GraphKeys.TRAINABLE_VARIABLES) +
            g.get_collection(GraphKeys.TRAINABLE_RESOURCE_VARIABLES))


class Optimizer:
    """Base class: subclasses implement _apply_dense (and optionally _create_slots, _prepare)."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots = {}             # slot name -> {variable: slot variable}
        self._non_slot_dict = {}     # (name, graph) -> variable (e.g. Adam's beta1_power)

    def get_name(self):
        """The optimizer's name (its name scope)."""
        return self._name

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None, grad_loss=None):
        """compute_gradients then apply_gradients; returns the training op."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients, aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError("No gradients provided for any variable, check your graph for ops that do "
                             "not support gradients, between variables %s and loss %s."
                             % ([str(v) for _, v in grads_and_vars], loss))
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        """A list of (gradient, variable) pairs; gradient is None for unconnected variables."""
        if executing_eagerly():
            return _eager_gradients(loss, var_list, grad_loss)
        if callable(loss):
            raise RuntimeError("lens runs graphs: pass a loss Tensor, not a callable.")
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                             "Optimizer.GATE_GRAPH. Not %s" % gate_gradients)
        if not isinstance(loss, Tensor) or not (loss.dtype.is_floating or loss.dtype.is_complex):
            raise ValueError("Invalid type %r for %s, expected a floating-point Tensor."
                             % (getattr(loss, "dtype", type(loss)), getattr(loss, "name", loss)))
        if var_list is None:
            var_list = _trainable_default()
        else:
            var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        refs = [v._ref() if hasattr(v, "_ref") else v for v in var_list]
        grads = gradients(loss, refs, grad_ys=grad_loss, gate_gradients=(gate_gradients == Optimizer.GATE_OP),
                          aggregation_method=aggregation_method)
        if gate_gradients == Optimizer.GATE_GRAPH:
            from lens.ops.core import tuple_
            grads = tuple_(grads)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Ops applying the gradients; increments global_step when given."""
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        for g, v in grads_and_vars:
            if g is not None and not isinstance(g, (Tensor, IndexedSlices)):
                raise TypeError("Gradient must be convertible to a Tensor or IndexedSlices, or None: %r"
                                " for variable %s" % (g, v.name))
        var_list = [v for g, v in grads_and_vars if g is not None]
        if not var_list:
            raise ValueError("No gradients provided for any variable: %s."
                             % ([str(v) for _, v in grads_and_vars],))
        from lens.ops import core
        from lens.ops.variables import assign_add
        g = get_default_graph()
        self._create_slots(var_list)
        update_ops = []
        with name_scope(name, self._name) as scope:
            self._prepare()
            for grad, var in grads_and_vars:
                if grad is None:
                    continue
                with name_scope("update_" + var.op.name), g.colocate_with(var.op):
                    if isinstance(grad, IndexedSlices):
                        update_ops.append(self._apply_sparse_duplicate_indices(grad, var))
                    else:
                        update_ops.append(self._apply_dense(grad, var))
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with g.control_dependencies([self._finish(update_ops, "update")]):
                    with g.colocate_with(global_step.op):
                        apply_updates = assign_add(global_step, 1, name=scope)
        if executing_eagerly():     # the updates ran already; eager code keeps no collections
            return apply_updates
        train_ops = g.get_collection_ref(GraphKeys.TRAIN_OP)
        if apply_updates not in train_ops:
            train_ops.append(apply_updates)
        _ = core
        return apply_updates

    def _finish(self, update_ops, name_scope_):
        from lens.ops.core import group
        return group(*update_ops, name=name_scope_)

    def _create_slots(self, var_list):
        pass

    def _prepare(self):
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _apply_sparse_duplicate_indices(self, grad, var):
        """Sum the rows of repeated indices, then _apply_sparse (TF1's default)."""
        values, indices = deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(values, indices, grad.dense_shape), var)

    def _apply_sparse(self, grad, var):
        raise NotImplementedError()

    def get_slot_names(self):
        """Names of the slots this optimizer creates (e.g. 'momentum')."""
        return sorted(self._slots)

    def get_slot(self, var, name):
        """The slot variable `name` for var, or None."""
        return self._slots.get(name, {}).get(var)

    def variables(self):
        """Variables the optimizer created in the default graph (slots and non-slot), sorted by name."""
        g = get_default_graph()
        found = [v for v in self._non_slot_dict.values() if v.graph is g]
        found += [v for slot in self._slots.values() for v in slot.values() if v.graph is g]
        return sorted(found, key=lambda v: v.name)

    # -- slot helpers (TF1's names: `<var>/<op_name>`, uniquified as `<var>/<op_name>_1`)
    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _zeros_slot(self, var, slot_name, op_name):
        """The slot slot_name of var, created as zeros named `<var>/<op_name>` on first use."""
        from lens.training.optimizers_slots import create_zeros_slot
        named = self._slot_dict(slot_name)
        if var not in named:
            named[var] = create_zeros_slot(var, op_name)
        return named[var]

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name, op_name):
        """The slot slot_name of var, created with initializer on first use."""
        from lens.training.optimizers_slots import create_slot_with_initializer
        named = self._slot_dict(slot_name)
        if var not in named:
            named[var] = create_slot_with_initializer(var, initializer, shape, dtype, op_name)
        return named[var]

    def _get_or_make_slot(self, var, val, slot_name, op_name):
        """The slot slot_name of var, initialized from the tensor val on first use."""
        from lens.training.optimizers_slots import create_slot
        named = self._slot_dict(slot_name)
        if var not in named:
            named[var] = create_slot(var, val, op_name)
        return named[var]

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        """A per-graph variable not tied to one slot (Adam's beta1_power), created once."""
        from lens.ops.variables import Variable
        g = colocate_with.graph
        key = (name, g)
        v = self._non_slot_dict.get(key)
        if v is None:
            with g.as_default(), g.control_dependencies(None), g.colocate_with(colocate_with.op):
                v = Variable(initial_value, name=name, trainable=False)
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        """The non-slot variable `name` of graph (default graph when None), or None."""
        return self._non_slot_dict.get((name, graph or get_default_graph()))

    def _non_slot_variables(self):
        return list(self._non_slot_dict.values())

    def _call_if_callable(self, param):
        return param() if callable(param) else param


def _eager_gradients(loss, var_list, grad_loss):
    """compute_gradients while executing eagerly: loss is a function, differentiated on a tape."""
    from lens.ops.backprop import GradientTape
    if not callable(loss):
        raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a function when eager "
                           "execution is enabled.")
    with GradientTape() as tape:
        if var_list is not None:
            tape.watch(list(var_list))
        value = loss()
    var_list = list(var_list) if var_list is not None else list(tape.watched_variables())
    if not var_list:
        raise ValueError("No variables to optimize.")
    grads = tape.gradient(value, var_list, output_gradients=grad_loss)
    return list(zip(grads, var_list))


def deduplicate_indexed_slices(values, indices):
    """(summed values, unique indices): the rows of repeated indices added up."""
    from lens.ops.array import shape
    from lens.ops.indexing import unsorted_segment_sum
    from lens.ops.scan_ops import unique
    unique_indices, positions = unique(indices)
    return unsorted_segment_sum(values, positions, shape(unique_indices)[0]), unique_indices


def cast_like(t, var):
    """t cast to var's base dtype (a no-op when equal)."""
    from lens.ops.array import cast
    return cast(t, var.dtype.base_dtype)
