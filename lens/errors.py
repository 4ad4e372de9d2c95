"""tf.errors: TensorFlow's exception classes and error codes (names only; defined in lens.framework.errors)."""
from lens.framework.errors import *  # noqa: F401,F403
