"""Distributed TF1 on Ray: an in-graph replicated MLP 784-256-256-10 SGD step (batch 128 split over
2 worker tasks, variables and the averaged update on 1 ps task, each task its own process) vs the
same step in one process, plus where the distributed step's time goes (compute inside the tasks vs
transport: object-store transfers, actor calls and waiting).

The peer is lens itself in one process; the ratio is the issue's goal (<= 3x). After a few runs the
distributed step runs as a Ray Compiled Graph (lens/distributed/stages.py), whose channel readers
poll while they wait: the one-process rounds run only once it was torn down for idleness, so they
do not share the cores with those readers. Numbers are noisy on a shared machine: run it a few
times and take the median.
"""
import os
import time

import numpy as np

from bench.bench_mlp import _data, _init

SIZES = [784, 256, 256, 10]


def _tower(tf, x, y, params):
    h = x
    for i, (w, b) in enumerate(params):
        h = tf.matmul(h, w) + b
        if i < len(params) - 1:
            h = tf.nn.relu(h)
    return tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=h))


def build(tf, ws, bs, workers, ps_device, lr=0.01):
    """(graph, x, y, train, loss): towers on each worker device share variables on ps_device."""
    g = tf.Graph()
    with g.as_default():
        with tf.device(ps_device):
            params = [(tf.Variable(w, name="w%d" % i), tf.Variable(b, name="b%d" % i))
                      for i, (w, b) in enumerate(zip(ws, bs))]
        x = tf.placeholder(tf.float32, [None, 784], name="x")
        y = tf.placeholder(tf.float32, [None, 10], name="y")
        xs, ys = tf.split(x, len(workers)), tf.split(y, len(workers))
        opt = tf.train.GradientDescentOptimizer(lr)
        flat = [v for pair in params for v in pair]
        grads, losses = [], []
        for dev, xi, yi in zip(workers, xs, ys):
            with tf.device(dev):
                loss = _tower(tf, xi, yi, params)
                losses.append(loss)
                grads.append(tf.gradients(loss, flat))
        with tf.device(ps_device):
            avg = [tf.add_n(list(gs)) / float(len(workers)) for gs in zip(*grads)]
            train = opt.apply_gradients(list(zip(avg, flat)))
            loss = tf.add_n(losses) / float(len(workers))
        init = tf.global_variables_initializer()
    return g, x, y, train, loss, init


def measure(quick):
    """(local s/step, distributed s/step, timing breakdown dict, losses agree)."""
    import ray

    import lens as tf
    from lens.distributed import ray_env
    started = not ray.is_initialized()
    if started:     # the tasks at the client's priority, as a Ray instance lens starts itself
        ray.init(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1", namespace="lens",
                 log_to_driver=False, _system_config=ray_env.LOCAL_SYSTEM_CONFIG)
    try:
        rng = np.random.default_rng(0)
        ws, bs = _init(rng)
        x, y = _data(32 if quick else 128, rng)
        one_thread = tf.ConfigProto(intra_op_parallelism_threads=1)   # 3 processes share 2 cores
        workers, ps = tf.test.create_local_cluster(num_workers=2, num_ps=1, worker_config=one_thread,
                                                   ps_config=one_thread)
        g1, x1, y1, train1, loss1, init1 = build(tf, ws, bs, ["/job:localhost/replica:0/task:0/device:CPU:0"] * 2,
                                                 "/job:localhost/replica:0/task:0/device:CPU:0")
        local = tf.Session(graph=g1)
        local.run(init1)
        g2, x2, y2, train2, loss2, init2 = build(tf, ws, bs, ["/job:worker/task:0", "/job:worker/task:1"],
                                                 "/job:ps/task:0")
        dist = tf.Session(workers[0].target, graph=g2)
        dist.run(init2)
        agree = np.allclose([local.run([loss1, train1], {x1: x, y1: y})[0] for _ in range(3)],
                            [dist.run([loss2, train2], {x2: x, y2: y})[0] for _ in range(3)], rtol=1e-4)
        pids = [ray.get(s._actor.describe.remote())[3] for s in workers + ps]
        plain = _plain_session(tf, workers[0].target, g2, train2, {x2: x, y2: y})
        t_local, t_dist, cpu = _interleaved(lambda: local.run(train1, {x1: x, y1: y}),
                                            lambda: dist.run(train2, {x2: x, y2: y}),
                                            lambda: plain.run(train2, {x2: x, y2: y}), dist, pids,
                                            1 if quick else 5, 3 if quick else 30)
        plain.close()
        breakdown = _breakdown(dist, lambda: dist.run(train2, {x2: x, y2: y}), 3 if quick else 30)
        breakdown.update(cpu)
        breakdown["compiled"] = dist._remote._dag_run is not None
        dist.close()
        local.close()
        for s in workers + ps:
            s._stop()
        return t_local, t_dist, breakdown, agree
    finally:
        if started:
            ray.shutdown()


