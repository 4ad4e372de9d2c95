"""tf.logging: the Python logger 'tensorflow', TF1's level names and its every-n / first-n helpers."""
import logging as _logging
import sys as _sys
import threading as _threading

__all__ = ["DEBUG", "INFO", "WARN", "ERROR", "FATAL", "TaskLevelStatusMessage", "debug", "error", "fatal", "flush",
           "get_logger", "get_verbosity", "info", "log", "log_every_n", "log_first_n", "log_if", "set_verbosity",
           "vlog", "warn", "warning"]

DEBUG, INFO, WARN, ERROR, FATAL = _logging.DEBUG, _logging.INFO, _logging.WARN, _logging.ERROR, _logging.FATAL

_lock = _threading.Lock()
_logger = None
_counts = {}        # call site -> how many times log_every_n / log_first_n were called there


def get_logger():
    """The 'tensorflow' logger; given a stderr handler (levelname:name:message) unless logging is configured."""
    global _logger
    with _lock:
        if _logger is None:
            logger = _logging.getLogger("tensorflow")
            if not _logging.getLogger().handlers and not logger.handlers:
                handler = _logging.StreamHandler(_sys.stderr)
                handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT, None))
                logger.addHandler(handler)
            _logger = logger
    return _logger


def log(level, msg, *args, **kwargs):
    """Log msg % args at level."""
    get_logger().log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    """Log at DEBUG."""
    get_logger().debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    """Log at INFO."""
    get_logger().info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    """Log at WARN."""
    get_logger().warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    """Log at ERROR."""
    get_logger().error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    """Log at FATAL (the program goes on, as with TF1's tf.logging.fatal)."""
    get_logger().fatal(msg, *args, **kwargs)


def vlog(level, msg, *args, **kwargs):
    """Log at a numeric level."""
    get_logger().log(level, msg, *args, **kwargs)


def TaskLevelStatusMessage(msg):  # noqa: N802 - TF's name
    """Log a task status message (at ERROR, as TF)."""
    error(msg)


def flush():
    """Flush every handler of the logger."""
    for handler in get_logger().handlers:
        handler.flush()


def _count_at_call_site():
    """How many times the caller's caller line has asked so far (0 the first time)."""
    frame = _sys._getframe(2)
    site = (frame.f_code.co_filename, frame.f_lineno)
    with _lock:
        n = _counts.get(site, 0)
        _counts[site] = n + 1
    return n


def log_every_n(level, msg, n, *args):
    """Log msg on the 1st, (n+1)th, (2n+1)th ... call from the same line."""
    if _count_at_call_site() % n == 0:
        log(level, msg, *args)


def log_first_n(level, msg, n, *args):
    """Log msg on the first n calls from the same line only."""
    if _count_at_call_site() < n:
        log(level, msg, *args)


def log_if(level, msg, condition, *args):
    """Log msg when condition is true."""
    if condition:
        log(level, msg, *args)


def get_verbosity():
    """The logger's effective level."""
    return get_logger().getEffectiveLevel()


def set_verbosity(v):
    """Set the logger's level (DEBUG, INFO, WARN, ERROR, FATAL)."""
    get_logger().setLevel(v)
