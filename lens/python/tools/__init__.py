"""TF1's `tensorflow.python.tools` paths under lens (inspect_checkpoint)."""
