"""One local Ray instance for these tests (2 CPUs, loopback only, no dashboard), shut down after them."""
import pytest


@pytest.fixture(scope="package")
def ray_instance():
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", namespace="lens",
                 log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()
