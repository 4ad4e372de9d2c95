"""Minimal nested-structure helpers (tuples, lists, namedtuples) for RNN states and inputs."""


def is_sequence(x):
    """True for the containers RNN code nests: tuples (incl. namedtuples) and lists."""
    return isinstance(x, (tuple, list))


def flatten(structure):
    """The leaves of structure in depth-first order (a leaf alone gives [leaf])."""
    if not is_sequence(structure):
        return [structure]
    out = []
    for item in structure:
        out.extend(flatten(item))
    return out


def _rebuild(like, items):
    if isinstance(like, tuple) and hasattr(like, "_fields"):
        return type(like)(*items)
    return type(like)(items)


def pack_sequence_as(structure, flat):
    """Rebuild structure's shape from a flat list of leaves."""
    flat = list(flat)
    n = len(flatten(structure))
    if n != len(flat):
        raise ValueError("Structure had %d elements, but flat_sequence had %d elements. Structure: %s"
                         % (n, len(flat), structure))
    pos = [0]

    def build(s):
        if not is_sequence(s):
            pos[0] += 1
            return flat[pos[0] - 1]
        return _rebuild(s, [build(item) for item in s])
    return build(structure)


def assert_same_structure(a, b):
    """Raise ValueError naming both structures when their nesting differs."""
    def same(x, y):
        if is_sequence(x) != is_sequence(y):
            return False
        if not is_sequence(x):
            return True
        return len(x) == len(y) and all(same(p, q) for p, q in zip(x, y))
    if not same(a, b):
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: %s"
                         "\n\nSecond structure: %s" % (a, b))


def map_structure(fn, *structures):
    """Apply fn leafwise over structures of the same nesting."""
    for s in structures[1:]:
        assert_same_structure(structures[0], s)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [fn(*leaves) for leaves in zip(*flats)])
