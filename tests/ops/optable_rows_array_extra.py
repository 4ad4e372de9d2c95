"""Op-table rows: space_to_depth / depth_to_space (references built block offset by block offset)."""
import numpy as np

import lens as tf
from optable_lib import F, Row


def _space_to_depth(x, b=2):
    n, h, w, c = x.shape
    out = np.empty((n, h // b, w // b, b * b * c), x.dtype)
    for bi in range(b):
        for bj in range(b):
            k = bi * b + bj
            out[..., k * c:(k + 1) * c] = x[:, bi::b, bj::b, :]
    return out


def _depth_to_space(x, b=2):
    n, h, w, cb = x.shape
    c = cb // (b * b)
    out = np.empty((n, h * b, w * b, c), x.dtype)
    for bi in range(b):
        for bj in range(b):
            k = bi * b + bj
            out[:, bi::b, bj::b, :] = x[..., k * c:(k + 1) * c]
    return out


ROWS = [
    Row("SpaceToDepth", lambda x: tf.space_to_depth(x, 2), _space_to_depth,
        [[F(2, 4, 6, 3)], [F(1, 2, 2, 1)]]),
    Row("DepthToSpace", lambda x: tf.depth_to_space(x, 2), _depth_to_space,
        [[F(2, 2, 3, 8)], [F(1, 1, 1, 4)]]),
]
