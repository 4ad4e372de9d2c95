"""tf.contrib.factorization.KMeans: the k-means training graph of TF1.15 (Lloyd or mini-batch steps)."""
import numpy as np

from lens.framework import dtypes as _dt
from lens.framework.convert import convert_to_tensor
from lens.framework.graph import control_dependencies
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.control_flow_assert import assert_equal
from lens.ops.control_flow_cond import cond
from lens.ops.core import group, identity, placeholder_with_default
from lens.ops.indexing import gather, unsorted_segment_sum
from lens.ops.linalg import matmul
from lens.ops.logic import equal
from lens.ops.nn import l2_normalize
from lens.ops.random import random_uniform
from lens.ops.reduce import reduce_sum
from lens.ops.scan_ops import unique
from lens.ops.state_scatter import scatter_add
from lens.ops.variables import Variable, assign
from lens.factorization.clustering_ops import kmeans_plus_plus_initialization, nearest_neighbors

__all__ = ["KMeans", "COSINE_DISTANCE", "SQUARED_EUCLIDEAN_DISTANCE", "RANDOM_INIT", "KMEANS_PLUS_PLUS_INIT",
           "KMC2_INIT", "CLUSTERS_VAR_NAME"]

SQUARED_EUCLIDEAN_DISTANCE = "squared_euclidean"
COSINE_DISTANCE = "cosine"
RANDOM_INIT = "random"
KMEANS_PLUS_PLUS_INIT = "kmeans_plus_plus"
KMC2_INIT = "kmc2"
CLUSTERS_VAR_NAME = "clusters"


