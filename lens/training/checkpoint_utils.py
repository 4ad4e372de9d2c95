"""tf.train.load_checkpoint / load_variable / list_variables / init_from_checkpoint and warm_start."""
import os
import re
import time

from lens.framework import errors
from lens.framework.graph import GraphKeys, get_default_graph
from lens.training.checkpoint_reader import CheckpointReader
from lens.training.saver_format import latest_checkpoint

__all__ = ["load_checkpoint", "load_variable", "list_variables", "init_from_checkpoint", "warm_start",
           "checkpoints_iterator"]


def _prefix(ckpt_dir_or_file):
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        prefix = latest_checkpoint(ckpt_dir_or_file)
        if prefix is None:
            raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory %s"
                             % ckpt_dir_or_file)
        return prefix
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader for a checkpoint prefix, or for the latest checkpoint of a directory."""
    return CheckpointReader(_prefix(ckpt_dir_or_file))


def load_variable(ckpt_dir_or_file, name):
    """The value of one tensor of a checkpoint (`name:0` accepted)."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """[(name, shape)] of the tensors in a checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return sorted(shapes.items())


# ------------------------------------------------------------------ init_from_checkpoint
def _variables_by_name(scope=None):
    """{op name: Variable} for the global variables (and those in the variable scope store)."""
    from lens.ops.variables import Variable
    out = {}
    for v in get_default_graph().get_collection(GraphKeys.GLOBAL_VARIABLES, scope):
        if isinstance(v, Variable):
            out[v.op.name] = v
    return out


def _as_variables(current):
    """A Variable, a variable's name, or a list of Variables (a partitioned variable) -> list of Variables."""
    from lens.ops.variables import Variable
    if isinstance(current, Variable):
        return [current]
    if isinstance(current, (list, tuple)) and all(isinstance(v, Variable) for v in current):
        return list(current)
    if isinstance(current, str):
        found = _variables_by_name().get(current)
        if found is None:
            raise ValueError("Tensor %s is not found in the graph: no variable named %r" % (current, current))
        return [found]
    raise TypeError("init_from_checkpoint maps names to Variables or variable names, got %r" % (current,))


def _override_initializer(var, reader, name, ckpt):
    """Make var's initializer load tensor `name` of the checkpoint (as TF1: the initializer is replaced)."""
    from lens.framework.convert import constant
    from lens.ops.variables import assign
    value = reader.get_tensor(name)
    if list(var.shape.as_list() if var.shape.ndims is not None else value.shape) != list(value.shape):
        raise ValueError("Shape of variable %s (%s) doesn't match with shape of tensor %s (%s) from checkpoint "
                         "reader." % (var.op.name, var.shape, name, list(value.shape)))
    if reader.get_variable_to_dtype_map()[name] != var.dtype.base_dtype:
        raise ValueError("Variable %s has dtype %s but tensor %s in checkpoint %s has dtype %s"
                         % (var.op.name, var.dtype.base_dtype.name, name, ckpt,
                            reader.get_variable_to_dtype_map()[name].name))
    g = var.graph
    with g.as_default(), g.control_dependencies(None):
        init_value = constant(value, dtype=var.dtype.base_dtype, name="checkpoint_initializer")
        new_init = assign(var._ref(), init_value, name="checkpoint_initializer_assign").op
    var._initializer_op = new_init
    var._initial_value = init_value


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Replace variables' initializers so they load values from a checkpoint (TF1's assignment_map rules).

    assignment_map: {'checkpoint/scope/': 'graph/scope/'} (every variable under the scope),
    {'checkpoint/name': 'graph/name' or Variable}, and '/' meaning the root scope.
    """
    ckpt = _prefix(ckpt_dir_or_file)
    reader = load_checkpoint(ckpt)
    shapes = reader.get_variable_to_shape_map()
    store = _variables_by_name()
    items = assignment_map.items() if isinstance(assignment_map, dict) else assignment_map
    for tensor_name_in_ckpt, current in items:
        if isinstance(current, str) and (current.endswith("/") or current == "/" or
                                         tensor_name_in_ckpt.endswith("/") or tensor_name_in_ckpt == "/"):
            scope_variables = current if current != "/" else ""
            ckpt_scope = tensor_name_in_ckpt if tensor_name_in_ckpt != "/" else ""
            if scope_variables and not scope_variables.endswith("/"):
                scope_variables += "/"
            if ckpt_scope and not ckpt_scope.endswith("/"):
                ckpt_scope += "/"
            matched = False
            for var_name, var in sorted(store.items()):
                if not var_name.startswith(scope_variables):
                    continue
                full = ckpt_scope + var_name[len(scope_variables):]
                if full not in shapes:
                    continue      # as TF1: variables the checkpoint lacks keep their initializer
                _override_initializer(var, reader, full, ckpt)
                matched = True
            if not matched and not any(n.startswith(ckpt_scope) for n in shapes):
                raise ValueError("Tensor %s is not found in %s checkpoint %s" % (tensor_name_in_ckpt, ckpt,
                                                                                  sorted(shapes)))
            continue
        if tensor_name_in_ckpt not in shapes:
            raise ValueError("Tensor %s is not found in %s checkpoint %s" % (tensor_name_in_ckpt, ckpt,
                                                                              sorted(shapes)))
        for var in _as_variables(current):
            _override_initializer(var, reader, tensor_name_in_ckpt, ckpt)


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None):
    """Initialize the matching trainable (or listed) variables from a checkpoint (tf.train.warm_start)."""
    if var_name_to_vocab_info:
        raise errors.UnimplementedError(None, None, "warm_start: var_name_to_vocab_info (vocabulary remapping) "
                                        "is not supported by lens")
    var_name_to_prev_var_name = var_name_to_prev_var_name or {}
    g = get_default_graph()
    if isinstance(vars_to_warm_start, str) or vars_to_warm_start is None:
        pattern = vars_to_warm_start or ".*"
        pool = g.get_collection(GraphKeys.TRAINABLE_VARIABLES) if pattern == ".*" else \
            g.get_collection(GraphKeys.GLOBAL_VARIABLES)
        chosen = [v for v in pool if re.match(pattern, v.op.name)]
    else:
        chosen = []
        for item in vars_to_warm_start:
            if isinstance(item, str):
                chosen += [v for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES) if re.match(item, v.op.name)]
            else:
                chosen.append(item)
    assignment = {}
    for var in chosen:
        assignment[var_name_to_prev_var_name.get(var.op.name, var.op.name)] = var
    init_from_checkpoint(ckpt_to_initialize_from, assignment)


def _wait_for_new_checkpoint(checkpoint_dir, last_checkpoint, seconds_to_sleep, timeout):
    """The newest checkpoint prefix once it differs from last_checkpoint, or None after timeout seconds."""
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = latest_checkpoint(checkpoint_dir)
        if path is not None and path != last_checkpoint:
            return path
        if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
            return None
        time.sleep(seconds_to_sleep)


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yield each new checkpoint prefix of checkpoint_dir as it appears (tf.train.checkpoints_iterator).

    Waits at most timeout seconds for the next one; then stops, unless timeout_fn() returns False.
    """
    last = None
    while True:
        path = _wait_for_new_checkpoint(checkpoint_dir, last, min(1.0, timeout) if timeout else 1.0, timeout)
        if path is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        start = time.time()
        last = path
        yield path
        left = start + min_interval_secs - time.time()
        if left > 0:
            time.sleep(left)
