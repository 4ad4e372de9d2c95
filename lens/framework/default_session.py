"""The default session: the stack that `with sess.as_default()` pushes, and Tensor.eval / Operation.run.

It lives in the framework (as in TF1's framework/ops.py) so tensors evaluate themselves without the
framework importing the client: any object with `.graph` and `.run(fetches, feed_dict)` can be pushed.
"""
import contextlib
import threading


class _DefaultSessionStack(threading.local):
    def __init__(self):
        self.stack = []

    def get_default(self):
        return self.stack[-1] if self.stack else None

    @contextlib.contextmanager
    def get_controller(self, sess):
        self.stack.append(sess)
        try:
            yield sess
        finally:
            if sess in self.stack:
                self.stack.remove(sess)


_default_session_stack = _DefaultSessionStack()


def _clear_default_session_stack():
    _default_session_stack.stack.clear()


def get_default_session():
    """The innermost session entered with `as_default()` / `with`, or None."""
    return _default_session_stack.get_default()


def _session_for(graph, session, what):
    if session is None:
        session = get_default_session()
        if session is None:
            raise ValueError("Cannot evaluate tensor using `eval()`: No default session is "
                             "registered. Use `with sess.as_default()` or pass an explicit "
                             "session to `eval(session=sess)`" if what == "eval" else
                             "Cannot execute operation using `run()`: No default session is "
                             "registered. Use `with sess.as_default():` or pass an explicit "
                             "session to `run(session=sess)`")
        if session.graph is not graph:
            raise ValueError("Cannot use the default session to %s: the tensor's graph is "
                             "different from the session's graph. Pass an explicit session to "
                             "`%s(session=sess)`." % (what, what))
    elif session.graph is not graph:
        raise ValueError("Cannot use the given session to %s: the tensor's graph is different "
                         "from the session's graph." % what)
    return session


def _eval_using_default_session(tensors, feed_dict, graph, session=None):
    return _session_for(graph, session, "eval").run(tensors, feed_dict)


def _run_using_default_session(op, feed_dict, graph, session=None):
    _session_for(graph, session, "run").run(op, feed_dict)
