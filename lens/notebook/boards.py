"""Boards served from inside the kernel: one background thread per logdir, on 127.0.0.1.

The magic and `lens.notebook.display` share this registry. A board is a werkzeug server thread
(daemon) over `lens.board.app.create_app`, so it lives and dies with the kernel process; an
atexit hook also closes its socket and stops its logdir reader cleanly.
"""

import atexit
import errno
import html
import os
import threading

from werkzeug.serving import make_server

from lens.board.app import create_app
from lens.board.cli import bind_error, port_problem

HOST = "127.0.0.1"
DEFAULT_PORT = 6006          # TensorBoard's port; the next free one is taken when busy
DEFAULT_HEIGHT = 800         # pixels, as TensorBoard's notebook frame
PORT_ATTEMPTS = 100
# The board forbids framing by other origins; a board the kernel starts is meant to sit in a
# notebook page served from localhost (Jupyter, JupyterLab, VS Code's webview).
FRAME_ANCESTORS = ("'self' http://localhost:* http://127.0.0.1:* https://localhost:* "
                   "https://127.0.0.1:* vscode-webview: vscode-file:")

_lock = threading.Lock()
_boards = []                 # Board objects this kernel started, in start order


class Board:
    """A board this kernel serves: its logdir, port, server and thread."""

    def __init__(self, logdir, port, server, app, thread):
        self.logdir = logdir
        self.port = port
        self.server = server
        self.app = app
        self.thread = thread

    @property
    def url(self):
        """Where the board answers."""
        return f"http://{HOST}:{self.port}/"

    def stop(self):
        """Stop serving and reading the logdir (idempotent)."""
        if self.thread is None:
            return
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)
        self.thread = None
        provider = self.app.config.get("LENS_PROVIDER")
        if provider is not None and hasattr(provider, "stop"):
            provider.stop()

    def __repr__(self):
        return f"Board(logdir={self.logdir!r}, port={self.port})"


def _frameable(app):
    """Wrap the WSGI app so notebook pages on localhost may frame the board."""
    inner = app.wsgi_app

    def wsgi(environ, start_response):
        def start(status, headers, exc_info=None):
            fixed = []
            for name, value in headers:
                if name.lower() == "content-security-policy":
                    value = value.replace("frame-ancestors 'self'",
                                          "frame-ancestors " + FRAME_ANCESTORS)
                fixed.append((name, value))
            return start_response(status, fixed, exc_info)
        return inner(environ, start)

    app.wsgi_app = wsgi
    return app


def _serve(app, port):
    """make_server, with werkzeug's exit on a taken port turned back into OSError."""
    try:
        return make_server(HOST, port, app, threaded=True)
    except SystemExit:  # werkzeug prints and exits when the port is in use
        raise OSError(errno.EADDRINUSE, f"port {port} on {HOST} is already in use") from None


def _bind(app, port):
    """A server on the given port (a clear error when it is taken) or on the first free one."""
    if port is not None:
        problem = port_problem(HOST, port)
        if problem:
            raise OSError(errno.EADDRINUSE, problem.replace("Try --port", "Try %lens --port"))
        return _serve(app, port)
    for candidate in range(DEFAULT_PORT, DEFAULT_PORT + PORT_ATTEMPTS):
        if bind_error(HOST, candidate) is not None:
            continue
        try:
            return _serve(app, candidate)
        except OSError:
            continue  # taken between the probe and the bind
    raise OSError(errno.EADDRINUSE, f"no free port in {DEFAULT_PORT}..."
                  f"{DEFAULT_PORT + PORT_ATTEMPTS - 1} on {HOST}; pass --port N")


def _not_ready(environ, start_response):
    """The WSGI app a server holds until the board's app is built."""
    start_response("503 Service Unavailable", [("Content-Type", "text/plain")])
    return [b"lens board starting"]


def start(logdir, port=None, reload_interval=5.0):
    """The board serving logdir: the running one this kernel started, else a new one."""
    if not isinstance(logdir, (str, os.PathLike)) or not os.fspath(logdir):
        raise ValueError(f"logdir must be a directory path, got {logdir!r}")
    logdir = os.path.abspath(os.path.expanduser(os.fspath(logdir)))
    if port is not None and not (0 < int(port) < 65536):
        raise ValueError(f"port must be in 1..65535, got {port}")
    with _lock:
        for board in _boards:
            if board.thread is not None and board.logdir == logdir and \
                    (port is None or board.port == int(port)):
                return board
        # Bind first (on a placeholder app), so a taken port costs no logdir reading.
        server = _bind(_not_ready, None if port is None else int(port))
        app = _frameable(create_app(logdir, reload_interval=reload_interval))
        server.app = app
        thread = threading.Thread(target=server.serve_forever, name=f"lens-board-{server.port}",
                                  daemon=True)
        thread.start()
        board = Board(logdir, server.port, server, app, thread)
        _boards.append(board)
        return board


def running():
    """The boards this kernel started that still serve."""
    with _lock:
        return [b for b in _boards if b.thread is not None]


def find(port):
    """The running board on a port, or None."""
    return next((b for b in running() if b.port == port), None)


def stop_all():
    """Stop every board this kernel started (run at exit)."""
    for board in running():
        board.stop()


atexit.register(stop_all)


def frame_html(port, height=DEFAULT_HEIGHT):
    """An iframe showing the board on port, as wide as the cell."""
    if not isinstance(height, int) or height <= 0:
        raise ValueError(f"height must be a positive number of pixels, got {height!r}")
    src = html.escape(f"http://{HOST}:{int(port)}/", quote=True)
    return (f'<div class="lens-board"><iframe class="lens-board-frame" src="{src}" width="100%" '
            f'height="{height}" frameborder="0" style="border:1px solid #ddd" '
            f'title="lens board on port {int(port)}"></iframe></div>')


def list_text():
    """The boards this kernel started, one line each (what `%lens` alone prints)."""
    boards = running()
    if not boards:
        return "No lens boards started by this kernel. Start one with %lens --logdir DIR."
    lines = ["lens boards started by this kernel:"]
    lines += [f"  - port {b.port}: logdir {b.logdir} ({b.url})" for b in boards]
    lines.append("Show one with lens.notebook.display(port=N).")
    return "\n".join(lines)
