"""Notebook fixtures: real notebooks executed by nbclient on a real ipykernel (python3)."""

import contextlib
import os
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "lens_in_jupyter.ipynb"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def kernel_name():
    """The python3 kernelspec ipykernel provides (jupyter_client runs it on this interpreter)."""
    from jupyter_client.kernelspec import KernelSpecManager

    specs = KernelSpecManager().find_kernel_specs()
    if "python3" not in specs:  # a fresh venv without ipykernel's spec: install it there
        from ipykernel.kernelspec import install

        install(prefix=sys.prefix)
    return "python3"


class Kernel:
    """A live kernel running a notebook; run() appends and executes one more cell."""

    def __init__(self, nb, client):
        self.nb = nb
        self.client = client

    def run(self, source, raises=False):
        """Execute source as a new code cell (raises: an error is expected); its outputs."""
        from nbformat.v4 import new_code_cell

        cell = new_code_cell(source)
        if raises:
            cell.metadata["tags"] = ["raises-exception"]
        self.nb.cells.append(cell)
        self.client.execute_cell(cell, len(self.nb.cells) - 1)
        return cell.outputs


@contextlib.contextmanager
def live_kernel(nb, cwd, env=None):
    """Execute every cell of nb on a fresh kernel and keep the kernel up inside the block."""
    from nbclient import NotebookClient

    saved = dict(os.environ)
    os.environ.update(env or {})
    try:
        client = NotebookClient(nb, timeout=120, kernel_name=kernel_name(),
                                resources={"metadata": {"path": str(cwd)}})
        with client.setup_kernel():
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
            yield Kernel(nb, client)
    finally:
        os.environ.clear()
        os.environ.update(saved)


def text_of(outputs):
    """Everything a cell printed (streams and text/plain results)."""
    parts = []
    for out in outputs:
        if out.output_type == "stream":
            parts.append(out.text)
        elif out.output_type in ("execute_result", "display_data"):
            parts.append(out.data.get("text/plain", ""))
        elif out.output_type == "error":
            parts.append(f"{out.ename}: {out.evalue}")
    return "".join(parts)


def html_of(outputs):
    """The text/html of a cell's outputs, joined."""
    return "".join(out.data.get("text/html", "") for out in outputs
                   if out.output_type in ("execute_result", "display_data"))


def embedded_graph(html):
    """The data a show_graph output carries (srcdoc -> base64 -> gzip -> JSON)."""
    import base64
    import gzip
    import html as html_module
    import json
    import re

    srcdoc = html_module.unescape(re.search(r'srcdoc="([^"]*)"', html).group(1))
    blob = re.search(r'<script type="application/octet-stream" id="lens-graph-data">([^<]*)'
                     r'</script>', srcdoc).group(1)
    return json.loads(gzip.decompress(base64.b64decode(blob)))


def errors_of(nb):
    """(cell index, ename, evalue) of every error output in the notebook."""
    return [(i, o.ename, o.evalue) for i, c in enumerate(nb.cells) if c.cell_type == "code"
            for o in c.outputs if o.output_type == "error"]


def wait_until(predicate, timeout=15.0, interval=0.1):
    """Poll predicate until it is truthy; returns its last value."""
    deadline = time.monotonic() + timeout
    value = predicate()
    while not value and time.monotonic() < deadline:
        time.sleep(interval)
        value = predicate()
    return value


@pytest.fixture(scope="module")
def chromium():
    """Debian's chromium through playwright (a missing chromium fails, never skips)."""
    assert os.path.exists(CHROMIUM), f"{CHROMIUM} is missing: apt-get install -y chromium"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
