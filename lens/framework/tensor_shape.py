"""TensorShape and Dimension with TF1 semantics (partially known shapes)."""


class Dimension:
    """One dimension of a shape: an int or None (unknown)."""

    __slots__ = ("_value",)

    def __init__(self, value):
        if isinstance(value, Dimension):
            value = value.value
        if value is not None:
            value = int(value)
            if value < 0:
                raise ValueError("Dimension %d must be >= 0" % value)
        self._value = value

    @property
    def value(self):
        """The int value or None."""
        return self._value

    def is_compatible_with(self, other):
        """True when either is unknown or both are equal."""
        other = as_dimension(other)
        return self._value is None or other.value is None or self._value == other.value

    def merge_with(self, other):
        """The more specific of two compatible dimensions."""
        other = as_dimension(other)
        if not self.is_compatible_with(other):
            raise ValueError("Dimensions %s and %s are not compatible" % (self, other))
        return self if self._value is not None else other

    def __int__(self):
        return self._value

    def __index__(self):
        return self._value

    def __eq__(self, other):
        try:
            other = as_dimension(other)
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or other.value is None:
            return None
        return self._value == other.value

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is None or eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self._value)

    def _arith(self, other, fn):
        other = as_dimension(other)
        if self._value is None or other.value is None:
            return Dimension(None)
        return Dimension(fn(self._value, other.value))

    def __add__(self, other):
        return self._arith(other, lambda a, b: a + b)

    __radd__ = __add__

    def __sub__(self, other):
        return self._arith(other, lambda a, b: a - b)

    def __mul__(self, other):
        return self._arith(other, lambda a, b: a * b)

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return self._arith(other, lambda a, b: a // b)

    def __lt__(self, other):
        other = as_dimension(other)
        return None if self._value is None or other.value is None else self._value < other.value

    def __repr__(self):
        return "Dimension(%s)" % self._value

    def __str__(self):
        return "?" if self._value is None else str(self._value)


def as_dimension(value):
    """Convert an int/None/Dimension to a Dimension."""
    return value if isinstance(value, Dimension) else Dimension(value)


class TensorShape:
    """A possibly partially known shape: dims is None (unknown rank) or a list of Dimension."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif hasattr(dims, "dim") and hasattr(dims, "unknown_rank"):  # TensorShapeProto
            self._dims = None if dims.unknown_rank else [
                Dimension(None if d.size == -1 else d.size) for d in dims.dim]
        else:
            try:
                it = iter(dims)
            except TypeError:
                it = [dims]
            self._dims = [as_dimension(d) for d in it]

    @property
    def dims(self):
        """List of Dimension, or None if the rank is unknown."""
        return self._dims

    @property
    def ndims(self):
        """The rank, or None."""
        return None if self._dims is None else len(self._dims)

    rank = ndims

    def is_fully_defined(self):
        """True when the rank and every dimension are known."""
        return self._dims is not None and all(d.value is not None for d in self._dims)

    def as_list(self):
        """A list of ints/None; raises ValueError for an unknown rank."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return [d.value for d in self._dims]

    def as_tuple(self):
        """A tuple of ints/None, or None for an unknown rank."""
        return None if self._dims is None else tuple(d.value for d in self._dims)

    def num_elements(self):
        """Number of elements, or None if not fully defined."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d.value
        return n

    def is_compatible_with(self, other):
        """True when the shapes could describe the same tensor."""
        other = as_shape(other)
        if self._dims is None or other.dims is None:
            return True
        if len(self._dims) != len(other.dims):
            return False
        return all(a.is_compatible_with(b) for a, b in zip(self._dims, other.dims))

    def merge_with(self, other):
        """The most specific shape compatible with both; ValueError if incompatible."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other.dims is None:
            return self
        if len(self._dims) != len(other.dims) or not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are not compatible" % (self, other))
        return TensorShape([a.merge_with(b) for a, b in zip(self._dims, other.dims)])

    def assert_is_compatible_with(self, other):
        """Raise ValueError if incompatible."""
        if not self.is_compatible_with(other):
            raise ValueError("Shapes %s and %s are incompatible" % (self, as_shape(other)))

    def assert_has_rank(self, rank):
        """Raise ValueError unless the rank is unknown or equals rank."""
        if self.ndims not in (None, rank):
            raise ValueError("Shape %s must have rank %d" % (self, rank))

    def with_rank(self, rank):
        """This shape with the given rank (unknown dims if the rank was unknown)."""
        if self._dims is None:
            return unknown_shape(rank)
        self.assert_has_rank(rank)
        return self

    def with_rank_at_least(self, rank):
        """Raise ValueError if the known rank is below rank."""
        if self.ndims is not None and self.ndims < rank:
            raise ValueError("Shape %s must have rank at least %d" % (self, rank))
        return self

    def concatenate(self, other):
        """The concatenation of two shapes."""
        other = as_shape(other)
        if self._dims is None or other.dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other.dims)

    def as_proto(self):
        """A TensorShapeProto."""
        from lens.proto import tensor_shape_pb2
        proto = tensor_shape_pb2.TensorShapeProto()
        if self._dims is None:
            proto.unknown_rank = True
        else:
            for d in self._dims:
                proto.dim.add(size=-1 if d.value is None else d.value)
        return proto

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of a shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is None:
            return Dimension(None) if not isinstance(key, slice) else TensorShape(None)
        if isinstance(key, slice):
            return TensorShape(self._dims[key])
        return self._dims[key]

    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self.as_tuple() == other.as_tuple()

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self.as_tuple())

    def __repr__(self):
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape([%s])" % ", ".join(repr(d) for d in self._dims)

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return "(%s,)" % self._dims[0]
        return "(%s)" % ", ".join(str(d) for d in self._dims)


def as_shape(shape):
    """Convert a list/tuple/TensorShape/None to a TensorShape."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def unknown_shape(rank=None):
    """A shape of unknown rank, or of known rank with unknown dims."""
    return TensorShape(None) if rank is None else TensorShape([None] * rank)


def scalar():
    """The shape of a scalar."""
    return TensorShape([])
