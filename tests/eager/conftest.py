"""Eager mode is process-wide (TF1): each eager test switches it on from a clean default graph
and back off afterwards, so the rest of the suite runs in graph mode whatever the order."""
import pytest

import lens as tf
from lens.framework import eager


@pytest.fixture
def eager_mode():
    """Eager execution for one test."""
    tf.reset_default_graph()
    tf.enable_eager_execution()
    try:
        yield
    finally:
        eager.disable_eager_execution()
