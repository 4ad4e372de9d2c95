"""The eager executor: runs one op's registered kernel at once in the process's eager context.

Registered with lens.framework.eager at import, so the framework never imports the client. The
context is what a Session gives kernels (variable store, RNG streams, resources, sub-plan
compilation for control flow), kept bounded: nothing is stored per op.
"""
import threading

import numpy as np

from lens.framework import eager, errors
from lens.client.plan import RegionCompiler, Uninitialized, VariableStore, _kernel_message


class EagerContext(RegionCompiler):
    """What eager kernels may touch: variable values, RNG streams, resources."""

    def __init__(self):
        self.graph = None
        self.session = None
        self.variables = VariableStore()
        self.resources = {}
        self._rngs = {}
        self._seed_epoch = 0
        self._lock = threading.Lock()

    def rng(self, op):
        """One stream per (seed, seed2): a seeded op called again continues its stream (TF eager's
        kernel cache), unseeded ops share one nondeterministic stream."""
        epoch = getattr(op._graph, "seed_epoch", 0)
        if epoch != self._seed_epoch:    # tf.set_random_seed ran: streams start over
            self._rngs.clear()
            self._seed_epoch = epoch
        key = (op._attrs.get("seed", 0), op._attrs.get("seed2", 0))
        gen = self._rngs.get(key)
        if gen is None:
            gen = self._rngs[key] = np.random.default_rng(None if key == (0, 0) else list(key))
        return gen


class EagerExecutor:
    """Runs an eager op: reads its inputs' values, calls its kernel, returns its outputs' values."""

    def __init__(self):
        self.ctx = EagerContext()
        self._keys = set()      # live eager variables' store keys

    def _variable_key(self, name):
        # Eager variables may share a name (TF does not uniquify them); their store keys may not.
        key, i = name, 0
        while key in self._keys:
            i += 1
            key = "%s_%d" % (name, i)
        self._keys.add(key)
        return key

    def read_variable(self, key):
        """A copy of a variable's current value (updates happen in place, reads must not change)."""
        try:
            return np.array(self.ctx.variables[key])
        except Uninitialized:
            raise errors.FailedPreconditionError(
                None, None, "Error while reading resource variable %s: the variable has no value "
                "(it was deleted or never initialized)" % key) from None

    def release_variable(self, graph, key):
        """Forget a dead variable's value and key."""
        self.ctx.variables.pop(key, None)
        self._keys.discard(key)

    def __call__(self, op):
        od = op._op_def
        if op._type in ("VariableV2", "Variable"):
            op._name = self._variable_key(op._name)
            return [eager.VariableRef(op._name, op._attrs.get("shape"))]
        handles = od.handle_inputs
        args = []
        for i, t in enumerate(op._inputs):
            if i in handles:
                continue
            args.append(self.read_variable(t._var) if t._var is not None else t._value)
        try:
            with np.errstate(all="ignore"):   # TF kernels give inf/nan silently
                out = od.make(op, self.ctx)(*args)
        except errors.OpError as e:
            raise type(e)(None, op, "%s [Op:%s]" % (e.message, op._type)).with_traceback(None) from None
        except Uninitialized as e:
            raise errors.FailedPreconditionError(
                None, op, "Attempting to use uninitialized value %s [Op:%s]" % (e.args[0], op._type)) from None
        except (TypeError, ValueError, IndexError, KeyError, ArithmeticError, AttributeError) as e:
            shapes = [list(np.shape(a)) for a in args]
            msg = _kernel_message(op, e, shapes, args) or "%s: %s; input shapes: %s" % (
                type(e).__name__, e, ", ".join(str(s) for s in shapes))
            raise errors.InvalidArgumentError(None, op, "%s [Op:%s]" % (msg, op._type)) from None
        n = len(op._outputs)
        outs = [] if n == 0 else [out] if n == 1 else list(out)
        if handles:
            # Outputs of an update alias the variable's buffer, which later updates change in place.
            outs = [np.array(v) if isinstance(v, np.ndarray) else v for v in outs]
        return outs


executor = EagerExecutor()
eager.register_executor(executor)
