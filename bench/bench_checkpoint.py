"""Saving and restoring a 100 MB checkpoint (tensor bundle) vs np.save / np.load of the same arrays."""
import os
import shutil
import sys
import tempfile

import numpy as np

from bench.timing import best_of

CACHE = os.environ.get("LENS_BENCH_CACHE", "/tmp/lens-bench")


def run(quick):
    """Rows: seconds to save and to restore the checkpoint with Saver, and with np.save / np.load."""
    import lens as tf

    total_mb = 2 if quick else 100
    count = 10
    per = total_mb * (1 << 20) // 4 // count // 256 * 256  # float32 elements per variable
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(per, dtype=np.float32).reshape(-1, 256) for _ in range(count)]
    os.makedirs(CACHE, exist_ok=True)
    work = tempfile.mkdtemp(prefix="bench_checkpoint_", dir=CACHE)
    repeat = 1 if quick else 7
    try:
        print("bench_checkpoint: %d MB in %d variables..." % (total_mb, count), file=sys.stderr, flush=True)
        paths = [os.path.join(work, "a%d.npy" % i) for i in range(count)]
        prefix = os.path.join(work, "model.ckpt")

        def np_save():
            for p, v in zip(paths, values):
                np.save(p, v)

        def np_load():
            for p in paths:
                np.load(p)
        with tf.Graph().as_default():
            variables = [tf.Variable(v, name="layer_%d/kernel" % i) for i, v in enumerate(values)]
            saver = tf.train.Saver(variables)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                # Interleaved rounds, best of each: the machine's load hits both sides alike.
                best = {"save": [], "np_save": [], "restore": [], "np_load": []}
                for _ in range(repeat):
                    best["save"].append(best_of(lambda: saver.save(sess, prefix, write_meta_graph=False,
                                                                   write_state=False), 1, 1))
                    best["np_save"].append(best_of(np_save, 1, 1))
                    best["restore"].append(best_of(lambda: saver.restore(sess, prefix), 1, 1))
                    best["np_load"].append(best_of(np_load, 1, 1))
                back = sess.run(variables[-1])
        if not np.array_equal(back, values[-1]):
            raise RuntimeError("restored values differ from the saved ones")
        t_save, t_np_save, t_restore, t_np_load = (min(best[k]) for k in ("save", "np_save", "restore", "np_load"))
        note = "lower is better; goal <= 1.5x"
        return [
            {"name": "save %d MB checkpoint (Saver.save)" % total_mb, "lens": t_save, "other": t_np_save,
             "other_name": "np.save same arrays", "unit": "s", "note": note},
            {"name": "restore %d MB checkpoint (Saver.restore)" % total_mb, "lens": t_restore, "other": t_np_load,
             "other_name": "np.load same arrays", "unit": "s", "note": note},
        ]
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    from bench.run import format_table
    print(format_table(run(quick="--quick" in sys.argv)))
