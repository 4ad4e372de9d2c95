"""Small synthetic regression/classification data shared by the estimator tests."""
import numpy as np
import pytest


@pytest.fixture
def data():
    """200 examples of 3 features; y = x @ (1, -2, 0.5) + 0.3 and its sign as a class."""
    rng = np.random.RandomState(0)
    x = rng.randn(200, 3).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)
    return x, y, (y > 0).astype(np.int64)
