"""DType: TF1's dtype objects (float32, int32, ..., and their _ref variants)."""
import numpy as np

# TensorFlow's DataType enum values (types.proto).
_ENUMS = {
    "float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7,
    "complex64": 8, "int64": 9, "bool": 10, "uint16": 17, "complex128": 18, "float16": 19,
    "uint32": 22, "uint64": 23, "resource": 20, "variant": 21,
}
_NUMPY = {
    "float32": np.float32, "float64": np.float64, "int32": np.int32, "uint8": np.uint8,
    "int16": np.int16, "int8": np.int8, "string": np.object_, "complex64": np.complex64,
    "int64": np.int64, "bool": np.bool_, "uint16": np.uint16, "complex128": np.complex128,
    "float16": np.float16, "uint32": np.uint32, "uint64": np.uint64,
    "resource": np.object_, "variant": np.object_,  # handles: Python objects in lens
}
_RANGE_LIMITS = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
                 "uint16": (0, 65535)}


class DType:
    """A TF1 data type; `x_ref` variants describe reference (variable) tensors."""

    __slots__ = ("_name", "_is_ref")

    def __init__(self, name, is_ref=False):
        self._name = name
        self._is_ref = is_ref

    @property
    def name(self):
        """'float32', or 'float32_ref' for a reference type."""
        return self._name + "_ref" if self._is_ref else self._name

    @property
    def base_dtype(self):
        """The non-reference type."""
        return _BY_NAME[self._name] if self._is_ref else self

    @property
    def real_dtype(self):
        """The real part's type for complex types, else the base type."""
        return {"complex64": float32, "complex128": float64}.get(self._name, self.base_dtype)

    @property
    def _as_ref(self):
        return _REFS[self._name]

    @property
    def is_ref_dtype(self):
        """True for reference types."""
        return self._is_ref

    @property
    def as_numpy_dtype(self):
        """The numpy scalar type."""
        return _NUMPY[self._name]

    @property
    def as_datatype_enum(self):
        """The DataType enum value (ref types add 100)."""
        return _ENUMS[self._name] + (100 if self._is_ref else 0)

    @property
    def is_floating(self):
        """True for float16/32/64."""
        return self._name in ("float16", "float32", "float64")

    @property
    def is_complex(self):
        """True for complex64/128."""
        return self._name.startswith("complex")

    @property
    def is_integer(self):
        """True for (u)int types."""
        return "int" in self._name

    @property
    def is_unsigned(self):
        """True for unsigned integer types and bool."""
        return self._name.startswith("uint") or self._name == "bool"

    @property
    def is_bool(self):
        """True for bool."""
        return self._name == "bool"

    @property
    def is_numpy_compatible(self):
        """Always True here."""
        return True

    @property
    def min(self):
        """Smallest representable value."""
        np_t = self.as_numpy_dtype
        return np.finfo(np_t).min if self.is_floating else np.iinfo(np_t).min

    @property
    def max(self):
        """Largest representable value."""
        np_t = self.as_numpy_dtype
        return np.finfo(np_t).max if self.is_floating else np.iinfo(np_t).max

    @property
    def size(self):
        """Bytes per element."""
        return np.dtype(self.as_numpy_dtype).itemsize if self._name != "string" else 1

    def is_compatible_with(self, other):
        """True when other names the same base type."""
        return as_dtype(other).base_dtype is self.base_dtype

    def __eq__(self, other):
        if other is None:
            return False
        try:
            other = as_dtype(other)
        except TypeError:
            return False
        return other is self

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return "tf." + self.name

    def __str__(self):
        return "<dtype: %r>" % self.name

    def __reduce__(self):
        return as_dtype, (self.name,)


_BY_NAME = {n: DType(n) for n in _ENUMS}
_REFS = {n: DType(n, True) for n in _ENUMS}

float16 = half = _BY_NAME["float16"]
float32 = _BY_NAME["float32"]
float64 = double = _BY_NAME["float64"]
int8 = _BY_NAME["int8"]
int16 = _BY_NAME["int16"]
int32 = _BY_NAME["int32"]
int64 = _BY_NAME["int64"]
uint8 = _BY_NAME["uint8"]
uint16 = _BY_NAME["uint16"]
uint32 = _BY_NAME["uint32"]
uint64 = _BY_NAME["uint64"]
bool = _BY_NAME["bool"]  # noqa: A001 - TF's own name
string = _BY_NAME["string"]
resource = _BY_NAME["resource"]
variant = _BY_NAME["variant"]
complex64 = _BY_NAME["complex64"]
complex128 = _BY_NAME["complex128"]
float32_ref = _REFS["float32"]
float64_ref = _REFS["float64"]
int32_ref = _REFS["int32"]
int64_ref = _REFS["int64"]

_ALIASES = {"float": "float32", "double": "float64", "half": "float16", "str": "string"}
_ENUM_TO_DTYPE = {v: _BY_NAME[k] for k, v in _ENUMS.items()}
_ENUM_TO_DTYPE.update({v + 100: _REFS[k] for k, v in _ENUMS.items()})
_NP_TO_NAME = {np.dtype(v): k for k, v in _NUMPY.items() if k not in ("string", "resource", "variant")}


def as_dtype(type_value):
    """Convert a DType, name, numpy dtype, python type or enum value to a DType."""
    if isinstance(type_value, DType):
        return type_value
    if isinstance(type_value, str):
        name = _ALIASES.get(type_value, type_value)
        if name.endswith("_ref") and name[:-4] in _REFS:
            return _REFS[name[:-4]]
        if name in _BY_NAME:
            return _BY_NAME[name]
        raise TypeError("Cannot convert %r to a lens DType: unknown type name" % type_value)
    if isinstance(type_value, int) and not isinstance(type_value, (builtins_bool, np.bool_)):
        if type_value in _ENUM_TO_DTYPE:
            return _ENUM_TO_DTYPE[type_value]
        raise TypeError("Cannot convert DataType enum %d to a lens DType" % type_value)
    if type_value is builtins_bool:
        return bool
    if type_value is builtins_int:
        return int32
    if type_value is builtins_float:
        return float32
    if type_value in (builtins_str, bytes):
        return string
    try:
        npd = np.dtype(type_value)
    except TypeError:
        raise TypeError("Cannot convert %r to a lens DType" % (type_value,)) from None
    if npd.kind in "SUO":
        return string
    if npd in _NP_TO_NAME:
        return _BY_NAME[_NP_TO_NAME[npd]]
    raise TypeError("Cannot convert numpy dtype %s to a lens DType" % npd)


import builtins as _b  # noqa: E402
builtins_bool, builtins_int, builtins_float, builtins_str = _b.bool, _b.int, _b.float, _b.str

QUANTIZED_DTYPES = frozenset()
