"""tf.feature_column: TF1.15's feature columns over lens ops (categorical ids kept dense)."""
from lens.feature_column.categorical import (categorical_column_with_hash_bucket,
                                             categorical_column_with_identity,
                                             categorical_column_with_vocabulary_file,
                                             categorical_column_with_vocabulary_list, crossed_column)
from lens.feature_column.dense import (bucketized_column, embedding_column, indicator_column,
                                       numeric_column)
from lens.feature_column.layers import input_layer, linear_model, make_parse_example_spec

__all__ = ["numeric_column", "bucketized_column", "categorical_column_with_vocabulary_list",
           "categorical_column_with_vocabulary_file", "categorical_column_with_identity",
           "categorical_column_with_hash_bucket", "crossed_column", "embedding_column",
           "indicator_column", "input_layer", "linear_model", "make_parse_example_spec"]
