"""Reading TensorFlow checkpoints without the engine: the index table, tensor-bundle entries and
numeric tensor values (the board's projector reads embeddings through here).

lens.training's Saver and CheckpointReader build on the same table reader and add writing,
string tensors, slices and TensorFlow's exception classes.
"""
