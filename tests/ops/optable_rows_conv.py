"""Op-table rows: convolutions, pooling, LRN, top_k, in_top_k, batch norm (loop references in conv_refs)."""
import numpy as np

import conv_refs as R
from lens.framework.convert import apply_op
from lens.ops import conv as C
from lens.ops import nn_extra as X
from lens.ops import pool as P
from optable_lib import FIX, F, Row

NCHW = (0, 3, 1, 2)
NHWC = (0, 2, 3, 1)


def _conv_rows():
    rows = []
    for label, s, d, pad in (("", (1, 1), (1, 1), "SAME"), ("-valid-stride2", (2, 2), (1, 1), "VALID"),
                             ("-same-stride21", (2, 1), (1, 1), "SAME"), ("-dilated", (1, 1), (2, 2), "SAME")):
        st, dl = [1, s[0], s[1], 1], [1, d[0], d[1], 1]
        oh, _ = R.geometry(5, 3, s[0], d[0], pad)
        ow, _ = R.geometry(6, 3, s[1], d[1], pad)
        rows += [
            Row("Conv2D", lambda x, f, st=st, dl=dl, pad=pad: C.conv2d(x, f, st, pad, dilations=dl),
                lambda x, f, s=s, d=d, pad=pad: R.conv2d(x, f, s, d, pad), [[F(2, 5, 6, 2), F(3, 3, 2, 3)]],
                label="Conv2D" + label),
            Row("Conv2DBackpropInput",
                lambda f, dy, st=st, dl=dl, pad=pad: C.conv2d_backprop_input([2, 5, 6, 2], f, dy, st, pad, dilations=dl),
                lambda f, dy, s=s, d=d, pad=pad: R.conv2d_backprop_input((2, 5, 6, 2), f, dy, s, d, pad),
                [[F(3, 3, 2, 3), F(2, oh, ow, 3)]], label="Conv2DBackpropInput" + label),
            Row("Conv2DBackpropFilter",
                lambda x, dy, st=st, dl=dl, pad=pad: C.conv2d_backprop_filter(x, [3, 3, 2, 3], dy, st, pad, dilations=dl),
                lambda x, dy, s=s, d=d, pad=pad: R.conv2d_backprop_filter(x, (3, 3, 2, 3), dy, s, d, pad),
                [[F(2, 5, 6, 2), F(2, oh, ow, 3)]], label="Conv2DBackpropFilter" + label),
            Row("DepthwiseConv2dNative",
                lambda x, f, st=st, dl=dl, pad=pad: C.depthwise_conv2d_native(x, f, st, pad, dilations=dl),
                lambda x, f, s=s, d=d, pad=pad: R.depthwise(x, f, s, d, pad), [[F(1, 5, 6, 2), F(3, 3, 2, 2)]],
                label="DepthwiseConv2dNative" + label),
        ]
        if label in ("", "-valid-stride2"):
            rows += [
                Row("DepthwiseConv2dNativeBackpropInput",
                    lambda f, dy, st=st, pad=pad: C.depthwise_conv2d_native_backprop_input([1, 5, 6, 2], f, dy, st, pad),
                    lambda f, dy, s=s, pad=pad: _dw_bp_input(f, dy, s, pad), [[F(3, 3, 2, 2), F(1, oh, ow, 4)]],
                    label="DepthwiseConv2dNativeBackpropInput" + label),
                Row("DepthwiseConv2dNativeBackpropFilter",
                    lambda x, dy, st=st, pad=pad: C.depthwise_conv2d_native_backprop_filter(x, [3, 3, 2, 2], dy, st, pad),
                    lambda x, dy, s=s, pad=pad: _dw_bp_filter(x, dy, s, pad), [[F(1, 5, 6, 2), F(1, oh, ow, 4)]],
                    label="DepthwiseConv2dNativeBackpropFilter" + label),
            ]
    return rows


