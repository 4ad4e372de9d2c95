"""tf.nest: flatten, pack_sequence_as, map_structure, assert_same_structure and is_nested over lists,
tuples, namedtuples and dicts (dict leaves in sorted-key order, as TF)."""
from lens.framework.sparse_tensor import SparseTensor, SparseTensorValue
from lens.ops import control_flow_nest as _nest

__all__ = ["flatten", "pack_sequence_as", "map_structure", "assert_same_structure", "is_nested"]


def is_nested(seq):
    """True for lists, tuples (namedtuples too) and dicts; strings and tensors are leaves."""
    return _nest.is_sequence(seq)


def _components(leaf):
    """A SparseTensor's component tensors (indices, values, dense_shape), as TF expands composites."""
    return [leaf.indices, leaf.values, leaf.dense_shape]


def _is_composite(x):
    return isinstance(x, (SparseTensor, SparseTensorValue))


def flatten(structure, expand_composites=False):
    """The leaves of structure in order; a leaf alone becomes [leaf]; expand_composites=True lists a
    SparseTensor's indices, values and dense_shape in its place."""
    leaves = _nest.flatten(structure)
    if not expand_composites:
        return leaves
    out = []
    for leaf in leaves:
        out.extend(_components(leaf) if _is_composite(leaf) else [leaf])
    return out


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """structure rebuilt with the leaves of flat_sequence, in order (three per SparseTensor with
    expand_composites=True)."""
    if expand_composites and any(_is_composite(leaf) for leaf in _nest.flatten(structure)):
        flat, items = list(flat_sequence), []
        for leaf in _nest.flatten(structure):
            if _is_composite(leaf):
                items.append(type(leaf)(*flat[:3]))
                flat = flat[3:]
            else:
                items.append(flat.pop(0))
        flat_sequence = items
    if not is_nested(flat_sequence):
        raise TypeError("Attempted to pack value:\n  %r\ninto a structure, but found incompatible type `%s` instead."
                        % (flat_sequence, type(flat_sequence).__name__))
    if not is_nested(structure):
        if len(flat_sequence) != 1:
            raise ValueError("The target structure is of type `%s`\n  %r\nHowever the input is a sequence (%s) of "
                             "length %d.\n  %r\nnest cannot guarantee that it is safe to map one to the other."
                             % (type(structure).__name__, structure, type(flat_sequence).__name__,
                                len(flat_sequence), flat_sequence))
        return flat_sequence[0]
    return _nest.pack_sequence_as(structure, flat_sequence)


def _sequence_type(x):
    if isinstance(x, dict):
        return dict
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x)
    return type(x)


def _assert_same(a, b, check_types, path):
    if is_nested(a) != is_nested(b):
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: %r\n\n"
                         "Second structure: %r\n\nMore specifically: Substructure \"%r\" is a sequence, while "
                         "substructure \"%r\" is not" % (a, b, a if is_nested(a) else b, b if is_nested(a) else a))
    if not is_nested(a):
        return
    if check_types and _sequence_type(a) is not _sequence_type(b):
        raise TypeError("The two structures don't have the same sequence type. Input structure has type %s, while "
                        "shallow structure has type %s." % (type(a), type(b)))
    if isinstance(a, dict) and sorted(a) != sorted(b):
        raise ValueError("The two dictionaries don't have the same set of keys. First structure has keys %s, while "
                         "second structure has keys %s." % (sorted(a), sorted(b)))
    ca, cb = _nest._children(a), _nest._children(b)
    if len(ca) != len(cb):
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: %r\n\n"
                         "Second structure: %r\n\nMore specifically: the sequences have lengths %d and %d"
                         % (a, b, len(ca), len(cb)))
    for x, y in zip(ca, cb):
        _assert_same(x, y, check_types, path)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """ValueError when the nestings differ; TypeError when check_types and the sequence types differ."""
    if expand_composites:
        nest1, nest2 = _expand_leaves(nest1), _expand_leaves(nest2)
    _assert_same(nest1, nest2, check_types, ())


def map_structure(func, *structure, **kwargs):
    """func applied leaf-wise across structures of the same nesting (check_types=True by default;
    expand_composites=True maps over SparseTensor components)."""
    if not callable(func):
        raise TypeError("func must be callable, got: %s" % func)
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    expand = kwargs.pop("expand_composites", False)
    if kwargs:
        raise ValueError("Only valid keyword arguments are `check_types` and `expand_composites`, not: `%s`"
                         % ("`, `".join(kwargs)))
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s, expand_composites=expand) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)], expand_composites=expand)


def _expand_leaves(structure):
    """structure with each SparseTensor replaced by the list of its components."""
    return _nest.pack_sequence_as(structure, [_components(x) if _is_composite(x) else x
                                              for x in _nest.flatten(structure)])
