"""tf.make_template (a function whose variables are created on the first call and shared after) and
tf.custom_gradient / tf.grad_pass_through (gradients overridden through an IdentityN, as TF1 does)."""
import functools
import itertools
import logging

from lens.framework.convert import convert_to_tensor
from lens.framework.graph import GraphKeys, get_default_graph
from lens.framework.registry import RegisterGradient
from lens.ops import control_flow_nest as nest
from lens.ops.core import identity_n
from lens.ops.variable_scope import variable_scope

__all__ = ["make_template", "Template", "custom_gradient", "grad_pass_through"]

_log = logging.getLogger("lens")
_ids = itertools.count()


class Template:
    """Wraps func: the first call runs it in a fresh variable scope, later calls reuse that scope's variables."""

    def __init__(self, name, func, create_scope_now=False, unique_name=None, custom_getter=None):
        if name is None:
            raise ValueError("name cannot be None.")
        self._func, self._name = func, name
        self._unique_name, self._custom_getter = unique_name, custom_getter
        self._variables_created = False
        self._variable_scope = None
        if create_scope_now:
            with variable_scope(unique_name, name, custom_getter=custom_getter) as vs:
                self._variable_scope = vs

    def _call_func(self, args, kwargs):
        g = get_default_graph()
        trainable_at_start = len(g.get_collection(GraphKeys.TRAINABLE_VARIABLES))
        vars_at_start = len(g.get_collection(GraphKeys.GLOBAL_VARIABLES))
        result = self._func(*args, **kwargs)
        if self._variables_created:
            trainable = g.get_collection(GraphKeys.TRAINABLE_VARIABLES)
            if len(trainable) != trainable_at_start:
                raise ValueError("Trainable variable created when calling a template after the first time, perhaps "
                                 "you used tf.Variable when you meant tf.get_variable: %s"
                                 % (trainable[trainable_at_start:],))
            if len(g.get_collection(GraphKeys.GLOBAL_VARIABLES)) != vars_at_start:
                _log.info("New variables created when calling a template after the first time, perhaps you used "
                          "tf.Variable when you meant tf.get_variable")
        else:
            self._variables_created = True
        return result

    def __call__(self, *args, **kwargs):
        if self._variable_scope is not None:
            with variable_scope(self._variable_scope, reuse=self._variables_created):
                return self._call_func(args, kwargs)
        with variable_scope(self._unique_name, self._name, custom_getter=self._custom_getter) as vs:
            self._variable_scope = vs
            return self._call_func(args, kwargs)

    name = property(lambda self: self._name, doc="The name given to make_template.")
    func = property(lambda self: self._func, doc="The wrapped function (with make_template's kwargs bound).")
    variable_scope = property(lambda self: self._variable_scope, doc="The scope (None before the first call).")

    @property
    def variable_scope_name(self):
        """The scope's name ('' before the first call)."""
        return self._variable_scope.name if self._variable_scope is not None else ""

    def _collection(self, key):
        if self._variable_scope is None:
            return []
        prefix = self._variable_scope.name + "/"
        return [v for v in get_default_graph().get_collection(key) if v.name.startswith(prefix)]

    variables = property(lambda self: self._collection(GraphKeys.GLOBAL_VARIABLES) +
                         self._collection(GraphKeys.LOCAL_VARIABLES), doc="All variables of the template's scope.")
    global_variables = property(lambda self: self._collection(GraphKeys.GLOBAL_VARIABLES), doc="Its global variables.")
    local_variables = property(lambda self: self._collection(GraphKeys.LOCAL_VARIABLES), doc="Its local variables.")
    trainable_variables = property(lambda self: self._collection(GraphKeys.TRAINABLE_VARIABLES),
                                   doc="Its trainable variables.")
    weights = variables
    trainable_weights = trainable_variables

    @property
    def non_trainable_variables(self):
        """Its global variables that are not trainable."""
        trainable = set(id(v) for v in self.trainable_variables)
        return [v for v in self.global_variables if id(v) not in trainable]

    non_trainable_weights = non_trainable_variables


def make_template(name_, func_, create_scope_now_=False, unique_name_=None, custom_getter_=None, **kwargs):
    """A Template calling func_(*args, **kwargs) that shares variables across calls."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_, unique_name=unique_name_,
                    custom_getter=custom_getter_)


def custom_gradient(f=None):
    """Decorator: f(*x) returns (y, grad_fn); tf.gradients of y gives grad_fn(*dy) for x."""
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords arguments only when "
                             "eager execution is enabled.")
        g = get_default_graph()
        args = [convert_to_tensor(a) for a in args]
        before = set(id(v) for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES) +
                     g.get_collection(GraphKeys.LOCAL_VARIABLES))
        result, grad_fn = f(*args)
        created = [v for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES) + g.get_collection(GraphKeys.LOCAL_VARIABLES)
                   if id(v) not in before]
        if created:
            raise TypeError("All variables used by a function wrapped with @custom_gradient must be `ResourceVariable`s"
                            " (lens has ref variables only): %s" % [v.name for v in created])
        flat = [convert_to_tensor(t) for t in nest.flatten(result)]
        name = "CustomGradient-%d" % next(_ids)

        @RegisterGradient(name)
        def _grad(op, *grads):
            input_grads = grad_fn(*grads[:len(flat)])
            input_grads = list(input_grads) if isinstance(input_grads, (list, tuple)) else [input_grads]
            if len(input_grads) != len(args):
                raise ValueError("custom_gradient function expected to return %d gradients, but returned %d instead."
                                 % (len(args), len(input_grads)))
            return [None] * len(flat) + input_grads

        with g.gradient_override_map({"IdentityN": name}):
            outs = identity_n(flat + args)
        return nest.pack_sequence_as(result, list(outs[:len(flat)]))
    return decorated


def grad_pass_through(f):
    """Wrap f so its result's gradient reaches the inputs unchanged (straight-through): y = f(x), dy/dx = 1."""
    @functools.wraps(f)
    def wrapped(*args):
        @custom_gradient
        def inner(*xs):
            return f(*xs), lambda *dy: dy if len(xs) > 1 else dy[0]
        return inner(*args)
    return wrapped
