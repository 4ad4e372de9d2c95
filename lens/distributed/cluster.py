"""tf.train.ClusterSpec: the jobs of a cluster and the address of each of their tasks."""
from lens.proto import cluster_pb2

_BAD_CLUSTER = ("`cluster` must be a dictionary mapping one or more job names to lists of network "
                "addresses, or a `ClusterDef` protocol buffer")


class ClusterSpec:
    """A cluster as a set of jobs, each a map from task index to network address."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            self._jobs = {job: dict(tasks) for job, tasks in cluster._jobs.items()}
        elif isinstance(cluster, cluster_pb2.ClusterDef):
            self._jobs = {}
            for job in cluster.job:
                if job.name in self._jobs:
                    raise ValueError("Duplicated job name %r in the ClusterDef" % job.name)
                self._jobs[job.name] = dict(job.tasks)
        elif isinstance(cluster, dict):
            self._jobs = {}
            for job, tasks in cluster.items():
                if not isinstance(job, str):
                    raise TypeError("Job name %r must be a string (e.g. 'worker' or 'ps')" % (job,))
                self._jobs[job] = _tasks_of(job, tasks)
        else:
            raise TypeError(_BAD_CLUSTER)

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self._jobs == other._jobs

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(tuple(sorted((j, tuple(sorted(t.items()))) for j, t in self._jobs.items())))

    def __str__(self):
        return "ClusterSpec(%r)" % self.as_dict()

    __repr__ = __str__

    @property
    def jobs(self):
        """The job names, sorted."""
        return sorted(self._jobs)

    def as_dict(self):
        """{job: [addresses]} for jobs with tasks 0..n-1, {job: {index: address}} for sparse ones."""
        out = {}
        for job in self.jobs:
            idx = self.task_indices(job)
            if idx == list(range(len(idx))):
                out[job] = [self._jobs[job][i] for i in idx]
            else:
                out[job] = {i: self._jobs[job][i] for i in idx}
        return out

    def as_cluster_def(self):
        """The ClusterDef protocol buffer."""
        cd = cluster_pb2.ClusterDef()
        for job in self.jobs:
            jd = cd.job.add(name=job)
            for i, addr in self._jobs[job].items():
                jd.tasks[i] = addr
        return cd

    def _job(self, job_name):
        try:
            return self._jobs[job_name]
        except KeyError:
            raise ValueError("No such job in cluster: %r (the cluster has jobs %s)"
                             % (job_name, self.jobs)) from None

    def num_tasks(self, job_name):
        """How many tasks job_name has."""
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """The sorted task indices of job_name."""
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        """The address of task task_index of job_name."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError("No task with index %r in job %r (its tasks are %s)"
                             % (task_index, job_name, sorted(job))) from None

    def job_tasks(self, job_name):
        """Addresses indexed by task, None where an index has no task."""
        job = self._job(job_name)
        out = [None] * (max(job) + 1 if job else 0)
        for i, addr in job.items():
            out[i] = addr
        return out


def _tasks_of(job, tasks):
    if isinstance(tasks, (list, tuple)):
        tasks = dict(enumerate(tasks))
    elif not isinstance(tasks, dict):
        raise TypeError("The tasks for job %r must be a list or a dictionary from integers to "
                        "strings, got %r" % (job, tasks))
    for i, addr in tasks.items():
        if not isinstance(i, int):
            raise TypeError("Task index %r in job %r must be an integer" % (i, job))
        if not isinstance(addr, str):
            raise TypeError("Task address %r of job %r must be a string 'host:port'" % (addr, job))
    return dict(tasks)
