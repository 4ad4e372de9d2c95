"""tf.train.Server: one task of a cluster, started as a named Ray actor in its own process."""
import socket

from lens.distributed import ray_env
from lens.distributed.cluster import ClusterSpec
from lens.distributed.task import TaskService
from lens.framework import errors

_REMOTE_CLASS = []   # ray.remote(TaskService), made once ray is loaded


def _task_actor_class(ray):
    if not _REMOTE_CLASS:
        _REMOTE_CLASS.append(ray.remote(TaskService))
    return _REMOTE_CLASS[0]


def free_port():
    """A port nobody listens on now: the address of a new local task ('localhost:PORT')."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """An in-process server for one task: `tf.train.Server(cluster, job_name=, task_index=)`."""

    def __init__(self, server_or_cluster_def, job_name=None, task_index=None, protocol=None,
                 config=None, start=True):
        cluster = ClusterSpec(server_or_cluster_def)
        if not cluster:
            raise ValueError("The cluster of a tf.train.Server must have at least one job")
        if job_name is None:
            if len(cluster.jobs) != 1:
                raise ValueError("Must specify an explicit `job_name` (the cluster has jobs %s)" % cluster.jobs)
            job_name = cluster.jobs[0]
        if task_index is None:
            if cluster.num_tasks(job_name) != 1:
                raise ValueError("Must specify an explicit `task_index` (job %r has tasks %s)"
                                 % (job_name, cluster.task_indices(job_name)))
            task_index = cluster.task_indices(job_name)[0]
        if protocol not in (None, "grpc"):
            raise errors.InvalidArgumentError(None, None, "Unsupported server protocol %r: lens serves "
                                              "'grpc' targets (over Ray)" % protocol)
        self._cluster, self._job, self._index = cluster, job_name, task_index
        self._address = cluster.task_address(job_name, task_index)
        self._config = config
        self._actor = None
        if start:
            self.start()

    target = property(lambda self: "grpc://" + self._address,
                      doc="The target for tf.Session: 'grpc://host:port'.")
    cluster_spec = property(lambda self: self._cluster, doc="The ClusterSpec this task belongs to.")

    def start(self):
        """Start the task's actor (idempotent); UnknownError when another task serves the address."""
        if self._actor is not None:
            return
        ray = ray_env.connect()
        if ray_env.find_actor(ray, self._address) is not None:
            raise errors.UnknownError(
                None, None, "Could not start gRPC server: address %s is already served by a running "
                "task in this Ray cluster; give this task another host:port in the ClusterSpec"
                % self._address)
        cls = _task_actor_class(ray)
        # num_cpus=0: a task holds state and waits on transfers, it must not claim a core.
        actor = cls.options(name=ray_env.actor_name(self._address), namespace=ray_env.NAMESPACE,
                            num_cpus=0, max_concurrency=64).remote(
            self._cluster.as_dict(), self._job, self._index,
            self._config.intra_op_parallelism_threads if self._config is not None else 0)
        ray.get(actor.describe.remote())  # up and registered under its name
        self._actor = actor

    def join(self):
        """Block until the task stops (its actor ends or the Ray cluster shuts down)."""
        if self._actor is None:
            return
        ray = ray_env.ray_module()
        while True:
            try:
                if ray.get(self._actor.join.remote(1.0)):
                    return
            except Exception:  # noqa: BLE001 - the actor or the whole cluster is gone: joined
                return

    def _stop(self):
        """End the task's actor (its variables and queues go with it)."""
        if self._actor is not None:
            ray = ray_env.ray_module()
            try:
                ray.get(self._actor.stop.remote())
            except Exception:  # noqa: BLE001 - already gone
                pass
            ray.kill(self._actor)
            self._actor = None

    @staticmethod
    def create_local_server(config=None, start=True):
        """A single-task server on this machine ('localhost' job, a free port)."""
        return Server({"localhost": ["localhost:%d" % free_port()]}, protocol="grpc", config=config,
                      start=start)


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None, ps_config=None):
    """(workers, ps_servers): a started Server per task of a fresh local cluster."""
    if num_workers < 1:
        raise ValueError("num_workers must be >= 1")
    spec = {"worker": ["localhost:%d" % free_port() for _ in range(num_workers)]}
    if num_ps > 0:
        spec["ps"] = ["localhost:%d" % free_port() for _ in range(num_ps)]
    cluster = ClusterSpec(spec)
    workers = [Server(cluster, "worker", i, protocol=protocol, config=worker_config)
               for i in range(num_workers)]
    ps_servers = [Server(cluster, "ps", i, protocol=protocol, config=ps_config) for i in range(num_ps)]
    return workers, ps_servers
