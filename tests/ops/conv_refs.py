"""Plain-loop NumPy references for convolution, pooling and LRN (slow on purpose: obviously right)."""
import numpy as np


def geometry(size, k, s, d, padding):
    """(out, pad_before) along one axis, from TF's documented SAME/VALID rules."""
    eff = (k - 1) * d + 1
    if padding == "SAME":
        out = -(-size // s)
        return out, max((out - 1) * s + eff - size, 0) // 2
    return (size - eff) // s + 1, 0


def _dims(x_shape, f_hw, s, d, padding):
    oh, pt = geometry(x_shape[1], f_hw[0], s[0], d[0], padding)
    ow, pl = geometry(x_shape[2], f_hw[1], s[1], d[1], padding)
    return oh, ow, pt, pl


def _inside(x_shape, r, c):
    return 0 <= r < x_shape[1] and 0 <= c < x_shape[2]


def conv2d(x, f, s=(1, 1), d=(1, 1), padding="SAME"):
    n, _, _, _ = x.shape
    kh, kw, _, o = f.shape
    oh, ow, pt, pl = _dims(x.shape, (kh, kw), s, d, padding)
    out = np.zeros((n, oh, ow, o))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for a in range(kh):
                    for e in range(kw):
                        r, c = i * s[0] + a * d[0] - pt, j * s[1] + e * d[1] - pl
                        if _inside(x.shape, r, c):
                            out[b, i, j] += x[b, r, c] @ f[a, e]
    return out


def conv2d_backprop_input(in_shape, f, dy, s=(1, 1), d=(1, 1), padding="SAME"):
    kh, kw, _, _ = f.shape
    oh, ow, pt, pl = _dims(in_shape, (kh, kw), s, d, padding)
    dx = np.zeros(in_shape)
    for b in range(in_shape[0]):
        for i in range(oh):
            for j in range(ow):
                for a in range(kh):
                    for e in range(kw):
                        r, c = i * s[0] + a * d[0] - pt, j * s[1] + e * d[1] - pl
                        if _inside(in_shape, r, c):
                            dx[b, r, c] += f[a, e] @ dy[b, i, j]
    return dx


def conv2d_backprop_filter(x, f_shape, dy, s=(1, 1), d=(1, 1), padding="SAME"):
    kh, kw = f_shape[:2]
    oh, ow, pt, pl = _dims(x.shape, (kh, kw), s, d, padding)
    df = np.zeros(f_shape)
    for b in range(x.shape[0]):
        for i in range(oh):
            for j in range(ow):
                for a in range(kh):
                    for e in range(kw):
                        r, c = i * s[0] + a * d[0] - pt, j * s[1] + e * d[1] - pl
                        if _inside(x.shape, r, c):
                            df[a, e] += np.outer(x[b, r, c], dy[b, i, j])
    return df


def depthwise(x, f, s=(1, 1), d=(1, 1), padding="SAME"):
    """Channel k * M + m of the output is channel k of x convolved with f[:, :, k, m]."""
    n, _, _, ch = x.shape
    kh, kw, _, m = f.shape
    oh, ow, pt, pl = _dims(x.shape, (kh, kw), s, d, padding)
    out = np.zeros((n, oh, ow, ch * m))
    for k in range(ch):
        for q in range(m):
            out[..., k * m + q] = conv2d(x[..., k:k + 1], f[:, :, k:k + 1, q:q + 1], s, d, padding)[..., 0]
    return out


def pool(x, k, s, padding, kind):
    n, _, _, ch = x.shape
    oh, ow, pt, pl = _dims(x.shape, k, s, (1, 1), padding)
    out = np.zeros((n, oh, ow, ch))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - pt, j * s[1] - pl
            win = x[:, max(r0, 0):r0 + k[0], max(c0, 0):c0 + k[1], :]
            out[:, i, j] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return out


def _first_max(x, b, c, i, j, k, s, pt, pl):
    """(row, col) of the first maximum (row-major) in output pixel (i, j)'s window."""
    best, at = -np.inf, None
    for a in range(k[0]):
        for e in range(k[1]):
            r, q = i * s[0] + a - pt, j * s[1] + e - pl
            if _inside(x.shape, r, q) and x[b, r, q, c] > best:
                best, at = x[b, r, q, c], (r, q)
    return at


def max_pool_grad(x, g, k, s, padding):
    """Each window's gradient goes to its first maximum (row-major within the window)."""
    n, _, _, ch = x.shape
    oh, ow, pt, pl = _dims(x.shape, k, s, (1, 1), padding)
    dx = np.zeros(x.shape)
    for b in range(n):
        for c in range(ch):
            for i in range(oh):
                for j in range(ow):
                    r, q = _first_max(x, b, c, i, j, k, s, pt, pl)
                    dx[b, r, q, c] += g[b, i, j, c]
    return dx


def max_pool_grad_grad(x, gg, k, s, padding):
    """gg picked at each window's first maximum."""
    n, _, _, ch = x.shape
    oh, ow, pt, pl = _dims(x.shape, k, s, (1, 1), padding)
    out = np.zeros((n, oh, ow, ch))
    for b in range(n):
        for c in range(ch):
            for i in range(oh):
                for j in range(ow):
                    r, q = _first_max(x, b, c, i, j, k, s, pt, pl)
                    out[b, i, j, c] = gg[b, r, q, c]
    return out


def avg_pool_grad(in_shape, g, k, s, padding):
    oh, ow, pt, pl = _dims(in_shape, k, s, (1, 1), padding)
    dx = np.zeros(in_shape)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - pt, j * s[1] - pl
            rs, cs = slice(max(r0, 0), min(r0 + k[0], in_shape[1])), slice(max(c0, 0), min(c0 + k[1], in_shape[2]))
            count = (rs.stop - rs.start) * (cs.stop - cs.start)
            dx[:, rs, cs, :] += g[:, i:i + 1, j:j + 1, :] / count
    return dx


def lrn(x, r, bias, alpha, beta):
    out = np.zeros(x.shape)
    ch = x.shape[-1]
    for c in range(ch):
        lo, hi = max(c - r, 0), min(c + r + 1, ch)
        out[..., c] = x[..., c] / (bias + alpha * (x[..., lo:hi] ** 2).sum(-1)) ** beta
    return out


def lrn_grad(g, x, r, bias, alpha, beta):
    """sum_c g_c d y_c / d x_j, written term by term."""
    ch = x.shape[-1]
    norm = np.zeros(x.shape)
    for c in range(ch):
        lo, hi = max(c - r, 0), min(c + r + 1, ch)
        norm[..., c] = bias + alpha * (x[..., lo:hi] ** 2).sum(-1)
    dx = g * norm ** -beta
    for c in range(ch):
        for j in range(max(c - r, 0), min(c + r + 1, ch)):
            dx[..., j] -= g[..., c] * x[..., c] * 2 * alpha * beta * x[..., j] * norm[..., c] ** (-beta - 1)
    return dx
