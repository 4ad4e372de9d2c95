"""Joining the Ray cluster that runs the tasks: its address, the namespace of the task actors."""
import os
import threading

from lens.framework import errors

ADDRESS_ENV = "LENS_RAY_ADDRESS"   # e.g. "auto" or "10.0.0.5:6379" for a `ray start --head` cluster
NAMESPACE = "lens"
# A Ray instance lens starts runs its task processes at the client's priority: Ray's default niceness
# of 15 for workers (meant for light workers under a busy driver) lets any other program on the
# machine, and the client waiting on a compiled step, take the cores the tasks compute on.
LOCAL_SYSTEM_CONFIG = {"worker_niceness": 0}
_lock = threading.Lock()


def ray_module():
    """The ray package (an optional extra: pip install 'lens[distributed]')."""
    try:
        import ray    # optional third-party extra, loaded only when a cluster is used
    except ImportError:
        raise errors.UnimplementedError(
            None, None, "Distributed TF1 (tf.train.Server, Session('grpc://...')) runs on Ray, which "
            "is not installed: pip install 'lens[distributed]' (or pip install 'ray>=2.9')") from None
    return ray


def connect(address=None):
    """ray, initialised: the running instance, else address / $LENS_RAY_ADDRESS, else a new local one."""
    ray = ray_module()
    with _lock:
        if not ray.is_initialized():
            address = address or os.environ.get(ADDRESS_ENV) or None
            if address:
                ray.init(address=address, namespace=NAMESPACE, log_to_driver=False)
            else:
                ray.init(namespace=NAMESPACE, include_dashboard=False, log_to_driver=False,
                         _system_config=LOCAL_SYSTEM_CONFIG)
    return ray


def actor_name(address):
    """The Ray actor name of the task serving address ('host:port')."""
    return "lens-task@" + address


def find_actor(ray, address):
    """The handle of the task actor serving address, or None when no such task runs."""
    try:
        return ray.get_actor(actor_name(address), namespace=NAMESPACE)
    except ValueError:
        return None


def task_name(job, index):
    """'/job:ps/replica:0/task:0': the device prefix of one task."""
    return "/job:%s/replica:0/task:%d" % (job, index)


def task_of_device(device):
    """(job, task index) of a full device name '/job:j/replica:0/task:t/device:CPU:0'."""
    job = index = None
    for part in device.split("/"):
        if part.startswith("job:"):
            job = part[4:]
        elif part.startswith("task:"):
            index = int(part[5:])
    return job, index
