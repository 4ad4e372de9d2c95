"""Complex-number ops the FFTs need: Complex (from real and imaginary parts), Real, Imag, Conj,
Angle, with TF's gradients (a real loss's gradient of a complex z is dL/dRe z + i dL/dIm z)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.ops import math as M
from lens.ops.reduce import reduce_to
from lens.ops.shapes import broadcast_shapes

_COMPLEX_OF = {_dt.float32: _dt.complex64, _dt.float64: _dt.complex128}
_REAL_OF = {_dt.complex64: _dt.float32, _dt.complex128: _dt.float64}


def _complex_grad(op, g):
    return list(reduce_to((real(g), imag(g)), *op._inputs))


def _real_grad(op, g):
    return [complex(g, M.cast(0.0, g.dtype.base_dtype))]


def _imag_grad(op, g):
    return [complex(M.cast(0.0, g.dtype.base_dtype), g)]


def _conj_grad(op, g):
    return [conj(g)]


def _angle_grad(op, g):
    # angle = atan2(im, re): d/dre = -im / |z|^2, d/dim = re / |z|^2
    z = op._inputs[0]
    re, im = real(z), imag(z)
    r2 = M.add(M.square(re), M.square(im))
    return [complex(M.truediv(M.multiply(g, M.negative(im)), r2), M.truediv(M.multiply(g, re), r2))]


def _complex_kernel(re, im):
    re, im = np.asarray(re), np.asarray(im)
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), np.complex128 if re.dtype == np.float64 else np.complex64)
    out.real, out.imag = re, im
    return out


register_op("Complex", fn=_complex_kernel, grad=_complex_grad,
            shape=lambda op: [broadcast_shapes(op._inputs[0].shape, op._inputs[1].shape)])
register_op("Real", fn=lambda z: np.real(z).copy(), grad=_real_grad, shape=lambda op: [op._inputs[0].shape])
register_op("Imag", fn=lambda z: np.imag(z).copy(), grad=_imag_grad, shape=lambda op: [op._inputs[0].shape])
register_op("Conj", fn=np.conj, grad=_conj_grad, shape=lambda op: [op._inputs[0].shape])
register_op("Angle", fn=lambda z: np.angle(z).astype(np.real(z).dtype), grad=_angle_grad,
            shape=lambda op: [op._inputs[0].shape])


def complex(real, imag, name=None):  # noqa: A001 - TF's name
    """The complex tensor real + i * imag (float32 -> complex64, float64 -> complex128)."""
    with name_scope(name, "Complex", [real, imag]) as scope:
        re = convert_to_tensor(real, name="real")
        im = convert_to_tensor(imag, dtype=re.dtype.base_dtype, name="imag")
        if re.dtype.base_dtype not in _COMPLEX_OF:
            raise TypeError("Value passed to parameter 'real' of Complex has DataType %s not in list of allowed "
                            "values: float32, float64" % re.dtype.base_dtype.name)
        out = _COMPLEX_OF[re.dtype.base_dtype]
        return apply_op("Complex", [(re, "real"), (im, "imag")], {"T": re.dtype.base_dtype, "Tout": out},
                        name=scope, dtypes=[out])


def _part(op_type, x, name):
    with name_scope(name, op_type, [x]) as scope:
        x = convert_to_tensor(x, name="input")
        base = x.dtype.base_dtype
        if not base.is_complex:
            return x if op_type == "Real" else M.multiply(x, M.cast(0, base)) if op_type == "Imag" else \
                M.cast(M.multiply(M.cast(M.less(x, M.cast(0, base)), base), np.pi), base)
        return apply_op(op_type, [(x, "input")], {"T": base, "Tout": _REAL_OF[base]}, name=scope,
                        dtypes=[_REAL_OF[base]])


def real(input, name=None):  # noqa: A002
    """The real part of a complex tensor (a real tensor is returned as is)."""
    return _part("Real", input, name)


def imag(input, name=None):  # noqa: A002
    """The imaginary part of a complex tensor (zeros for a real tensor)."""
    return _part("Imag", input, name)


def angle(input, name=None):  # noqa: A002
    """The argument of a complex tensor, atan2(imag, real) (pi where a real tensor is negative, else 0)."""
    return _part("Angle", input, name)


def conj(x, name=None):
    """The complex conjugate (a real tensor is returned as is)."""
    with name_scope(name, "Conj", [x]) as scope:
        x = convert_to_tensor(x, name="input")
        if not x.dtype.base_dtype.is_complex:
            if x.dtype.base_dtype.is_floating or x.dtype.base_dtype.is_integer:
                return x
            raise TypeError("Expected numeric or variant tensor, got dtype %s" % x.dtype.base_dtype.name)
        return apply_op("Conj", [(x, "input")], {"T": x.dtype.base_dtype}, name=scope)


def to_complex64(x, name="ToComplex64"):
    """x cast to complex64 (real values get a zero imaginary part)."""
    return M.cast(x, _dt.complex64, name=name)


def to_complex128(x, name="ToComplex128"):
    """x cast to complex128 (real values get a zero imaginary part)."""
    return M.cast(x, _dt.complex128, name=name)
