"""User functions of map/filter/flat_map: traced with lens ops into a private graph, run per element."""
import itertools

import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.data import structure as nest
from lens.framework.graph import Graph, Tensor, get_default_graph

_fn_ids = itertools.count()


class TracedFunction:
    """func traced once on placeholders shaped like the input elements.

    The private graph runs in a private Session per user session, so random ops inside the
    function keep their own streams and the outer graph stays exactly as TF1 would build it.
    """

    def __init__(self, func, what, types, shapes, returns_dataset=False):
        self.what = what
        self.name = "%s_%d" % (what.replace(".", "_").replace("()", ""), next(_fn_ids))
        outer = get_default_graph()
        self.graph = Graph()
        self.graph.seed = outer.seed  # tf.set_random_seed reaches ops inside the function
        with self.graph.as_default():
            flat_t, flat_s = nest.flatten(types), nest.flatten(shapes)
            from lens.ops.core import placeholder
            self.placeholders = [placeholder(t, s, name="arg%d" % i)
                                 for i, (t, s) in enumerate(zip(flat_t, flat_s))]
            args = nest.pack_as(types, self.placeholders)
            try:
                # TF1 spreads a plain tuple over the arguments; dicts and namedtuples are one argument.
                ret = func(*args) if type(args) is tuple else func(args)
            except ValueError as e:
                if "same graph" in str(e):
                    raise ValueError("The function passed to %s uses a tensor of the outer graph (%s). "
                                     "lens traces dataset functions in their own graph: create that "
                                     "value inside the function, or zip it into the dataset."
                                     % (what, e)) from None
                raise
        if returns_dataset:
            if not hasattr(ret, "_variant_tensor"):
                raise TypeError("The function passed to %s must return a Dataset object, got %r"
                                % (what, type(ret).__name__))
            self.dataset = ret
            self.outputs = [ret._variant_tensor]
            return
        if isinstance(ret, list):
            ret = tuple(ret)  # TF1 reads a returned list as a tuple of components
        with self.graph.as_default():
            self.structure = nest.map_structure(self._to_tensor, ret)
        self.outputs = nest.flatten(self.structure)
        self.output_types = nest.map_structure(lambda t: t.dtype.base_dtype, self.structure)
        self.output_shapes = nest.map_structure(lambda t: t.shape, self.structure)

    def _to_tensor(self, value):
        if isinstance(value, Tensor) and value.graph is not self.graph:
            raise ValueError("The function passed to %s returns %s, a tensor of the outer graph. lens "
                             "traces dataset functions in their own graph: compute the value inside "
                             "the function." % (self.what, value.name))
        try:
            return convert_to_tensor(value)
        except (TypeError, ValueError) as e:
            raise TypeError("The function passed to %s returned %r, which is not convertible to a "
                            "tensor (%s). Return tensors, numbers or arrays, nested in tuples or dicts."
                            % (self.what, value, e)) from None

    def runner(self, ctx, key):
        """A per-session callable: element tuple -> output tuple (or a dataset value)."""
        found = ctx.resources.get(("fn", key))
        if found is not None:
            return found
        from lens.client.session import Session
        sess = Session(graph=self.graph)
        phs, outs = self.placeholders, self.outputs
        if len(outs) == 1 and not hasattr(self, "structure"):
            out = outs[0]

            def run(element):
                return sess.run(out, dict(zip(phs, element)))
        else:
            fixes = [_normalizer(t.dtype) for t in outs]

            def run(element):
                vals = sess.run(outs, dict(zip(phs, element)))
                return tuple(fix(v) for fix, v in zip(fixes, vals))
        ctx.resources[("fn", key)] = run
        return run


def _normalizer(dtype):
    """Fetched values back to arrays of the declared dtype (run() hands out numpy scalars/bytes)."""
    if dtype.base_dtype is _dt.string:
        return lambda v: v if isinstance(v, np.ndarray) else np.array(v, dtype=object)
    np_t = dtype.base_dtype.as_numpy_dtype
    return lambda v: np.asarray(v, dtype=np_t)