def _plain_session(tf, target, graph, train, feed):
    """A session on the same cluster whose steps stay plain Ray actor calls (never compiled)."""
    from lens.distributed import stages
    sess = tf.Session(target, graph=graph)
    hot, stages.HOT_RUNS = stages.HOT_RUNS, 10 ** 9
    try:
        sess.run(train, feed)   # its plan, made now, gets hot after HOT_RUNS = 10**9 runs
    finally:
        stages.HOT_RUNS = hot
    return sess


def _interleaved(local_step, dist_step, plain_step, dist, pids, repeat, number):
    """(local s/step, distributed s/step: the best round of each; CPU ms and the plain steps' ms per
    step): rounds alternate so a burst of load hits all alike. Before a local round the distributed
    session's compiled graph is torn down (as after IDLE_S idle seconds), and a distributed round
    first runs the steps that compile it again."""
    from lens.distributed import stages
    best = [float("inf")] * 2
    cpu = {"client_local": [], "client_dist": [], "tasks_dist": [], "plain": []}
    for _ in range(repeat):
        dist._remote._drop_dag()
        for _ in range(stages.HOT_RUNS + 2):
            local_step()
        c0 = time.process_time()
        t0 = time.perf_counter()
        for _ in range(number):
            local_step()
        best[0] = min(best[0], (time.perf_counter() - t0) / number)
        cpu["client_local"].append((time.process_time() - c0) / number)
        plain_step()
        t0 = time.perf_counter()
        for _ in range(number):
            plain_step()
        cpu["plain"].append((time.perf_counter() - t0) / number)
        for _ in range(stages.HOT_RUNS + 2):
            dist_step()
        c0, a0 = time.process_time(), _cpu_seconds(pids)
        t0 = time.perf_counter()
        for _ in range(number):
            dist_step()
        best[1] = min(best[1], (time.perf_counter() - t0) / number)
        cpu["client_dist"].append((time.process_time() - c0) / number)
        cpu["tasks_dist"].append((_cpu_seconds(pids) - a0) / number)
    return best[0], best[1], {k: float(np.median(v)) * 1e3 for k, v in cpu.items()}


def _cpu_seconds(pids):
    """User + system CPU seconds of the task processes (Linux /proc; 0 elsewhere)."""
    total = 0.0
    for pid in pids:
        try:
            with open("/proc/%d/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            pass
    return total


def _breakdown(sess, step, n):
    """Median per step: wall, compute on the ps and the slower worker (their critical path, without
    the time their _Send kernels spend handing tensors to Ray), the rest."""
    walls, ps_c, wk_c = [], [], []
    for _ in range(n):
        t0 = time.perf_counter()
        step()
        walls.append(time.perf_counter() - t0)
        timing = sess._remote.last_timing
        ps_c.append(sum(run - wait - send for dev, (run, wait, send) in timing.items() if "/job:ps/" in dev))
        wk_c.append(max(run - wait - send for dev, (run, wait, send) in timing.items() if "/job:worker/" in dev))
    wall, ps_ms, wk_ms = (float(np.median(v)) * 1e3 for v in (walls, ps_c, wk_c))
    return {"wall": wall, "ps": ps_ms, "worker": wk_ms, "transport": max(0.0, wall - ps_ms - wk_ms)}


def run(quick=False):
    """Rows for the bench table."""
    try:
        import ray  # noqa: F401 - the optional extra this row needs
    except ImportError:
        return [{"name": "MLP step, 2 workers + 1 ps on Ray vs one process", "lens": None,
                 "note": "ray is not installed: pip install -e '.[distributed]'"}]
    t_local, t_dist, b, agree = measure(quick)
    note = "losses agree" if agree else "LOSSES DIFFER"
    how = "compiled graph" if b["compiled"] else "actor calls"
    return [
        {"name": "MLP step, 2 workers + 1 ps on Ray vs one process", "lens": t_dist * 1e3,
         "other": t_local * 1e3, "other_name": "lens, 1 process", "unit": "ms/step",
         "note": "%s; %s; best rounds; goal <= 3x" % (note, how)},
        {"name": "  CPU per step: client + tasks vs one process", "lens": b["client_dist"] + b["tasks_dist"],
         "other": b["client_local"], "other_name": "lens, 1 process", "unit": "ms CPU",
         "note": "client %.2f + tasks %.2f ms (median round; idle channel readers poll)"
                 % (b["client_dist"], b["tasks_dist"])},
        {"name": "  the step as plain Ray actor calls (not compiled)", "lens": b["plain"], "unit": "ms/step",
         "note": "median round: object store and one actor call per task and transfer batch"},
        {"name": "  distributed step: compute (ps + slower worker)", "lens": b["ps"] + b["worker"],
         "unit": "ms/step", "note": "ps %.2f ms, worker %.2f ms (median)" % (b["ps"], b["worker"])},
        {"name": "  distributed step: transport + calls + waits", "lens": b["transport"], "unit": "ms/step",
         "note": "wall %.2f ms - compute (median)" % b["wall"]},
    ]
