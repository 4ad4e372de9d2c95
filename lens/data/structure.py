"""Nested element structures of tf.data: tuples, namedtuples and dicts of leaves (TF1's nest rules)."""
from lens.framework import dtypes as _dt
from lens.framework.tensor_shape import TensorShape, as_shape

# tf.data's lists are values (converted to one tensor), not structures: only these nest.
def is_nested(x):
    """True for a tuple (named or not) or a dict: the containers tf.data recurses into."""
    return isinstance(x, (tuple, dict))


def _items(x):
    # Dicts flatten in sorted key order, as TF's nest does, so structures compare reliably.
    if isinstance(x, dict):
        return [x[k] for k in sorted(x)]
    return list(x)


def flatten(x):
    """The leaves of a structure, depth first (dict keys sorted)."""
    if not is_nested(x):
        return [x]
    out = []
    for item in _items(x):
        out.extend(flatten(item))
    return out


def pack_as(structure, flat):
    """Rebuild `structure`'s shape with the leaves taken in order from flat."""
    flat = list(flat)
    pos = [0]

    def build(s):
        if not is_nested(s):
            v = flat[pos[0]]
            pos[0] += 1
            return v
        if isinstance(s, dict):
            vals = {k: build(s[k]) for k in sorted(s)}
            return type(s)((k, vals[k]) for k in s) if type(s) is not dict else {k: vals[k] for k in s}
        built = [build(item) for item in s]
        return type(s)(*built) if hasattr(s, "_fields") else type(s)(built)
    out = build(structure)
    if pos[0] != len(flat):
        raise ValueError("Structure has %d leaves but %d values were given" % (pos[0], len(flat)))
    return out


def map_structure(fn, structure):
    """Apply fn to every leaf, keeping the structure."""
    return pack_as(structure, [fn(x) for x in flatten(structure)])


def assert_same_structure(a, b, what):
    """ValueError naming `what` when a and b nest differently."""
    if _skeleton(a) != _skeleton(b):
        raise ValueError("%s: the two structures don't have the same nested structure.\n\n"
                         "First structure: %r\n\nSecond structure: %r" % (what, _skeleton(a), _skeleton(b)))


def _skeleton(x):
    if isinstance(x, dict):
        return ("dict", tuple((k, _skeleton(x[k])) for k in sorted(x)))
    if isinstance(x, tuple):
        return ("tuple", tuple(_skeleton(i) for i in x))
    return "."


def normalize_types(types):
    """A structure of DTypes from a structure of anything as_dtype accepts."""
    return map_structure(_dt.as_dtype, types)


def normalize_shapes(shapes, types):
    """A structure of TensorShapes matching types (None means fully unknown shapes)."""
    if shapes is None:
        return map_structure(lambda _: TensorShape(None), types)
    flat_t = flatten(types)
    # A shape is itself a list/tuple of dims; only recurse where the type structure nests.
    flat_s = _flatten_up_to(types, shapes)
    if len(flat_s) != len(flat_t):
        raise ValueError("output_shapes has %d components but output_types has %d; give one shape "
                         "per component" % (len(flat_s), len(flat_t)))
    return pack_as(types, [as_shape(s) for s in flat_s])


def _flatten_up_to(template, x):
    if not is_nested(template):
        return [x]
    if isinstance(template, dict):
        if not isinstance(x, dict) or sorted(x) != sorted(template):
            raise ValueError("output_shapes %r must be a dict with the keys %s of output_types"
                             % (x, sorted(template)))
        out = []
        for k in sorted(template):
            out.extend(_flatten_up_to(template[k], x[k]))
        return out
    if not isinstance(x, (tuple, list)) or len(x) != len(template):
        raise ValueError("output_shapes %r must nest like output_types %r" % (x, template))
    out = []
    for t, s in zip(template, x):
        out.extend(_flatten_up_to(t, s))
    return out
