"""The global step variable: create, get, get_or_create."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.graph import GraphKeys, get_default_graph


def get_global_step(graph=None):
    """The global step variable of the graph, or None."""
    g = graph or get_default_graph()
    steps = g.get_collection(GraphKeys.GLOBAL_STEP)
    if len(steps) > 1:
        raise TypeError("There must be at most one global step; found %d" % len(steps))
    if steps:
        return steps[0]
    try:
        t = g.get_tensor_by_name("global_step:0")
    except (KeyError, ValueError):
        return None
    return t


def create_global_step(graph=None):
    """Create `global_step` (int64, not trainable, in GLOBAL_STEP); ValueError if it exists."""
    from lens.ops.variable_scope import get_variable
    from lens.ops import init_ops
    g = graph or get_default_graph()
    if get_global_step(g) is not None:
        raise ValueError('"global_step" already exists.')
    with g.as_default(), g.name_scope(None):
        return get_variable("global_step", shape=[], dtype=_dt.int64,
                            initializer=init_ops.zeros_initializer(), trainable=False,
                            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    """The global step, created if missing."""
    g = graph or get_default_graph()
    step = get_global_step(g)
    return step if step is not None else create_global_step(g)


def global_step(sess, global_step_tensor):
    """The global step's value as a Python int."""
    return int(np.asarray(sess.run(global_step_tensor)))
