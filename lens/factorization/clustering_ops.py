"""TF's clustering kernels: NearestNeighbors and KmeansPlusPlusInitialization (NumPy)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework import errors
from lens.framework.convert import apply_op, convert_to_tensor
from lens.framework.graph import name_scope
from lens.framework.registry import register_op
from lens.framework.tensor_shape import TensorShape
from lens.ops.random import get_seed

__all__ = ["nearest_neighbors", "kmeans_plus_plus_initialization"]


def _squared_distances(points, centers):
    """|p - c|^2 for every pair, as |p|^2 - 2 p.c + |c|^2 (clipped at 0 against rounding)."""
    d = (np.sum(points * points, axis=1)[:, None] - 2.0 * points @ centers.T
         + np.sum(centers * centers, axis=1)[None, :])
    return np.maximum(d, 0)


def _nearest_make(op, ctx):
    def run(points, centers, k):
        points, centers, k = np.asarray(points), np.asarray(centers), int(k)
        if points.ndim != 2 or centers.ndim != 2 or points.shape[1] != centers.shape[1]:
            raise errors.InvalidArgumentError(None, op, "NearestNeighbors needs points [n, d] and centers [m, d] "
                                              "with the same d, got %s and %s"
                                              % (list(points.shape), list(centers.shape)))
        k = min(k, centers.shape[0])
        d = _squared_distances(points, centers)
        idx = np.argsort(d, axis=1, kind="stable")[:, :k]
        return idx.astype(np.int64), np.take_along_axis(d, idx, axis=1).astype(points.dtype)
    return run


register_op("NearestNeighbors", make=_nearest_make, not_differentiable=True,
            shape=lambda op: [TensorShape([op._inputs[0].shape[:1].as_list()[0], None])] * 2)


def nearest_neighbors(points, centers, k, name=None):
    """(indices int64 [n, k], squared euclidean distances [n, k]) of each point's k nearest centers."""
    with name_scope(name, "NearestNeighbors", [points, centers, k]) as scope:
        p = convert_to_tensor(points, name="points")
        c = convert_to_tensor(centers, dtype=p.dtype, name="centers")
        kk = convert_to_tensor(k, dtype=_dt.int64, name="k")
        return apply_op("NearestNeighbors", [(p, "points"), (c, "centers"), (kk, "k")], name=scope,
                        dtypes=[_dt.int64, p.dtype.base_dtype], same_dtype=False)


def _kmpp_make(op, ctx):
    gen = ctx.rng(op)

    def run(points, num_to_sample, num_retries):
        points = np.asarray(points)
        n, m = points.shape[0], int(num_to_sample)
        if m > n:
            raise errors.InvalidArgumentError(None, op, "num_to_sample (%d) exceeds the number of points (%d)"
                                              % (m, n))
        retries = int(num_retries)
        if retries < 0:
            retries = 2 + int(np.log(max(m, 1)))
        chosen = [int(gen.integers(n))]
        nearest = _squared_distances(points, points[chosen[0]][None])[:, 0]
        for _ in range(1, m):
            total = nearest.sum()
            if total <= 0:
                # Every point sits on a chosen center: pick uniformly.
                candidates = gen.integers(n, size=retries + 1)
            else:
                candidates = np.searchsorted(np.cumsum(nearest), gen.uniform(0, total, size=retries + 1))
                candidates = np.minimum(candidates, n - 1)
            # Of the candidates, keep the one that leaves the smallest potential (sum of distances).
            cand_d = np.minimum(nearest[None, :], _squared_distances(points[candidates], points))
            best = int(np.argmin(cand_d.sum(axis=1)))
            chosen.append(int(candidates[best]))
            nearest = cand_d[best]
        return points[chosen]
    return run


register_op("KmeansPlusPlusInitialization", make=_kmpp_make, not_differentiable=True, stateful=True,
            shape=lambda op: [TensorShape([None, op._inputs[0].shape.as_list()[-1]
                                           if op._inputs[0].shape.ndims else None])])


def kmeans_plus_plus_initialization(points, num_to_sample, seed, num_retries_per_sample, name=None):
    """num_to_sample rows of points chosen by k-means++ (each new one with probability ~ distance^2)."""
    seed1, seed2 = get_seed(seed or None)
    with name_scope(name, "KmeansPlusPlusInitialization", [points]) as scope:
        p = convert_to_tensor(points, name="points")
        n = convert_to_tensor(num_to_sample, dtype=_dt.int64, name="num_to_sample")
        r = convert_to_tensor(num_retries_per_sample, dtype=_dt.int64, name="num_retries_per_sample")
        return apply_op("KmeansPlusPlusInitialization", [(p, "points"), (n, "num_to_sample"),
                                                         (r, "num_retries_per_sample")],
                        {"seed": seed1 or 0, "seed2": seed2 or 0}, name=scope, dtypes=[p.dtype.base_dtype],
                        same_dtype=False)
