"""Run a model with the compiled-plan rewrites (plan_opt.ENABLED) switched on or off."""
import contextlib

import lens as tf
from lens.client import plan_opt


@contextlib.contextmanager
def plan_rewrites(enabled):
    """plan_opt.ENABLED set to `enabled` inside the block, restored after it."""
    old, plan_opt.ENABLED = plan_opt.ENABLED, enabled
    try:
        yield
    finally:
        plan_opt.ENABLED = old


def run_model(g, init, fetches, feed, enabled, steps=1):
    """Values of fetches after `steps` runs in a new session of g (init run first), with plan
    rewrites on or off, and every plan the session compiled (the last one last)."""
    with plan_rewrites(enabled), tf.Session(graph=g) as sess:
        sess.run(init)
        out = None
        for _ in range(steps):
            out = sess.run(fetches, feed)
        return out, [c.plan for c in sess._runs.values()]
