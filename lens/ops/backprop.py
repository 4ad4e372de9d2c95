"""tf.GradientTape and tf.contrib.eager's gradient helpers: record eager ops, replay their gradients.

A tape records each eager op that consumes a tensor it watches (the framework calls it after every
eager op while it records). `gradient` walks the records backwards (recording order is a valid
reverse topological order: an op's inputs exist before it runs) and calls each op's registered
gradient function; those are written with lens ops, so they run eagerly, and a tape still
recording outside records them too (higher-order gradients).
"""
import contextlib
import threading

from lens.framework import eager
from lens.framework.graph import Tensor
from lens.framework.indexed_slices import IndexedSlices
from lens.ops import eager_variables as _ev
from lens.ops.gradients import _aggregate, _backpropagatable, _grad_fn_for, _SLICES_PASS_THROUGH
from lens.ops.variables import Variable

__all__ = ["GradientTape", "implicit_gradients", "implicit_value_and_gradients", "gradients_function",
           "value_and_gradients_function", "num_gpus"]


def _flatten(x):
    if isinstance(x, (list, tuple)):
        return [y for item in x for y in _flatten(item)]
    if isinstance(x, dict):
        return [y for k in sorted(x) for y in _flatten(x[k])]
    return [x]


def _pack_like(structure, flat):
    it = iter(flat)

    def pack(s):
        if isinstance(s, (list, tuple)):
            return type(s)(pack(i) for i in s) if not hasattr(s, "_fields") else type(s)(*(pack(i) for i in s))
        if isinstance(s, dict):
            return {k: pack(s[k]) for k in sorted(s)}
        return next(it)
    return pack(structure)


def _handle(x):
    """The eager tensor a gradient is taken with respect to (a variable's handle)."""
    if isinstance(x, Variable):
        return x._variable
    if isinstance(x, eager.EagerTensor):
        return x
    raise ValueError("Passed in object of type %s, not tf.Tensor or tf.Variable" % type(x).__name__)


