"""The autouse fixture of the engine test folders: every test starts on a fresh default graph."""
import pytest

import lens as tf


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()