class KMeans:
    """Builds the graph of one k-means step over inputs (a Tensor or a list of Tensors)."""

    def __init__(self, inputs, num_clusters, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, use_mini_batch=False,
                 mini_batch_steps_per_iteration=1, random_seed=0, kmeans_plus_plus_num_retries=2,
                 kmc2_chain_length=200):
        if distance_metric not in (SQUARED_EUCLIDEAN_DISTANCE, COSINE_DISTANCE):
            raise ValueError("Unsupported distance metric %r: use 'squared_euclidean' or 'cosine'"
                             % (distance_metric,))
        if isinstance(initial_clusters, str) and initial_clusters not in (RANDOM_INIT, KMEANS_PLUS_PLUS_INIT):
            raise ValueError("Unsupported initial_clusters %r: lens has 'random', 'kmeans_plus_plus', a callable "
                             "or a Tensor/array of centers (not 'kmc2')" % (initial_clusters,))
        if int(mini_batch_steps_per_iteration) != 1:
            raise ValueError("mini_batch_steps_per_iteration=%r: lens supports 1 (an update every step)"
                             % (mini_batch_steps_per_iteration,))
        self._inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        self._num_clusters = num_clusters
        self._initial_clusters = initial_clusters
        self._distance_metric = distance_metric
        self._use_mini_batch = use_mini_batch
        self._random_seed = random_seed
        self._kmeans_plus_plus_num_retries = kmeans_plus_plus_num_retries

    def _clusters_l2_normalized(self):
        """Full-batch cosine keeps its centers normalized; mini-batch normalizes them when measuring."""
        return self._distance_metric == COSINE_DISTANCE and not self._use_mini_batch

    @staticmethod
    def _distance_graph(inputs, clusters, metric):
        """One [n, k] distance matrix per input (inputs already normalized for cosine)."""
        if metric == COSINE_DISTANCE:
            c = l2_normalize(clusters, axis=1)
            return [M.subtract(1.0, matmul(inp, c, transpose_b=True)) for inp in inputs]
        c2 = A.expand_dims(_row_sq(clusters), 0)
        out = []
        for inp in inputs:
            x2 = A.expand_dims(_row_sq(inp), 1)
            out.append(M.add(M.subtract(x2, M.multiply(2.0, matmul(inp, clusters, transpose_b=True))), c2))
        return out

    def _infer_graph(self, inputs, clusters):
        """(all_scores, scores, cluster_idx) lists, one entry per input."""
        all_scores = self._distance_graph(inputs, clusters, self._distance_metric)
        if self._distance_metric == COSINE_DISTANCE and not self._clusters_l2_normalized():
            clusters = l2_normalize(clusters, axis=1)
        scores, idx = [], []
        for inp in inputs:
            indices, distances = nearest_neighbors(inp, clusters, 1)
            if self._distance_metric == COSINE_DISTANCE:
                # Squared distance between unit vectors is 2 (1 - cos).
                distances = M.multiply(distances, 0.5)
            scores.append(A.squeeze(distances, [-1]))
            idx.append(A.squeeze(indices, [-1]))
        return all_scores, scores, idx

    def _create_variables(self, num_clusters):
        """The centers (shape set at initialization), the initialized flag and mini-batch counts."""
        init_value = placeholder_with_default(np.zeros([0], np.float32), shape=None)
        centers = Variable(init_value, name=CLUSTERS_VAR_NAME, validate_shape=False)
        initialized = Variable(False, dtype=_dt.bool, name="initialized")
        # A Python count keeps the counts' shape static (TF infers it from the constant).
        k = self._num_clusters if isinstance(self._num_clusters, (int, np.integer)) else num_clusters
        counts = (Variable(A.ones([k], dtype=_dt.int64), validate_shape=isinstance(k, (int, np.integer)))
                  if self._use_mini_batch else None)
        return centers, initialized, counts

    def _choose_new_centers(self, inputs, num_remaining, num_data):
        first = inputs[0]
        if callable(self._initial_clusters):
            return convert_to_tensor(self._initial_clusters(first, num_remaining))
        if self._initial_clusters == KMEANS_PLUS_PLUS_INIT:
            return kmeans_plus_plus_initialization(first, M.cast(num_remaining, _dt.int64), self._random_seed,
                                                   self._kmeans_plus_plus_num_retries)
        # Random: rows picked uniformly (with replacement), as TF's _random.
        rows = random_uniform(A.reshape(num_remaining, [1]), 0, M.cast(num_data, _dt.int64), dtype=_dt.int64,
                              seed=self._random_seed or None)
        return gather(first, rows)

    def _init_op(self, inputs, num_clusters, centers, initialized):
        """Chooses the centers still missing, once; afterwards asserts initialized."""
        num_selected = A.shape(centers)[0]
        num_remaining = M.subtract(num_clusters, num_selected)
        num_data = M.add_n([A.shape(i)[0] for i in inputs])

        def _initialize():
            if isinstance(self._initial_clusters, str) or callable(self._initial_clusters):
                new = self._choose_new_centers(inputs, num_remaining, num_data)
            else:
                new = convert_to_tensor(self._initial_clusters, dtype=inputs[0].dtype)
            if self._distance_metric == COSINE_DISTANCE:
                new = l2_normalize(new, axis=1)
            # An empty centers variable has no row shape, so concat only when some exist.
            all_centers = cond(equal(num_selected, 0), lambda: new,
                               lambda: A.concat([centers, new], 0))
            a = assign(centers, all_centers, validate_shape=False)
            return assign(initialized, equal(A.shape(a)[0], num_clusters))

        return cond(equal(num_remaining, 0), lambda: _identity_after(assert_equal(initialized, True), initialized),
                    _initialize)

    def _mini_batch_training_op(self, inputs, cluster_idx_list, centers, counts):
        """x += (sum of new points - k x) / (n + k) for each center hit by k points (old count n)."""
        updates = []
        for inp, idx in zip(inputs, cluster_idx_list):
            idx = A.reshape(idx, [-1])
            unique_ids, unique_idx = unique(idx)
            n_unique = A.size(unique_ids)
            old_counts = gather(counts, unique_ids)
            old_centers = gather(centers, unique_ids)
            count_updates = unsorted_segment_sum(A.ones_like(unique_idx, dtype=_dt.int64), unique_idx, n_unique)
            sums = unsorted_segment_sum(inp, unique_idx, n_unique)
            deltas = M.subtract(sums, M.multiply(M.cast(A.expand_dims(count_updates, 1), inp.dtype),
                                                 old_centers))
            rate = M.divide(1.0, M.cast(M.add(old_counts, count_updates), inp.dtype))
            deltas = M.multiply(deltas, A.expand_dims(rate, 1))
            updates.append(group(scatter_add(centers, unique_ids, deltas),
                                 scatter_add(counts, unique_ids, count_updates)))
        return group(*updates)

    def _full_batch_training_op(self, inputs, num_clusters, cluster_idx_list, centers):
        """Every center becomes the mean of its points (a Lloyd step)."""
        sums, cnts = [], []
        for inp, idx in zip(inputs, cluster_idx_list):
            sums.append(unsorted_segment_sum(inp, idx, num_clusters))
            ones = A.reshape(A.ones(A.reshape(A.shape(inp)[0], [-1])), [-1, 1])
            cnts.append(unsorted_segment_sum(ones, idx, num_clusters))
        new = M.divide(M.add_n(sums), M.add(M.cast(M.add_n(cnts), sums[0].dtype), 1e-6))
        if self._clusters_l2_normalized():
            new = l2_normalize(new, axis=1)
        return assign(centers, new)

    def training_graph(self):
        """(all_scores, cluster_idx, scores, cluster_centers_initialized, cluster_centers_var, init_op,
        training_op), as TF1.15; the first three are lists with one entry per input."""
        if isinstance(self._initial_clusters, str) or callable(self._initial_clusters):
            num_clusters = convert_to_tensor(self._num_clusters)
        else:
            num_clusters = A.shape(convert_to_tensor(self._initial_clusters))[0]
        inputs = self._inputs
        centers, initialized, counts = self._create_variables(num_clusters)
        init_op = self._init_op(inputs, num_clusters, centers, initialized)
        if self._distance_metric == COSINE_DISTANCE:
            inputs = [l2_normalize(i, axis=1) for i in inputs]
        all_scores, scores, cluster_idx = self._infer_graph(inputs, centers)
        if self._use_mini_batch:
            training_op = self._mini_batch_training_op(inputs, cluster_idx, centers, counts)
        else:
            training_op = self._full_batch_training_op(inputs, num_clusters, cluster_idx, centers)
        return all_scores, cluster_idx, scores, initialized, centers, init_op, training_op


def _row_sq(x):
    """Row-wise squared norms."""
    return reduce_sum(M.multiply(x, x), axis=1)


def _identity_after(dep, value):
    """value read after dep ran."""
    with control_dependencies([dep]):
        return identity(value)
