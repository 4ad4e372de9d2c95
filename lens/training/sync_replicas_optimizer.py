"""tf.train.SyncReplicasOptimizer: N replicas' gradients are averaged into one update per step.

Each variable gets a ConditionalAccumulator beside it (on its ps task); a replica's train op adds its
gradients (tagged with its local step, so stale ones are dropped) and then takes a token from the
sync token queue. The chief's queue runner waits for N gradients per variable, applies their mean
with the wrapped optimizer, bumps global_step and puts the tokens for the next step in the queue.
"""
from lens.framework.graph import GraphKeys, Tensor, colocate_with, control_dependencies, device, name_scope
from lens.ops import array as array_ops
from lens.ops.accumulator_ops import ConditionalAccumulator
from lens.ops.core import group, no_op
from lens.ops.data_flow_ops import FIFOQueue
from lens.ops.variables import Variable, assign, global_variables, report_uninitialized_variables
from lens.training.hooks import SessionRunHook
from lens.training.optimizer import Optimizer
from lens.training.queue_runner import QueueRunner


class SyncReplicasOptimizer(Optimizer):
    """Wraps opt: replicas_to_aggregate gradients per variable make one averaged update."""

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None, variable_averages=None,
                 variables_to_average=None, use_locking=False, name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._variable_averages, self._variables_to_average = variable_averages, variables_to_average
        self._gradients_applied = False
        self._global_step = self._sync_token_queue = self._chief_queue_runner = None
        self._accumulator_list = []
        self._local_step = self.local_step_init_op = self.chief_init_op = self.ready_for_local_init_op = None

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's gradients (aggregation happens in apply_gradients)."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The replica's train op: accumulate its gradients, then wait for the next step's token."""
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops, aggregated, var_list = [], [], []
        local_anchor = no_op()
        with colocate_with(local_anchor):   # the local step stays on the worker, not the ps
            self._local_step = Variable(0, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                                        dtype=global_step.dtype.base_dtype, name="sync_rep_local_step")
        self.local_step_init_op = assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = report_uninitialized_variables(global_variables())
        with name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with device(var.device):
                    if grad is None:
                        aggregated.append(None)
                        continue
                    if not isinstance(grad, Tensor):
                        raise ValueError("SyncReplicasOptimizer in lens aggregates dense gradients only; "
                                         "%s has a %s gradient" % (var.name, type(grad).__name__))
                    accum = ConditionalAccumulator(grad.dtype, shape=var.get_shape(),
                                                   shared_name=var.name + "/grad_accum")
                    train_ops.append(accum.apply_grad(grad, local_step=self._local_step))
                    aggregated.append(accum.take_grad(self._replicas_to_aggregate))
                    self._accumulator_list.append((accum, var.device))
        with device(global_step.device), name_scope(""):
            update_op = self._opt.apply_gradients(list(zip(aggregated, var_list)), global_step)
        with device(global_step.device), name_scope(""):
            self._sync_token_queue = FIFOQueue(-1, global_step.dtype.base_dtype, shapes=[[]],
                                               name="sync_token_q", shared_name="sync_token_q")
            with control_dependencies(train_ops):
                token = self._sync_token_queue.dequeue()
            train_op = assign(self._local_step, token)
            with control_dependencies([update_op]):
                tokens = array_ops.fill([self._tokens_per_step], global_step)
                sync_op = self._sync_token_queue.enqueue_many((tokens,))
            dummy_queue = FIFOQueue(1, "int32", shapes=[[]], name="dummy_queue", shared_name="dummy_queue")
            self._chief_queue_runner = QueueRunner(dummy_queue, [sync_op])
        for accum, dev in self._accumulator_list:
            with device(dev):
                chief_init_ops.append(accum.set_global_step(global_step, name="SetGlobalStep"))
        self.chief_init_op = group(*chief_init_ops)
        self._gradients_applied = True
        return train_op

    def get_chief_queue_runner(self):
        """The QueueRunner the chief runs: one aggregated update per step."""
        if not self._gradients_applied:
            raise ValueError("Should be called after apply_gradient().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def variables(self):
        return self._opt.variables()

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens=-1):
        """An op putting num_tokens tokens (default replicas_to_aggregate) in the queue for the first step."""
        if not self._gradients_applied:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < needed:
            raise ValueError("Too few tokens to finish the first step: %d (given) vs %d (needed)"
                             % (num_tokens, needed))
        if num_tokens > 0:
            with device(self._global_step.device), name_scope(""):
                tokens = array_ops.fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
        return no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """The hook running local init, the chief's init tokens and its queue runner."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(SessionRunHook):

    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer, self._is_chief, self._num_tokens = sync_optimizer, is_chief, num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if not opt._gradients_applied:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = self._init_tokens_op = None

    def after_create_session(self, session, coord):
        names = session.run(self._ready_for_local_init_op)
        if len(names):
            raise RuntimeError("Init operations did not make model ready for SyncReplicasOptimizer local_init. "
                               "Init op: %s, error: Variables not initialized: %s"
                               % (self._local_init_op.name, ", ".join(n.decode() for n in names)))
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
