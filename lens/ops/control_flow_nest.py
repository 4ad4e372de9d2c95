"""Nested structures (lists, tuples, namedtuples, dicts) for control-flow arguments and results."""
from lens.framework.graph import Operation, Tensor


def is_sequence(x):
    """True for lists, tuples (incl. namedtuples) and dicts: containers nest walks into."""
    return isinstance(x, (list, tuple, dict))


def _children(x):
    if isinstance(x, dict):
        return [x[k] for k in sorted(x)]  # TF's nest orders dict items by key
    return list(x)


def flatten(x):
    """The leaves of x in TF's order (dicts by sorted key)."""
    if not is_sequence(x):
        return [x]
    out = []
    for c in _children(x):
        out.extend(flatten(c))
    return out


def _rebuild(template, items):
    if isinstance(template, dict):
        return _dict_like(template, dict(zip(sorted(template), items)))
    if isinstance(template, tuple) and hasattr(template, "_fields"):
        return type(template)(*items)
    return type(template)(items)


def _dict_like(template, mapping):
    out = type(template)() if not hasattr(template, "default_factory") else \
        type(template)(template.default_factory)
    for k in template:
        out[k] = mapping[k]
    return out


def pack_sequence_as(structure, flat):
    """Rebuild structure with leaves taken in order from flat."""
    flat = list(flat)
    pos = [0]

    def build(s):
        if not is_sequence(s):
            v = flat[pos[0]]
            pos[0] += 1
            return v
        return _rebuild(s, [build(c) for c in _children(s)])

    if len(flat) != len(flatten(structure)):
        raise ValueError("Structure had %d elements, but flat_sequence had %d elements."
                         % (len(flatten(structure)), len(flat)))
    return build(structure)


def _kind(x):
    if isinstance(x, dict):
        return ("dict", tuple(sorted(x)))
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return ("namedtuple", type(x).__name__, tuple(x._fields))
    if isinstance(x, (list, tuple)):
        return ("sequence", len(x))
    return ("leaf",)


def same_structure(a, b):
    """True when a and b nest the same way (lists and tuples count as the same kind, as TF)."""
    ka, kb = _kind(a), _kind(b)
    if ka != kb:
        return False
    if ka[0] == "leaf":
        return True
    ca, cb = _children(a), _children(b)
    return len(ca) == len(cb) and all(same_structure(x, y) for x, y in zip(ca, cb))


def map_structure(fn, structure):
    """Apply fn to every leaf, keeping the structure."""
    return pack_sequence_as(structure, [fn(x) for x in flatten(structure)])


def describe(x):
    """A short text of a structure for error messages (tensor names instead of reprs)."""
    if isinstance(x, (Tensor, Operation)):
        return x.name
    if isinstance(x, dict):
        return "{%s}" % ", ".join("%r: %s" % (k, describe(x[k])) for k in sorted(x))
    if isinstance(x, (list, tuple)):
        inner = ", ".join(describe(c) for c in x)
        if hasattr(x, "_fields"):
            return "%s(%s)" % (type(x).__name__, inner)
        return "[%s]" % inner if isinstance(x, list) else "(%s)" % inner
    return repr(x)
