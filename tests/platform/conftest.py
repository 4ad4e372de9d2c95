"""Every test here starts on a fresh default graph."""
from tests.graph_fixture import fresh_graph  # noqa: F401
