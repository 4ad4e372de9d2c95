"""tf.estimator.RunConfig: where and how often an Estimator saves, summarizes and logs."""

__all__ = ["RunConfig"]

_DEFAULT_CHECKPOINT_SECS = 600
_REPLACEABLE = ("model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
                "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
                "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute",
                "device_fn", "protocol", "eval_distribute", "experimental_distribute",
                "experimental_max_worker_delay_secs", "session_creation_timeout_secs")


def _non_negative(name, value):
    if value is not None and value < 0:
        raise ValueError("{} should be >= 0, given: {}".format(name, value))


class RunConfig:
    """TF1.15's RunConfig for a single local process (is_chief, no cluster)."""

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=None, save_checkpoints_secs=None, session_config=None,
                 keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 train_distribute=None, device_fn=None, protocol=None, eval_distribute=None,
                 experimental_distribute=None, experimental_max_worker_delay_secs=None,
                 session_creation_timeout_secs=7200):
        if save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError("save_checkpoints_steps and save_checkpoints_secs cannot be both set.")
        if save_checkpoints_steps is None and save_checkpoints_secs is None:
            save_checkpoints_secs = _DEFAULT_CHECKPOINT_SECS
        for name in ("save_summary_steps", "save_checkpoints_steps", "save_checkpoints_secs",
                     "keep_checkpoint_max", "keep_checkpoint_every_n_hours", "log_step_count_steps"):
            _non_negative(name, locals()[name])
        self._model_dir = model_dir
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = save_checkpoints_steps
        self._save_checkpoints_secs = save_checkpoints_secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        self._train_distribute, self._device_fn, self._protocol = train_distribute, device_fn, protocol
        self._eval_distribute = eval_distribute
        self._experimental_distribute = experimental_distribute
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._session_creation_timeout_secs = session_creation_timeout_secs

    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    session_config = property(lambda self: self._session_config)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)
    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)
    experimental_distribute = property(lambda self: self._experimental_distribute)
    experimental_max_worker_delay_secs = property(lambda self: self._experimental_max_worker_delay_secs)
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)
    device_fn = property(lambda self: self._device_fn)
    protocol = property(lambda self: self._protocol)
    # A single local process: the chief worker of no cluster.
    cluster_spec = property(lambda self: None)
    is_chief = property(lambda self: True)
    master = property(lambda self: "")
    evaluation_master = property(lambda self: "")
    num_ps_replicas = property(lambda self: 0)
    num_worker_replicas = property(lambda self: 1)
    task_id = property(lambda self: 0)
    task_type = property(lambda self: "worker")
    global_id_in_cluster = property(lambda self: 0)
    service = property(lambda self: None)

    def replace(self, **kwargs):
        """A copy with the given properties changed (the checks of __init__ apply)."""
        for key in kwargs:
            if key not in _REPLACEABLE:
                raise ValueError("Replacing {} is not supported. Allowed properties are {}.".format(
                    key, list(_REPLACEABLE)))
        values = {k: getattr(self, k) for k in _REPLACEABLE}
        if "save_checkpoints_steps" in kwargs and "save_checkpoints_secs" not in kwargs:
            values["save_checkpoints_secs"] = None
        if "save_checkpoints_secs" in kwargs and "save_checkpoints_steps" not in kwargs:
            values["save_checkpoints_steps"] = None
        values.update(kwargs)
        new = RunConfig.__new__(RunConfig)
        RunConfig.__init__(new, **values)
        return new

    def __deepcopy__(self, memo):
        return self.replace()

    def __repr__(self):
        return "RunConfig(%s)" % ", ".join("%s=%r" % (k, getattr(self, k)) for k in _REPLACEABLE[:9])


