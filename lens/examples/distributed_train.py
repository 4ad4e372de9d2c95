"""Between-graph replicated training, TF1 style: `python -m lens.examples.distributed_train JOB TASK`.

Start one process per task (ps 0, worker 0, worker 1) on one Ray cluster: `ray start --head`, then
LENS_RAY_ADDRESS=auto in each process's environment. Worker 0 is the chief: it initializes the
variables on the ps and writes summaries to --logdir; worker 1 waits for it, then both train.
"""
import argparse

import numpy as np

import lens as tf

CLUSTER = {"ps": ["localhost:2222"], "worker": ["localhost:2223", "localhost:2224"]}


def main(argv=None):
    """Run the task named on the command line."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("job", choices=["ps", "worker"])
    ap.add_argument("task", type=int)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--logdir", default="/tmp/lens_distributed")
    args = ap.parse_args(argv)
    cluster = tf.train.ClusterSpec(CLUSTER)
    server = tf.train.Server(cluster, job_name=args.job, task_index=args.task)
    if args.job == "ps":
        server.join()       # serves its variables until the cluster shuts down
        return
    setter = tf.train.replica_device_setter(cluster=cluster, worker_device="/job:worker/task:%d" % args.task)
    with tf.device(setter):
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(tf.zeros([4, 1]), name="w")
        b = tf.Variable(0.0, name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        tf.summary.scalar("loss", loss)
        step = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    hooks = [tf.train.StopAtStepHook(last_step=args.steps)]
    rng = np.random.default_rng(args.task)
    n, traced = 0, False
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=(args.task == 0), hooks=hooks,
                                           checkpoint_dir=args.logdir if args.task == 0 else None,
                                           save_summaries_steps=20) as sess:
        while not sess.should_stop():
            xs = rng.random((32, 4), dtype=np.float32)
            feed = {x: xs, y: xs.sum(1, keepdims=True)}
            if args.task == 0 and n >= 50 and not traced:
                # One traced step: step stats per task device, for the board's graph and profile views.
                meta = tf.RunMetadata()
                _, n = sess.run([train, step], feed, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                                run_metadata=meta)
                writer = tf.summary.FileWriter(args.logdir + "/traced_step", graph=sess.graph)
                writer.add_run_metadata(meta, "step%d" % n)
                writer.close()
                traced = True
                continue
            _, n = sess.run([train, step], feed)
    print("worker %d done at global step %d" % (args.task, n))


if __name__ == "__main__":
    main()
