"""NumPy references for the RNN cells and drivers (written from the cell equations, loops over time)."""
import numpy as np


def sig(x):
    return 1.0 / (1.0 + np.exp(-x))


def basic_rnn_step(w, b):
    def step(x, h):
        out = np.tanh(np.concatenate([x, h], 1) @ w + b)
        return out, out
    return step


def basic_lstm_step(w, b, forget_bias=1.0):
    def step(x, state):
        c, h = state
        i, j, f, o = np.split(np.concatenate([x, h], 1) @ w + b, 4, axis=1)
        c = c * sig(f + forget_bias) + sig(i) * np.tanh(j)
        h = np.tanh(c) * sig(o)
        return h, (c, h)
    return step


def lstm_cell_step(w, b, forget_bias=1.0, peep=None, cell_clip=None, proj=None, proj_clip=None):
    def step(x, state):
        c_prev, m_prev = state
        i, j, f, o = np.split(np.concatenate([x, m_prev], 1) @ w + b, 4, axis=1)
        if peep is not None:
            wf, wi, wo = peep
            f = f + wf * c_prev
            i = i + wi * c_prev
        c = sig(f + forget_bias) * c_prev + sig(i) * np.tanh(j)
        if cell_clip is not None:
            c = np.clip(c, -cell_clip, cell_clip)
        if peep is not None:
            o = o + wo * c
        m = sig(o) * np.tanh(c)
        if proj is not None:
            m = m @ proj
            if proj_clip is not None:
                m = np.clip(m, -proj_clip, proj_clip)
        return m, (c, m)
    return step


def gru_step(wg, bg, wc, bc):
    def step(x, h):
        r, u = np.split(sig(np.concatenate([x, h], 1) @ wg + bg), 2, axis=1)
        cand = np.tanh(np.concatenate([x, r * h], 1) @ wc + bc)
        new_h = u * h + (1 - u) * cand
        return new_h, new_h
    return step


def multi_step(steps):
    def step(x, states):
        new = []
        for s, st in zip(steps, states):
            x, ns = s(x, st)
            new.append(ns)
        return x, tuple(new)
    return step


def _map(fn, *trees):
    if isinstance(trees[0], tuple):
        return tuple(_map(fn, *parts) for parts in zip(*trees))
    return fn(*trees)


def run(step, xs, state, lengths=None):
    """Batch-major xs [B, T, D]: outputs [B, T, H] and the final state, masked as TF1 masks."""
    outs = []
    for t in range(xs.shape[1]):
        out, new = step(xs[:, t], state)
        if lengths is not None:
            live = (t < np.asarray(lengths))[:, None]
            out = np.where(live, out, 0.0)
            new = _map(lambda old, nw: np.where(live, nw, old), state, new)
        outs.append(out)
        state = new
    return np.stack(outs, 1), state
