"""The TF1 facade's namespaces (tf.nn, tf.train, ...) and the op-family names re-exported at top level."""