def _channel_rows():
    """Conv2D and its backprops for 1 input channel (tap-major im2col) and 6 (row-major im2col)."""
    rows = []
    for label, c, s, d in (("-1ch", 1, (1, 1), (1, 1)), ("-1ch-stride21-dilated", 1, (2, 1), (1, 2)),
                           ("-6ch", 6, (1, 1), (1, 1)), ("-6ch-stride2-dilated", 6, (2, 2), (2, 1))):
        st, dl = [1, s[0], s[1], 1], [1, d[0], d[1], 1]
        oh, _ = R.geometry(6, 3, s[0], d[0], "SAME")
        ow, _ = R.geometry(5, 2, s[1], d[1], "SAME")
        rows += [
            Row("Conv2D", lambda x, f, st=st, dl=dl: C.conv2d(x, f, st, "SAME", dilations=dl),
                lambda x, f, s=s, d=d: R.conv2d(x, f, s, d, "SAME"), [[F(2, 6, 5, c), F(3, 2, c, 4)]],
                label="Conv2D" + label),
            Row("Conv2DBackpropInput",
                lambda f, dy, st=st, dl=dl, c=c: C.conv2d_backprop_input([2, 6, 5, c], f, dy, st, "SAME", dilations=dl),
                lambda f, dy, s=s, d=d, c=c: R.conv2d_backprop_input((2, 6, 5, c), f, dy, s, d, "SAME"),
                [[F(3, 2, c, 4), F(2, oh, ow, 4)]], label="Conv2DBackpropInput" + label),
            Row("Conv2DBackpropFilter",
                lambda x, dy, st=st, dl=dl, c=c: C.conv2d_backprop_filter(x, [3, 2, c, 4], dy, st, "SAME", dilations=dl),
                lambda x, dy, s=s, d=d, c=c: R.conv2d_backprop_filter(x, (3, 2, c, 4), dy, s, d, "SAME"),
                [[F(2, 6, 5, c), F(2, oh, ow, 4)]], label="Conv2DBackpropFilter" + label),
        ]
    return rows


def _dw_bp_input(f, dy, s, pad):
    """Depthwise backprop input: channel k gathers from its own M output channels."""
    m = f.shape[3]
    dx = np.zeros((1, 5, 6, 2))
    for k in range(2):
        dx[..., k:k + 1] = R.conv2d_backprop_input((1, 5, 6, 1), f[:, :, k:k + 1, :], dy[..., k * m:(k + 1) * m], s,
                                                   (1, 1), pad)
    return dx


def _dw_bp_filter(x, dy, s, pad):
    m = 2
    df = np.zeros((3, 3, 2, m))
    for k in range(2):
        df[:, :, k:k + 1, :] = R.conv2d_backprop_filter(x[..., k:k + 1], (3, 3, 1, m), dy[..., k * m:(k + 1) * m],
                                                        s, (1, 1), pad)
    return df


