"""tf.logging: the 'tensorflow' logger, TF1's levels and the every-n / first-n helpers."""
import logging

import pytest

import lens as tf


@pytest.fixture
def records():
    logger = tf.get_logger()
    seen = []

    class Keep(logging.Handler):
        def emit(self, record):
            seen.append((record.levelno, record.getMessage()))
    handler = Keep()
    logger.addHandler(handler)
    old = logger.level
    yield seen
    logger.removeHandler(handler)
    logger.setLevel(old)


def test_levels_and_verbosity(records):
    assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR, tf.logging.FATAL) == (
        10, 20, 30, 40, 50)
    assert tf.get_logger().name == "tensorflow"
    tf.logging.set_verbosity(tf.logging.WARN)
    assert tf.logging.get_verbosity() == tf.logging.WARN
    tf.logging.info("hidden %d", 1)
    tf.logging.warning("shown %d", 2)
    tf.logging.set_verbosity(tf.logging.DEBUG)
    tf.logging.debug("d")
    tf.logging.info("i")
    tf.logging.warn("w")
    tf.logging.error("e")
    tf.logging.fatal("f")
    tf.logging.log(tf.logging.INFO, "l %s", "x")
    tf.logging.vlog(15, "v")
    tf.logging.log_if(tf.logging.INFO, "if-true", True)
    tf.logging.log_if(tf.logging.INFO, "if-false", False)
    tf.logging.flush()
    assert records == [(30, "shown 2"), (10, "d"), (20, "i"), (30, "w"), (40, "e"), (50, "f"), (20, "l x"),
                       (15, "v"), (20, "if-true")]


def test_every_n_and_first_n_count_per_call_site(records):
    tf.logging.set_verbosity(tf.logging.INFO)
    for i in range(7):
        tf.logging.log_every_n(tf.logging.INFO, "every %d", 3, i)
        tf.logging.log_first_n(tf.logging.INFO, "first %d", 2, i)
    assert [m for _, m in records] == ["every 0", "first 0", "first 1", "every 3", "every 6"]
