"""tf.estimator canned estimators."""