def _pool_rows():
    rows = []
    for label, k, s, pad, shape in (("", (2, 2), (2, 2), "VALID", (2, 4, 6, 3)),
                                    ("-same-overlap", (3, 3), (2, 1), "SAME", (1, 5, 4, 2)),
                                    ("-same-odd-padded", (2, 2), (2, 2), "SAME", (2, 5, 7, 3)),
                                    ("-valid-gaps", (2, 2), (3, 3), "VALID", (1, 7, 8, 2))):
        ks, st = [1, k[0], k[1], 1], [1, s[0], s[1], 1]
        oh, _ = R.geometry(shape[1], k[0], s[0], 1, pad)
        ow, _ = R.geometry(shape[2], k[1], s[1], 1, pad)
        out = (shape[0], oh, ow, shape[3])
        rows += [
            Row("MaxPool", lambda x, ks=ks, st=st, pad=pad: P.max_pool(x, ks, st, pad),
                lambda x, k=k, s=s, pad=pad: R.pool(x, k, s, pad, "max"), [[F(*shape)]], label="MaxPool" + label),
            Row("AvgPool", lambda x, ks=ks, st=st, pad=pad: P.avg_pool(x, ks, st, pad),
                lambda x, k=k, s=s, pad=pad: R.pool(x, k, s, pad, "avg"), [[F(*shape)]], label="AvgPool" + label),
            Row("MaxPoolGrad", lambda x, g, ks=ks, st=st, pad=pad: P.max_pool_grad(x, P.max_pool(x, ks, st, pad), g, ks, st, pad),
                lambda x, g, k=k, s=s, pad=pad: R.max_pool_grad(x, g, k, s, pad), [[F(*shape), F(*out)]],
                label="MaxPoolGrad" + label),
            Row("MaxPoolGradGrad",
                lambda x, gg, ks=ks, st=st, pad=pad: P._raw(
                    "MaxPoolGradGrad", [(x, "orig_input"), (P.max_pool(x, ks, st, pad), "orig_output"), (gg, "grad")],
                    {"ksize": ks, "strides": st, "padding": pad, "data_format": "NHWC"}, x.dtype.base_dtype),
                lambda x, gg, k=k, s=s, pad=pad: R.max_pool_grad_grad(x, gg, k, s, pad), [[F(*shape), F(*shape)]],
                label="MaxPoolGradGrad" + label),
            Row("AvgPoolGrad", lambda g, ks=ks, st=st, pad=pad, shape=shape: P.avg_pool_grad(list(shape), g, ks, st, pad),
                lambda g, k=k, s=s, pad=pad, shape=shape: R.avg_pool_grad(shape, g, k, s, pad), [[F(*out)]],
                label="AvgPoolGrad" + label),
        ]
    rows += [
        Row("MaxPool", lambda x: P.max_pool(x, [1, 1, 2, 2], [1, 1, 2, 2], "SAME", data_format="NCHW"),
            lambda x: R.pool(x.transpose(NHWC), (2, 2), (2, 2), "SAME", "max").transpose(NCHW), [[F(1, 2, 3, 5)]],
            label="MaxPool-NCHW"),
        Row("AvgPool", lambda x: P.avg_pool(x, [1, 1, 2, 2], [1, 1, 2, 2], "SAME", data_format="NCHW"),
            lambda x: R.pool(x.transpose(NHWC), (2, 2), (2, 2), "SAME", "avg").transpose(NCHW), [[F(1, 2, 3, 5)]],
            label="AvgPool-NCHW"),
    ]
    return rows


def _bn_train(x, s, o, axes=(0, 1, 2)):
    m, v = x.mean(axes), x.var(axes)
    n = x.size // m.size
    return (x - m) / np.sqrt(v + 1e-3) * s + o, m, v * n / (n - 1)


