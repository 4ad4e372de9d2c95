"""Op-table rows: Conv3D and its backprop ops, MaxPool3D / AvgPool3D and their grad ops, SpaceToBatchND /
BatchToSpaceND, against direct per-output-position NumPy references."""
import numpy as np

from lens.ops import conv3d as C
from lens.ops import space_batch as S
from optable_lib import F, FIX, Row


def _pad_geom(n, k, s, d, padding):
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return (n - eff) // s + 1, 0
    out = -(-n // s)
    return out, max(0, (out - 1) * s + eff - n) // 2


def conv3d_ref(x, f, strides, padding, dil=(1, 1, 1)):
    geo = [_pad_geom(n, k, s, d, padding) for n, k, s, d in zip(x.shape[1:4], f.shape[:3], strides, dil)]
    out = np.zeros((x.shape[0],) + tuple(g[0] for g in geo) + (f.shape[4],))
    for o in np.ndindex(*[g[0] for g in geo]):
        for k in np.ndindex(*f.shape[:3]):
            pos = [oi * s - g[1] + ki * d for oi, s, g, ki, d in zip(o, strides, geo, k, dil)]
            if all(0 <= p < n for p, n in zip(pos, x.shape[1:4])):
                out[(slice(None),) + o] += x[(slice(None),) + tuple(pos)] @ f[k]
    return out.astype(x.dtype)


def pool3d_ref(x, k, strides, padding, kind):
    geo = [_pad_geom(n, kk, s, 1, padding) for n, kk, s in zip(x.shape[1:4], k, strides)]
    out = np.zeros((x.shape[0],) + tuple(g[0] for g in geo) + (x.shape[4],))
    for o in np.ndindex(*[g[0] for g in geo]):
        lo = [oi * s - g[1] for oi, s, g in zip(o, strides, geo)]
        sl = tuple(slice(max(l, 0), min(l + kk, n)) for l, kk, n in zip(lo, k, x.shape[1:4]))
        win = x[(slice(None),) + sl + (slice(None),)]
        out[(slice(None),) + o] = win.max(axis=(1, 2, 3)) if kind == "max" else win.mean(axis=(1, 2, 3))
    return out.astype(x.dtype)


def s2b_ref(x, block, pads):
    x = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - len(block)))
    outs = []
    for offs in np.ndindex(*block):   # batch index = offset-major, as TF's
        sl = tuple(slice(o, None, b) for o, b in zip(offs, block))
        outs.append(x[(slice(None),) + sl])
    return np.concatenate(outs, 0)


_SHAPE = [2, 4, 5, 3, 2]


