"""Op-table rows: the FFT family (through real and imaginary parts, so gradients are checked by
central differences on real inputs) and the complex-part ops, against NumPy."""
import numpy as np

from lens.ops import complex_ops as C
from lens.ops import signal_fft as S
from optable_lib import F, Row


def _parts(z):
    return [C.real(z), C.imag(z)]


def _np_parts(z):
    return [z.real, z.imag]


def _cplx(x, y):
    return x + 1j * y


def _complex_row(op, fn, ref, shape):
    return Row(op, lambda x, y: _parts(fn(C.complex(x, y))), lambda x, y: _np_parts(ref(_cplx(x, y))),
               [[F(*shape), F(*shape)]], label=op)


def _rfft_row(op, fn, k, n, shape):
    return Row(op, lambda x: _parts(fn(x, n)),
               lambda x: _np_parts(np.fft.rfftn(x, s=n, axes=tuple(range(-k, 0)))), [[F(*shape)]],
               label="%s %s" % (op, n))


def _irfft_row(op, fn, k, n, shape):
    def ref(x, y):
        z = _cplx(x, y)
        inner = list(n[:-1]) + [n[-1] // 2 + 1]
        for ax, m in zip(range(-k, 0), inner):   # crop or zero-pad the input as the op reads it
            z = np.take(z, np.arange(min(m, z.shape[ax])), axis=ax)
            pad = [(0, 0)] * z.ndim
            pad[ax] = (0, m - z.shape[ax])
            z = np.pad(z, pad)
        return np.fft.irfftn(z, s=n, axes=tuple(range(-k, 0)))
    return Row(op, lambda x, y: fn(C.complex(x, y), n), ref, [[F(*shape), F(*shape)]], label="%s %s" % (op, n))


ROWS = [
    _complex_row("FFT", S.fft, np.fft.fft, (2, 5)),
    _complex_row("IFFT", S.ifft, np.fft.ifft, (2, 6)),
    _complex_row("FFT2D", S.fft2d, np.fft.fft2, (2, 3, 4)),
    _complex_row("IFFT2D", S.ifft2d, np.fft.ifft2, (3, 4)),
    _complex_row("FFT3D", S.fft3d, lambda z: np.fft.fftn(z, axes=(-3, -2, -1)), (2, 2, 3)),
    _complex_row("IFFT3D", S.ifft3d, lambda z: np.fft.ifftn(z, axes=(-3, -2, -1)), (2, 3, 2)),
    _rfft_row("RFFT", S.rfft, 1, [6], (2, 6)),
    _rfft_row("RFFT", S.rfft, 1, [4], (2, 5)),
    _rfft_row("RFFT2D", S.rfft2d, 2, [3, 5], (2, 3, 4)),
    _rfft_row("RFFT3D", S.rfft3d, 3, [2, 2, 4], (2, 2, 4)),
    _irfft_row("IRFFT", S.irfft, 1, [8], (2, 5)),
    _irfft_row("IRFFT", S.irfft, 1, [5], (2, 4)),
    _irfft_row("IRFFT2D", S.irfft2d, 2, [3, 6], (3, 4)),
    _irfft_row("IRFFT3D", S.irfft3d, 3, [2, 2, 4], (2, 2, 3)),
    Row("FFTND", lambda x, y: _parts(S.fftnd(C.complex(x, y), axes=[0, 2])),
        lambda x, y: _np_parts(np.fft.fftn(_cplx(x, y), axes=[0, 2])), [[F(2, 3, 4), F(2, 3, 4)]], grad=False),
    Row("IFFTND", lambda x, y: _parts(S.ifftnd(C.complex(x, y), [3, 5], axes=[1, 2])),
        lambda x, y: _np_parts(np.fft.ifftn(_cplx(x, y), s=[3, 5], axes=[1, 2])), [[F(2, 3, 4), F(2, 3, 4)]],
        grad=False),
    Row("RFFTND", lambda x: _parts(S.rfftnd(x, axes=[0, 1])),
        lambda x: _np_parts(np.fft.rfftn(x, axes=[0, 1])), [[F(4, 6, 2)]], grad=False),
    Row("IRFFTND", lambda x, y: S.irfftnd(C.complex(x, y), [4, 6], axes=[0, 1]),
        lambda x, y: np.fft.irfftn(_cplx(x, y), s=[4, 6], axes=[0, 1]), [[F(4, 4), F(4, 4)]], grad=False),
    Row("Complex", lambda x, y: _parts(C.complex(x, y)), lambda x, y: [x + 0 * y, y + 0 * x], [[F(2, 3), F(2, 3)], [F(2, 3), F()]]),
    Row("Real", lambda x, y: C.real(C.complex(x, y)), lambda x, y: x, [[F(4), F(4)]]),
    Row("Imag", lambda x, y: C.imag(C.complex(x, y)), lambda x, y: y, [[F(4), F(4)]]),
    Row("Conj", lambda x, y: _parts(C.conj(C.complex(x, y))), lambda x, y: [x, -y], [[F(3), F(3)]]),
    Row("Angle", lambda x, y: C.angle(C.complex(x, y)), lambda x, y: np.arctan2(y, x),
        [[F(5, lo=0.3, hi=2.0), F(5)], [F(5, lo=-2.0, hi=-0.3), F(5, away=[(0.0, 0.2)])]]),
]
