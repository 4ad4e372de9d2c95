"""input_layer, linear_model and make_parse_example_spec over feature columns (TF1.15's scopes)."""
from lens.framework import dtypes as _dt
from lens.framework.graph import GraphKeys
from lens.feature_column.base import CategoricalColumn, DenseColumn, FeatureColumn, LazyBuilder
from lens.feature_column.dense import combine_rows, flat_2d
from lens.ops import array as A
from lens.ops import init_ops
from lens.ops.linalg import matmul
from lens.ops.math import add_n
from lens.ops.nn import bias_add
from lens.ops.variable_scope import get_variable, variable_scope

__all__ = ["input_layer", "linear_model", "make_parse_example_spec"]


def normalize_columns(feature_columns):
    """A list of distinct feature columns (TF1's checks and messages)."""
    if isinstance(feature_columns, FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    feature_columns = list(feature_columns)
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    names = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError("Items of feature_columns must be a _FeatureColumn. Given (type {}): {}.".format(
                type(column), column))
        if column.name in names:
            raise ValueError("Duplicate feature column name found for columns: {} and {}. This usually "
                             "means that these columns refer to same base feature. Either one must be "
                             "discarded or a duplicated but renamed item must be inserted in features "
                             "dict.".format(column, names[column.name]))
        names[column.name] = column
    return feature_columns


def _collections(weight_collections):
    return list(set([GraphKeys.GLOBAL_VARIABLES] + list(weight_collections or [])))


def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """One dense [batch, sum of widths] tensor: the columns, sorted by name, side by side."""
    feature_columns = normalize_columns(feature_columns)
    for column in feature_columns:
        if not isinstance(column, DenseColumn):
            raise ValueError("Items of feature_columns must be a _DenseColumn. You can wrap a categorical "
                             "column with an embedding_column or indicator_column. Given: {}".format(column))
    builder = LazyBuilder(features)
    outputs = []
    with variable_scope(None, default_name="input_layer", values=list(features.values())):
        for column in sorted(feature_columns, key=lambda c: c.name):
            with variable_scope(None, default_name=column.var_scope_name) as scope:
                tensor = column.get_dense_tensor(builder, trainable=trainable)
                out = flat_2d(tensor, column.variable_shape.num_elements())
                outputs.append(out)
                if cols_to_vars is not None:
                    cols_to_vars[column] = _scope_vars(scope.name)
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = out
        return A.concat(outputs, 1)


def _scope_vars(scope_name):
    from lens.ops.variables import global_variables
    return [v for v in global_variables() if v.op.name.startswith(scope_name + "/")]


def _weighted_sum(column, builder, units, sparse_combiner, trainable):
    if isinstance(column, CategoricalColumn):
        weights = get_variable("weights", shape=[column.num_buckets, units], dtype=_dt.float32,
                               initializer=init_ops.zeros_initializer(), trainable=trainable)
        return combine_rows(weights, column.get_id_tensor(builder).ids, sparse_combiner)
    n = column.variable_shape.num_elements()
    weights = get_variable("weights", shape=[n, units], dtype=_dt.float32,
                           initializer=init_ops.zeros_initializer(), trainable=trainable)
    dense = flat_2d(column.get_dense_tensor(builder, trainable=trainable), n)
    return matmul(dense, weights, name="weighted_sum")


def linear_model(features, feature_columns, units=1, sparse_combiner="sum", weight_collections=None,
                 trainable=True, cols_to_vars=None):
    """sum over columns of input @ weights, plus bias_weights: [batch, units] predictions."""
    feature_columns = normalize_columns(feature_columns)
    if sparse_combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError('sparse_combiner must be "mean", "sqrtn" or "sum", got {!r}'.format(sparse_combiner))
    for column in feature_columns:
        if not isinstance(column, (DenseColumn, CategoricalColumn)):
            raise ValueError("Items of feature_columns must be either a _DenseColumn or _CategoricalColumn. "
                             "Given: {}".format(column))
    builder = LazyBuilder(features)
    sums = []
    with variable_scope(None, default_name="linear_model", values=list(features.values())):
        for column in sorted(feature_columns, key=lambda c: c.name):
            with variable_scope(None, default_name=column.var_scope_name) as scope:
                sums.append(_weighted_sum(column, builder, units, sparse_combiner, trainable))
                if cols_to_vars is not None:
                    cols_to_vars[column] = _scope_vars(scope.name)
        bias = get_variable("bias_weights", shape=[units], dtype=_dt.float32,
                            initializer=init_ops.zeros_initializer(), trainable=trainable)
        if cols_to_vars is not None:
            cols_to_vars["bias"] = [bias]
        no_bias = add_n(sums, name="weighted_sum_no_bias") if len(sums) > 1 else sums[0]
        return bias_add(no_bias, bias, name="weighted_sum")


def make_parse_example_spec(feature_columns):
    """{feature key: FixedLenFeature / VarLenFeature} for parse_example, merged over the columns."""
    result = {}
    for column in feature_columns:
        if not isinstance(column, FeatureColumn):
            raise ValueError("All feature_columns must be _FeatureColumn instances. Given: {}".format(column))
        for key, value in column.parse_example_spec.items():
            if key in result and result[key] != value:
                raise ValueError("feature_columns contain different parse_spec for key {}. Given {} and {}"
                                 .format(key, result[key], value))
        result.update(column.parse_example_spec)
    return result
