"""One local Ray instance for these tests (2 CPUs, loopback only, no dashboard), shut down after them,
and one 2-worker/1-ps cluster on it that the modules running plain sessions share."""
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


@pytest.fixture(scope="package")
def shared_cluster(ray_instance):
    import lens as tf
    workers, ps = tf.test.create_local_cluster(num_workers=2, num_ps=1)
    yield workers, ps
    for s in workers + ps:
        s._stop()