class GradientTape:
    """Records eager operations so their gradients can be computed (TF's tf.GradientTape)."""

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed = watch_accessed_variables
        self._watched = {}        # id -> tensor (kept alive so ids stay unique)
        self._variables = {}      # id -> watched variable, in order
        self._entries = []        # recorded ops, in execution order
        self._recording = False
        self._used = False
        self._thread = threading.get_ident()    # a tape records its own thread's ops, as TF's

    # ---------------------------------------------------------------- recording
    def __enter__(self):
        if not eager.executing_eagerly():
            raise RuntimeError("tf.GradientTape records eager operations: call tf.enable_eager_execution() "
                               "at program start (in graph mode use tf.gradients).")
        self._start()
        return self

    def __exit__(self, *exc):
        self._stop()
        return False

    def _start(self):
        if self._recording:
            raise ValueError("Tape is already recording.")
        self._recording = True
        eager.add_recorder(self._record)
        if self._watch_accessed:
            _ev.add_read_hook(self._on_read)

    def _stop(self):
        self._recording = False
        eager.remove_recorder(self._record)
        _ev.remove_read_hook(self._on_read)

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops run inside are not recorded."""
        if not self._recording:
            raise ValueError("Tape must be recording.")
        self._stop()
        try:
            yield
        finally:
            self._start()

    def reset(self):
        """Forget everything recorded so far (the tape keeps recording)."""
        self._watched.clear()
        self._variables.clear()
        self._entries = []

    def watch(self, tensor):
        """Make the tape trace operations on tensor (tensors, variables, or nests of them)."""
        for t in _flatten(tensor):
            if isinstance(t, Variable):
                self._variables.setdefault(id(t), t)
            h = _handle(t)
            self._watched[id(h)] = h

    def watched_variables(self):
        """The variables this tape watched, in the order first watched."""
        return tuple(self._variables.values())

    def _on_read(self, variable):
        if variable.trainable and threading.get_ident() == self._thread:
            self.watch(variable)

    def _record(self, op):
        watched = self._watched
        if threading.get_ident() != self._thread:
            return
        if any(id(t) in watched for t in op._inputs):
            self._entries.append(op)
            for t in op._outputs:
                watched[id(t)] = t

    # ---------------------------------------------------------------- gradients
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients="none"):
        """d(sum target)/d(source) for each source (same structure); None where unconnected."""
        if self._used and not self._persistent:
            raise RuntimeError("GradientTape.gradient can only be called once on non-persistent tapes.")
        mode = getattr(unconnected_gradients, "value", unconnected_gradients)
        if mode not in ("none", "zero"):
            raise ValueError("Unknown value for unconnected_gradients: %r" % (unconnected_gradients,))
        targets = [_as_eager(t) for t in _flatten(target)]
        flat_sources = _flatten(sources)
        handles = [_handle(s) for s in flat_sources]
        out_grads = [None] * len(targets) if output_gradients is None else _flatten(output_gradients)
        if len(out_grads) != len(targets):
            raise ValueError("Passed %d output_gradients for %d targets" % (len(out_grads), len(targets)))
        recording = self._recording
        if recording:
            self._stop()
        try:
            grads = _backprop(self._entries, targets, out_grads)
            from lens.ops import array as A
            results = []
            for h in handles:
                # A source the tape never watched gets no gradient (as TF's), even if used.
                contribs = grads.get(id(h)) if id(h) in self._watched else None
                r = _aggregate(contribs) if contribs else None
                if r is None and mode == "zero":
                    r = A.zeros_like(_eager_zeros_source(h))
                results.append(r)
        finally:
            if recording:
                self._start()
        if not self._persistent:
            self._used = True
            self._entries = []
        return _pack_like(sources, results) if isinstance(sources, (list, tuple, dict)) else results[0]


def _eager_zeros_source(h):
    from lens.ops.core import identity
    return identity(h) if h._var is not None else h


def _as_eager(t):
    if isinstance(t, Variable):
        return t._read()
    if not isinstance(t, Tensor):
        from lens.framework.convert import convert_to_tensor
        return convert_to_tensor(t)
    return t


def _backprop(entries, targets, out_grads):
    """tensor id -> gradient contributions, walking the recorded ops backwards from targets."""
    from lens.ops import array as A
    from lens.framework.convert import convert_to_tensor
    grads = {}
    for t, g in zip(targets, out_grads):
        g = A.ones_like(t) if g is None else convert_to_tensor(g, dtype=t.dtype.base_dtype)
        grads.setdefault(id(t), []).append(g)
    for op in reversed(entries):
        outs = op._outputs
        if not any(id(o) in grads for o in outs):
            continue
        og = []
        for o in outs:
            contribs = grads.get(id(o))
            g = _aggregate(contribs) if contribs else None
            if contribs and len(contribs) > 1:
                grads[id(o)] = [g]
            og.append(g)
        has_entry, grad_fn = _grad_fn_for(op)
        if not has_entry:
            raise LookupError("No gradient defined for operation '%s' (op type: %s). Register one with "
                              "tf.RegisterGradient(%r) or mark it tf.NotDifferentiable."
                              % (op.name, op.type, op.type))
        if grad_fn is None or not op._inputs:
            continue
        if op._type not in _SLICES_PASS_THROUGH:
            og = [convert_to_tensor(g) if isinstance(g, IndexedSlices) else g for g in og]
        og = [A.zeros_like(o) if g is None and _backpropagatable(o) else g for o, g in zip(outs, og)]
        result = grad_fn(op, *og)
        result = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(result) != len(op._inputs):
            raise ValueError("Num gradients %d generated for op %s do not match num inputs %d"
                             % (len(result), op.name, len(op._inputs)))
        for t, g in zip(op._inputs, result):
            if g is None or not _backpropagatable(t):
                continue
            if isinstance(g, Tensor) and g.dtype.base_dtype is not t.dtype.base_dtype:
                g = A.cast(g, t.dtype.base_dtype)
            grads.setdefault(id(t), []).append(g)
    return grads


# ------------------------------------------------------------------ tf.contrib.eager's helpers
def implicit_value_and_gradients(f):
    """A function returning (f's value, [(gradient, variable)]) for the trainable variables f reads."""
    def grad_fn(*args, **kwargs):
        with GradientTape() as tape:
            value = f(*args, **kwargs)
        variables = tape.watched_variables()
        if not variables:
            raise ValueError("No trainable variables were accessed while the function was being computed.")
        grads = tape.gradient(value, list(variables))
        return value, list(zip(grads, variables))
    return grad_fn


def implicit_gradients(f):
    """A function returning [(gradient, variable)] for the trainable variables f reads."""
    vg = implicit_value_and_gradients(f)
    return lambda *args, **kwargs: vg(*args, **kwargs)[1]


def value_and_gradients_function(f, params=None):
    """A function returning (f's value, gradients of f with respect to its arguments (or params))."""
    def grad_fn(*args, **kwargs):
        from lens.framework.convert import convert_to_tensor
        args = [a if isinstance(a, (Tensor, Variable)) else convert_to_tensor(a) for a in args]
        picked = _param_indices(f, params, len(args))
        with GradientTape() as tape:
            for i in picked:
                tape.watch(args[i])
            value = f(*args, **kwargs)
        if value is None:
            raise ValueError("Cannot differentiate a function that returns None; did you forget to return a value "
                             "from %s?" % getattr(f, "__name__", f))
        grads = tape.gradient(value, [args[i] for i in picked])
        return value, grads
    return grad_fn


def gradients_function(f, params=None):
    """A function returning the gradients of f with respect to its arguments (or params)."""
    vg = value_and_gradients_function(f, params)
    return lambda *args, **kwargs: vg(*args, **kwargs)[1]


def _param_indices(f, params, nargs):
    if params is None:
        return list(range(nargs))
    import inspect
    names = list(inspect.signature(f).parameters)
    out = []
    for p in params:
        if isinstance(p, str):
            if p not in names:
                raise ValueError("Function %s has no parameter %r" % (getattr(f, "__name__", f), p))
            p = names.index(p)
        out.append(int(p))
    return out


def num_gpus():
    """GPUs visible to eager execution: lens runs on the CPU."""
    return 0
