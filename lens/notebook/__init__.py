"""lens in Jupyter: `%lens` boards in the kernel, inline graphs, scalars and histograms.

`%load_ext lens` then `%lens --logdir DIR`; from code `display(port=...)`, `list()`,
`show_graph(graph_or_graph_def)`, `show_scalars(logdir)`, `show_histograms(logdir)`.
The debugger's notebook views are in `lens.dbg.notebook`.
"""

from lens.notebook import boards, ipy
from lens.notebook.charts import show_histograms, show_scalars
from lens.notebook.graph_view import show_graph
from lens.notebook.magic import load_ipython_extension

__all__ = ["display", "list", "load_ipython_extension", "show_graph", "show_histograms",
           "show_scalars", "start"]


def start(logdir, port=None, reload_interval=5.0):
    """Start (or reuse) this kernel's board for logdir; returns it (its .port, .url)."""
    return boards.start(logdir, port=port, reload_interval=reload_interval)


def display(port=None, height=boards.DEFAULT_HEIGHT):
    """Show a board this kernel started inline (the newest one when port is None)."""
    running = boards.running()
    if port is None:
        if not running:
            raise ValueError("no lens board is running in this kernel: start one with "
                             "%lens --logdir DIR or lens.notebook.start(DIR)")
        port = running[-1].port
    elif boards.find(port) is None:
        known = ", ".join(str(b.port) for b in running) or "none"
        raise ValueError(f"no lens board started by this kernel serves port {port} "
                         f"(running: {known}); start one with %lens --logdir DIR --port {port}")
    ipy.display(ipy.Html(boards.frame_html(port, height), f"lens board on port {port}"))


def list():  # noqa: A001 - TensorBoard's notebook API name
    """Print the boards this kernel started."""
    print(boards.list_text())
