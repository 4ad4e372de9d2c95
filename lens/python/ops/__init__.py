"""`from lens.python.ops import resources`, as TF1's tensorflow.python.ops."""
from lens.ops import resources

__all__ = ["resources"]
