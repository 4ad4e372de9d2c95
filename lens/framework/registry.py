"""The op registry: one entry per TF op type (kernel, shape function, gradient)."""
import sys

_OPS = {}
_GRADS = {}          # gradient name -> function (or None for "not differentiable")
_GRAD_WHERE = {}
# Called when an op type or gradient is looked up but not registered: `lens` adds the one loading the TF1 facade
# (every op family and the savers' ops), so a process that never touched a tf.* name still finds every op.
_OP_LOADERS = []


def _caller(depth=2):
    f = sys._getframe(depth)
    return "%s:%d" % (f.f_code.co_filename, f.f_lineno)


class OpDef:
    """How one op type runs: kernel factory, shape function, inputs passed as handles."""

    __slots__ = ("type", "make", "shape", "handle_inputs", "stateful", "where", "num_outputs", "inplace")

    def __init__(self, op_type, make, shape, handle_inputs, stateful, where, inplace=None):
        self.type = op_type
        self.make = make
        # inplace(op, ctx, donated): a kernel that may write into the inputs at the indices in
        # donated (buffers the compiled plan proves nothing else reads), else None.
        self.inplace = inplace
        self.shape = shape
        self.handle_inputs = frozenset(handle_inputs)
        self.stateful = stateful
        self.where = where


def register_op(op_type, fn=None, make=None, shape=None, grad=None, not_differentiable=False,
                handle_inputs=(), stateful=False, inplace=None):
    """Register an op type.

    fn: a function of the input values (the kernel for ops without attrs or state).
    make(op, ctx): returns the kernel for one op instance in one session (binds attrs, state).
    shape(op): a list of output TensorShapes (defaults to unknown).
    grad(op, *out_grads): input gradients, written with lens ops; or not_differentiable=True.
    handle_inputs: input indices that are variable references passed by name, not by value.
    inplace(op, ctx, donated): like make, for a kernel allowed to overwrite the inputs at the
    indices in donated (the plan hands it buffers no other op, fetch or user can see).
    """
    where = _caller()
    if op_type in _OPS:
        raise KeyError("Op type %r is registered twice: first at %s, again at %s"
                       % (op_type, _OPS[op_type].where, where))
    if (fn is None) == (make is None):
        raise ValueError("register_op(%r) needs exactly one of fn= or make=" % op_type)
    if make is None:
        make = lambda op, ctx, _fn=fn: _fn  # noqa: E731
    _OPS[op_type] = OpDef(op_type, make, shape, handle_inputs, stateful, where, inplace)
    if not_differentiable:
        _register_grad(op_type, None, where)
    elif grad is not None:
        _register_grad(op_type, grad, where)
    return _OPS[op_type]


def _register_grad(name, fn, where):
    if name in _GRADS:
        raise KeyError("Registering two gradient with name %r: first at %s, again at %s"
                       % (name, _GRAD_WHERE[name], where))
    _GRADS[name] = fn
    _GRAD_WHERE[name] = where


def add_op_loader(loader):
    """Run loader() the first time an unregistered op type or gradient is looked up (it registers more ops)."""
    _OP_LOADERS.append(loader)


def load_op_libraries():
    """Run the op loaders (each loads once): afterwards every op type lens knows is registered."""
    for loader in list(_OP_LOADERS):
        loader()


def get_op_def(op_type):
    """The OpDef of a type; KeyError naming the type if unknown."""
    if op_type not in _OPS:
        load_op_libraries()
    try:
        return _OPS[op_type]
    except KeyError:
        raise KeyError("Op type %r is not registered in lens" % op_type) from None


def registered_ops():
    """All registered op types."""
    return dict(_OPS)


def has_gradient_entry(name):
    """True when a gradient or a not-differentiable mark exists for name."""
    if name not in _GRADS:
        load_op_libraries()
    return name in _GRADS


def get_gradient_function(name):
    """The gradient function for a gradient name (None = not differentiable)."""
    if name not in _GRADS:
        load_op_libraries()
    if name not in _GRADS:
        raise LookupError("No gradient defined for operation type %r" % name)
    return _GRADS[name]


class RegisterGradient:
    """Decorator registering a gradient function under a name (an op type or an override)."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        _register_grad(self._op_type, fn, _caller())
        return fn


def NotDifferentiable(op_type):  # noqa: N802 - TF's name
    """Mark an op type as having no gradient."""
    _register_grad(op_type, None, _caller())


NoGradient = NotDifferentiable
