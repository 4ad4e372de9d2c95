"""tf.saved_model.main_op: the op a SavedModel runs after restoring (initializes the rest)."""
from lens.framework.graph import control_dependencies, get_default_graph
from lens.ops.core import group
from lens.ops.lookup_ops import tables_initializer
from lens.ops.variables import global_variables_initializer, local_variables_initializer

__all__ = ["main_op", "main_op_with_restore"]


def main_op():
    """Group of the global and local variable initializers and the table initializers."""
    return group(global_variables_initializer(), local_variables_initializer(), tables_initializer())


def main_op_with_restore(restore_op_name):
    """Local variable and table initializers that run after the restore op named restore_op_name."""
    restore = get_default_graph().as_graph_element(restore_op_name)
    with control_dependencies([restore]):
        return group(local_variables_initializer(), tables_initializer())
