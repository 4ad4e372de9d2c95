"""tf.nn.embedding_lookup_sparse and safe_embedding_lookup_sparse: embeddings of sparse id rows combined
by sum, mean or sqrtn (weighted when sp_weights is given); gradients reach params as IndexedSlices."""
import warnings

from lens.framework import dtypes as _dt
from lens.framework.graph import name_scope
from lens.framework.sparse_tensor import SparseTensor
from lens.ops import array as A
from lens.ops import math as M
from lens.ops.indexing import gather
from lens.ops.logic import greater, greater_equal, where
from lens.ops.nn_extra import embedding_lookup
from lens.ops.reduce import reduce_prod
from lens.ops.scan_ops import segment_sum, unique
from lens.ops.slicing import slice as _slice
from lens.ops.sparse_ops import sparse_fill_empty_rows, sparse_input, sparse_reshape, sparse_retain

__all__ = ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]

_COMBINERS = ("mean", "sqrtn", "sum")


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None, combiner=None,
                            max_norm=None):
    """One combined embedding per row of sp_ids ([rows, max ids]); rows past the last id are dropped."""
    if combiner is None:
        warnings.warn("The default value of combiner will change from \"mean\" to \"sqrtn\" after 2016/11/01.")
        combiner = "mean"
    if combiner not in _COMBINERS:
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")
    shards = list(params) if isinstance(params, (list, tuple)) else [params]
    sp_ids = sparse_input(sp_ids, "sp_ids")
    if sp_weights is not None:
        sp_weights = sparse_input(sp_weights, "sp_weights")
    with name_scope(name, "embedding_lookup_sparse", shards + [sp_ids.values]) as scope:
        segment_ids = A.cast(sp_ids.indices[:, 0], _dt.int32)
        ids, idx = unique(sp_ids.values)
        emb = embedding_lookup(params, ids, partition_strategy=partition_strategy, max_norm=max_norm)
        if sp_weights is None:
            rows = gather(emb, idx)
            total = segment_sum(rows, segment_ids)
            if combiner == "sum":
                return A.identity(total, name=scope)
            ones = A.ones_like(A.cast(segment_ids, emb.dtype.base_dtype))
            count = segment_sum(ones, segment_ids)
            if combiner == "sqrtn":
                count = M.sqrt(count)
            return M.div_no_nan(total, A.expand_dims(count, 1), name=scope)
        weights = A.cast(sp_weights.values, emb.dtype.base_dtype)
        rows = gather(emb, idx)
        shaped = A.reshape(weights, A.concat([A.shape(weights), A.ones([A.rank(rows) - 1], _dt.int32)], 0))
        total = segment_sum(M.multiply(rows, shaped), segment_ids)
        if combiner == "sum":
            return A.identity(total, name=scope)
        wsum = segment_sum(M.square(weights) if combiner == "sqrtn" else weights, segment_ids)
        if combiner == "sqrtn":
            wsum = M.sqrt(wsum)
        return M.divide(total, A.reshape(wsum, A.concat([A.shape(wsum), A.ones([A.rank(rows) - 1], _dt.int32)], 0)),
                        name=scope)


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, name=None, partition_strategy="div", max_norm=None):
    """embedding_lookup_sparse that drops invalid ids (< 0) and weights (<= 0) and gives empty rows the
    embedding of default_id (zeros when None); ids of any rank >= 2, the result has rank + dim - 1."""
    if embedding_weights is None:
        raise ValueError("Missing embedding_weights %s." % embedding_weights)
    shards = list(embedding_weights) if isinstance(embedding_weights, (list, tuple)) else [embedding_weights]
    if not shards:
        raise ValueError("Missing embedding_weights %s." % embedding_weights)
    sparse_ids = sparse_input(sparse_ids, "sparse_ids")
    with name_scope(name, "embedding_lookup", shards + [sparse_ids.values]) as scope:
        original_shape = sparse_ids.dense_shape
        rank = original_shape.shape.as_list()[0] if original_shape.shape.ndims == 1 else None
        if rank is None:
            raise ValueError("safe_embedding_lookup_sparse needs the static rank of sparse_ids")
        lead = _slice(original_shape, [0], [rank - 1])
        ids = sparse_reshape(sparse_ids, A.stack([reduce_prod(lead), gather(original_shape, rank - 1)]))
        weights = None
        if sparse_weights is not None:
            weights = SparseTensor(ids.indices, sparse_input(sparse_weights, "sparse_weights").values, ids.dense_shape)
        keep = greater_equal(ids.values, 0)
        ids, weights = sparse_retain(ids, keep), (None if weights is None else sparse_retain(weights, keep))
        if combiner != "sum" and weights is not None:
            keep = greater(weights.values, 0)
            ids, weights = sparse_retain(ids, keep), sparse_retain(weights, keep)
        ids, is_row_empty = sparse_fill_empty_rows(ids, default_id or 0)
        if weights is not None:
            weights, _ = sparse_fill_empty_rows(weights, 1.0)
        result = embedding_lookup_sparse(embedding_weights, ids, weights, combiner=combiner,
                                         partition_strategy=partition_strategy, max_norm=max_norm)
        if default_id is None:
            empty = A.tile(A.reshape(is_row_empty, [-1, 1]), A.stack([1, A.shape(result)[1]]))
            result = where(empty, A.zeros_like(result), result)
        final = A.reshape(result, A.concat([A.cast(lead, _dt.int32), _slice(A.shape(result), [1], [-1])], 0),
                          name=scope)
        final.set_shape([None] * (rank - 1) + result.shape.as_list()[1:] if result.shape.ndims else None)
        return final