def _other_rows():
    return [
        Row("Conv2D", lambda x, f: C.conv2d(x, f, [1, 1, 2, 1], "SAME", data_format="NCHW"),
            lambda x, f: R.conv2d(x.transpose(NHWC), f, (2, 1)).transpose(NCHW), [[F(1, 2, 5, 4), F(2, 2, 2, 3)]],
            label="Conv2D-NCHW"),
        Row("Conv2DBackpropInput", lambda x, f: C.conv2d_transpose(x, f, [2, 6, 4, 2], [1, 2, 2, 1], "SAME"),
            lambda x, f: R.conv2d_backprop_input((2, 6, 4, 2), f, x, (2, 2)), [[F(2, 3, 2, 3), F(3, 3, 2, 3)]],
            label="conv2d_transpose"),
        Row("Conv2D", lambda x, f: C.conv1d(x, f, 2, "VALID"),
            lambda x, f: R.conv2d(x[:, None], f[None], (1, 2), padding="VALID")[:, 0], [[F(2, 7, 2), F(3, 2, 3)]],
            label="conv1d"),
        Row("DepthwiseConv2dNative", lambda x, f: C.depthwise_conv2d(x, f, [1, 1, 1, 1], "SAME", rate=2),
            lambda x, f: R.depthwise(x, f, d=(2, 2)), [[F(1, 5, 5, 2), F(2, 2, 2, 2)]], label="depthwise_conv2d-rate"),
        Row("DepthwiseConv2dNative", lambda x, f, p: C.separable_conv2d(x, f, p, [1, 1, 1, 1], "VALID"),
            lambda x, f, p: R.conv2d(R.depthwise(x, f, padding="VALID"), p, padding="VALID"),
            [[F(1, 4, 4, 2), F(2, 2, 2, 2), F(1, 1, 4, 3)]], label="separable_conv2d"),
        Row("Conv2D", lambda x, f: C.atrous_conv2d(x, f, 2, "VALID"),
            lambda x, f: R.conv2d(x, f, d=(2, 2), padding="VALID"), [[F(1, 6, 5, 2), F(2, 2, 2, 2)]],
            label="atrous_conv2d"),
        Row("LRN", lambda x: X.lrn(x, depth_radius=2, bias=1.0, alpha=0.5, beta=0.75),
            lambda x: R.lrn(x, 2, 1.0, 0.5, 0.75), [[F(2, 2, 1, 6)]]),
        Row("LRNGrad", lambda g, x: apply_op("LRNGrad", [(g, "input_grads"), (x, "input_image"),
                                                        (X.lrn(x, 1, 2.0, 0.3, 0.6), "output_image")],
                                             {"depth_radius": 1, "bias": 2.0, "alpha": 0.3, "beta": 0.6}),
            lambda g, x: R.lrn_grad(g, x, 1, 2.0, 0.3, 0.6), [[F(1, 2, 2, 5), F(1, 2, 2, 5)]], grad=False),
        Row("TopKV2", lambda x: list(X.top_k(x, 3)),
            lambda x: [np.sort(x, -1)[..., ::-1][..., :3], np.argsort(-x, -1, kind="stable")[..., :3].astype(np.int32)],
            [[F(4, 6)], [F(2, 2, 5)]]),
        Row("TopKV2", lambda x: list(X.top_k(x, 2)), lambda x: [np.array([[3., 3.]]), np.array([[1, 3]], np.int32)],
            [[FIX(np.array([[1., 3., 2., 3.]]))]], grad=False, label="TopKV2-ties-lower-index-first"),
        Row("InTopKV2", lambda p, t: X.in_top_k(p, t, 2), lambda p, t: np.array([True, False, True, False]),
            [[FIX(np.array([[0.1, 0.9, 0.5], [0.2, 0.3, 0.6], [0.5, 0.5, 0.5], [np.nan, 1., 2.]], np.float32)),
              FIX(np.array([2, 0, 1, 0], np.int32))]], grad=False),
        Row("FusedBatchNorm", lambda x, s, o: list(X.fused_batch_norm(x, s, o)), _bn_train,
            [[F(2, 3, 2, 4), F(4), F(4)]], label="FusedBatchNorm-train"),
        Row("FusedBatchNorm", lambda x, s, o: list(X.fused_batch_norm(x, s, o, data_format="NCHW")),
            lambda x, s, o: [a.transpose(NCHW) if a.ndim == 4 else a for a in _bn_train(x.transpose(NHWC), s, o)],
            [[F(2, 3, 2, 2), F(3), F(3)]], label="FusedBatchNorm-train-NCHW"),
        Row("FusedBatchNorm", lambda x, s, o, m, v: list(X.fused_batch_norm(x, s, o, m, v, is_training=False)),
            lambda x, s, o, m, v: [(x - m) / np.sqrt(v + 1e-3) * s + o, m, v],
            [[F(2, 2, 2, 3), F(3), F(3), F(3), F(3, lo=0.5, hi=2.0)]], label="FusedBatchNorm-inference"),
        Row("Rsqrt", lambda x, m, v, o, s: X.batch_normalization(x, m, v, o, s, 1e-3),
            lambda x, m, v, o, s: (x - m) / np.sqrt(v + 1e-3) * s + o,
            [[F(3, 4), F(4), F(4, lo=0.5, hi=2.0), F(4), F(4)]], label="batch_normalization"),
        Row("GatherV2", lambda p, i: X.embedding_lookup(p, i), lambda p, i: p[i],
            [[F(5, 3), FIX([[4, 0], [2, 2]], np.int32)]], label="embedding_lookup"),
        Row("GatherV2", lambda p, q, i: X.embedding_lookup([p, q], i),
            lambda p, q, i: np.stack([p, q], 1).reshape(6, 2)[i], [[F(3, 2), F(3, 2), FIX([5, 0, 3, 2], np.int64)]],
            label="embedding_lookup-mod-shards"),
        Row("Relu", lambda x: X.crelu(x), lambda x: np.maximum(np.concatenate([x, -x], -1), 0),
            [[F(3, 2, away=[(0.0, 0.1)])]], label="crelu"),
    ]


ROWS = _conv_rows() + _channel_rows() + _pool_rows() + _other_rows()
