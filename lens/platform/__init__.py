"""TF1's program scaffolding: tf.app, tf.flags, tf.logging, tf.test, tf.resource_loader (TF's python/platform)."""
