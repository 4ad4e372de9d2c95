"""Tensor filters for `run -f` and `lt -f`: `has_inf_or_nan` and the filter registry."""

from math import isfinite

import numpy as np

from lens.dbg.patterns import compile_regex


class InconvertibleTensorProto:
    """A dumped tensor that has no array value (uninitialized or unsupported dtype)."""

    def __init__(self, tensor_proto, initialized=True):
        self.tensor_proto = tensor_proto
        self.initialized = initialized

    def __str__(self):
        head = "" if self.initialized else "Uninitialized tensor:\n"
        return head + str(self.tensor_proto)


# Kernels may return numpy scalars or Python numbers; a dump stores them as 0-d tensors.
_SCALARS = (np.generic, bool, int, float, complex)


def as_dumped(value):
    """The value as a filter sees it after a dump round trip: numbers become 0-d arrays."""
    return np.asarray(value) if isinstance(value, _SCALARS) else value


def has_inf_or_nan(datum, tensor):
    """True if a floating, complex or integer tensor holds any nan or inf (datum ignored)."""
    del datum  # tfdbg's filter signature; only the value matters here
    tensor = as_dumped(tensor)  # `run -f` checks in memory what `lt -f` reads from disk
    if not isinstance(tensor, np.ndarray):
        return False
    kind = tensor.dtype.kind
    if kind in "fc":
        # A finite sum proves there is no inf/nan (any inf or nan makes the sum inf or nan)
        # in one pass without a temporary; only a non-finite sum needs the exact check,
        # since finite values can also overflow the sum.
        with np.errstate(over="ignore", invalid="ignore"):
            if np.isfinite(tensor.sum()):
                return False
        return bool(not np.isfinite(tensor).all())
    return False  # ints can't hold inf/nan; bool, strings and the rest never pass


_BLAS_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})


def nonfinite(value):
    """has_inf_or_nan for a value in a run, as fast as one BLAS pass over the tensor."""
    if type(value) is not np.ndarray:
        return has_inf_or_nan(None, value)
    if value.dtype in _BLAS_FLOATS and value.flags.c_contiguous:
        flat = value.reshape(-1)
        # flat . flat sums squares, none negative: an inf or nan anywhere makes it inf or nan,
        # and a finite result proves every element finite. Huge finite values can overflow
        # it (|x| > 1e19 in float32): then the exact check decides.
        if isfinite(np.dot(flat, flat)):
            return False
    elif value.dtype.kind not in "fc":
        return False  # ints, bools, strings hold no inf/nan
    return bool(not np.isfinite(value).all())


class FilterRegistry:
    """Named tensor filters, with `has_inf_or_nan` registered and an allowed-inf node list."""

    def __init__(self):
        self._filters = {"has_inf_or_nan": has_inf_or_nan}
        # Nodes (regexes, re.match) allowed to produce inf/nan: skipped by every filter.
        self.allowed_nodes = []

    def add(self, name, fn):
        """Register (or replace) filter `name`: fn(datum, tensor) -> bool."""
        if not isinstance(name, str):
            raise TypeError("Tensor filter name must be a str, got %r" % type(name).__name__)
        if not name:
            raise ValueError("Tensor filter name must be a non-empty string")
        if not callable(fn):
            raise TypeError("Tensor filter %r must be callable, got %r" % (name, fn))
        self._filters[name] = fn

    def get(self, name):
        """The filter called `name`; KeyError with the known names otherwise."""
        try:
            return self._filters[name]
        except KeyError:
            raise KeyError('tensor filter "%s" does not exist (registered: %s)'
                           % (name, ", ".join(sorted(self._filters)))) from None

    def names(self):
        """Registered filter names, sorted."""
        return sorted(self._filters)

    def __contains__(self, name):
        return name in self._filters

    def allow_nodes(self, patterns):
        """Add node-name regexes whose tensors never trip a filter (intentional infs)."""
        for pattern in patterns:
            compile_regex(pattern, "allowed_inf_nodes")  # fail now, naming the pattern
            self.allowed_nodes.append(pattern)

    def is_allowed(self, node_name, exclude_regex=None):
        """True if node `node_name` is exempt from filtering."""
        if exclude_regex and compile_regex(exclude_regex).match(node_name):
            return True
        return any(compile_regex(p).match(node_name) for p in self.allowed_nodes)