ROWS = [
    Row("Conv3D", lambda x, f: C.conv3d(x, f, [1, 1, 2, 1, 1], "SAME"),
        lambda x, f: conv3d_ref(x, f, [1, 2, 1], "SAME"), [[F(2, 4, 5, 3, 2), F(2, 3, 2, 2, 3)]]),
    Row("Conv3D", lambda x, f: C.conv3d(x, f, [1, 1, 1, 1, 1], "VALID", dilations=[1, 2, 1, 1, 1]),
        lambda x, f: conv3d_ref(x, f, [1, 1, 1], "VALID", (2, 1, 1)), [[F(1, 5, 3, 3, 2), F(2, 2, 2, 2, 2)]],
        label="Conv3D dilated VALID"),
    Row("Conv3D", lambda x, f: C.conv3d(x, f, [1, 1, 1, 2, 2], "SAME", data_format="NCDHW"),
        lambda x, f: np.moveaxis(conv3d_ref(np.moveaxis(x, 1, -1), f, [1, 2, 2], "SAME"), -1, 1),
        [[F(1, 2, 3, 4, 4), F(2, 2, 2, 2, 3)]], label="Conv3D NCDHW"),
    Row("Conv3DBackpropInputV2", lambda f, dy: C.conv3d_backprop_input_v2(_SHAPE, f, dy, [1, 1, 2, 1, 1], "SAME"),
        lambda f, dy: np.einsum("nabco,nabco->", dy, dy) * 0 + _bp_input_ref(f, dy),
        [[F(2, 3, 2, 2, 3), F(2, 4, 3, 3, 3)]]),
    Row("Conv3DBackpropFilterV2", lambda x, dy: C.conv3d_backprop_filter_v2(x, [2, 3, 2, 2, 3], dy,
                                                                             [1, 1, 2, 1, 1], "SAME"),
        lambda x, dy: _bp_filter_ref(x, dy), [[F(*_SHAPE), F(2, 4, 3, 3, 3)]]),
    Row("MaxPool3D", lambda x: C.max_pool3d(x, [1, 2, 2, 2, 1], [1, 2, 1, 2, 1], "SAME"),
        lambda x: pool3d_ref(x, [2, 2, 2], [2, 1, 2], "SAME", "max"), [[F(2, 3, 4, 5, 2)]]),
    Row("AvgPool3D", lambda x: C.avg_pool3d(x, [1, 2, 3, 2, 1], [1, 1, 2, 2, 1], "SAME"),
        lambda x: pool3d_ref(x, [2, 3, 2], [1, 2, 2], "SAME", "avg"), [[F(2, 3, 4, 5, 2)]]),
    Row("AvgPool3D", lambda x: C.avg_pool3d(x, [1, 1, 2, 2, 2], [1, 1, 2, 2, 2], "VALID", data_format="NCDHW"),
        lambda x: np.moveaxis(pool3d_ref(np.moveaxis(x, 1, -1), [2, 2, 2], [2, 2, 2], "VALID", "avg"), -1, 1),
        [[F(1, 2, 4, 4, 5)]], label="AvgPool3D NCDHW"),
    Row("MaxPool3DGrad", lambda x, g: C._raw("MaxPool3DGrad", [(x, "orig_input"), (C.max_pool3d(
        x, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"), "orig_output"), (g, "grad")],
        {"ksize": [1, 2, 2, 2, 1], "strides": [1, 2, 2, 2, 1], "padding": "VALID", "data_format": "NDHWC"}, x.dtype),
        lambda x, g: _max_grad_ref(x, g), [[F(1, 4, 4, 2, 2), F(1, 2, 2, 1, 2)]], grad=False),
    Row("AvgPool3DGrad", lambda g: C._raw("AvgPool3DGrad", [(C.convert_to_tensor([1, 3, 4, 4, 2]), "shape"), (g, "g")],
                                         {"ksize": [1, 2, 2, 2, 1], "strides": [1, 1, 2, 2, 1], "padding": "SAME",
                                          "data_format": "NDHWC"}, g.dtype),
        lambda g: _avg_grad_ref(g), [[F(1, 3, 2, 2, 2)]]),
    Row("SpaceToBatchND", lambda x: S.space_to_batch_nd(x, [2, 3], [[1, 1], [0, 2]]),
        lambda x: s2b_ref(x, [2, 3], [[1, 1], [0, 2]]), [[F(2, 4, 4, 2)]]),
    Row("BatchToSpaceND", lambda x: S.batch_to_space_nd(x, [2, 2], [[0, 1], [1, 0]]),
        lambda x: _b2s_ref(x, [2, 2], [[0, 1], [1, 0]]), [[F(8, 2, 3, 1)]]),
]
_ = FIX


def _bp_input_ref(f, dy):
    """d <conv3d(x, f), dy> / dx by linearity: one basis input at a time."""
    out = np.zeros(_SHAPE)
    e = np.zeros(_SHAPE)
    for k in np.ndindex(*_SHAPE):
        e[k] = 1.0
        out[k] = (conv3d_ref(e, f.astype(np.float64), [1, 2, 1], "SAME") * dy).sum()
        e[k] = 0.0
    return out.astype(f.dtype)


def _bp_filter_ref(x, dy):
    fs = [2, 3, 2, 2, 3]
    out, e = np.zeros(fs), np.zeros(fs)
    for k in np.ndindex(*fs):
        e[k] = 1.0
        out[k] = (conv3d_ref(x.astype(np.float64), e, [1, 2, 1], "SAME") * dy).sum()
        e[k] = 0.0
    return out.astype(x.dtype)


def _max_grad_ref(x, g):
    out = np.zeros_like(x)
    for o in np.ndindex(*g.shape[1:4]):
        win = x[0, o[0] * 2:o[0] * 2 + 2, o[1] * 2:o[1] * 2 + 2, o[2] * 2:o[2] * 2 + 2]
        for c in range(x.shape[4]):
            i = np.unravel_index(np.argmax(win[..., c]), win.shape[:3])
            out[(0, o[0] * 2 + i[0], o[1] * 2 + i[1], o[2] * 2 + i[2], c)] += g[(0,) + o + (c,)]
    return out


def _avg_grad_ref(g):
    shape = [1, 3, 4, 4, 2]
    out, e = np.zeros(shape), np.zeros(shape)
    for k in np.ndindex(*shape):
        e[k] = 1.0
        out[k] = (pool3d_ref(e, [2, 2, 2], [1, 2, 2], "SAME", "avg") * g).sum()
        e[k] = 0.0
    return out.astype(g.dtype)


def _b2s_ref(x, block, crops):
    b = x.shape[0] // int(np.prod(block))
    h, w = x.shape[1] * block[0], x.shape[2] * block[1]
    out = np.zeros((b, h, w) + x.shape[3:], x.dtype)
    for i, offs in enumerate(np.ndindex(*block)):
        out[:, offs[0]::block[0], offs[1]::block[1]] = x[i * b:(i + 1) * b]
    return out[:, crops[0][0]:h - crops[0][1], crops[1][0]:w - crops[1][1]]
