"""tf.contrib.learn's RunConfig (what TF1 programs pass to contrib estimators), on tf.estimator's."""
from lens.estimator.run_config import RunConfig as _CoreRunConfig

__all__ = ["RunConfig"]

_DEFAULT_SECS = 600


class RunConfig(_CoreRunConfig):
    """tf.contrib.learn.RunConfig: checkpoints every 600 s unless told otherwise; cluster arguments accepted."""

    def __init__(self, master=None, num_cores=0, log_device_placement=False, gpu_memory_fraction=1,
                 tf_random_seed=None, save_summary_steps=100, save_checkpoints_secs=_DEFAULT_SECS,
                 save_checkpoints_steps=None, keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000,
                 log_step_count_steps=100, protocol=None, evaluation_master="", model_dir=None,
                 session_config=None, session_creation_timeout_secs=7200):
        if save_checkpoints_steps is not None and save_checkpoints_secs == _DEFAULT_SECS:
            save_checkpoints_secs = None
        super().__init__(model_dir=model_dir, tf_random_seed=tf_random_seed, save_summary_steps=save_summary_steps,
                         save_checkpoints_steps=save_checkpoints_steps, save_checkpoints_secs=save_checkpoints_secs,
                         session_config=session_config, keep_checkpoint_max=keep_checkpoint_max,
                         keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
                         log_step_count_steps=log_step_count_steps,
                         session_creation_timeout_secs=session_creation_timeout_secs)
        self._num_cores = num_cores

    num_cores = property(lambda self: self._num_cores)
