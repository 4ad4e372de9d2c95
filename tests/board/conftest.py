"""Shared board fixtures: logdirs written by real writers, the app, a live server, chromium.

Logdirs are written with tensorboardX (a test dependency) and with TensorBoard's own
EventFileWriter for what tensorboardX refuses to write (tags with '<', '>' in them).
The board reads them through lens's real DataProvider; nothing here fakes a component.
"""

import contextlib
import io
import os
import time

import numpy as np
import pytest
from PIL import Image

from lens.board.app import create_app
from tests.board.graph_server import CHROMIUM, CHROMIUM_ARGS, serve  # noqa: F401 (tests import serve from here)

RUNS = ("lr_0.1", "lr_0.01", "lr_0.001")
XSS = "<img src=x onerror=\"window.__xss=1\">"
XSS_TAG = "<script>window.__xss=1</script>"
N_STEPS = 120


def loss_value(run_index, step):
    """The deterministic loss each fixture run writes (tests recompute it)."""
    return float(np.exp(-step * (run_index + 1) * 0.02) + 0.01 * np.sin(step))


def png_bytes(seed, size=(12, 8)):
    """A small deterministic RGB PNG."""
    rng = np.random.RandomState(seed)
    pixels = (rng.rand(size[1], size[0], 3) * 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels).save(out, format="PNG")
    return out.getvalue()


def write_tbx_logdir(root):
    """Three runs via tensorboardX: scalars, a histogram, an image and Markdown text."""
    from tensorboardX import SummaryWriter

    rng = np.random.RandomState(0)
    for i, run in enumerate(RUNS):
        writer = SummaryWriter(str(root / run))
        for step in range(N_STEPS):
            writer.add_scalar("train/loss", loss_value(i, step), step, walltime=1000.0 + step)
            writer.add_scalar("train/accuracy", 1 - loss_value(i, step) / 2, step,
                              walltime=1000.0 + step)
            if step % 20 == 0:
                writer.add_scalar("eval/loss", loss_value(i, step) * 1.1, step,
                                  walltime=1000.0 + step)
                writer.add_histogram("layer1/weights", rng.randn(300) + step / 50.0, step,
                                     walltime=1000.0 + step)
                writer.add_image("input/digit", np.asarray(Image.open(io.BytesIO(
                    png_bytes(step)))), step, walltime=1000.0 + step, dataformats="HWC")
                writer.add_text("notes", f"**bold {run}** step {step} <b>raw</b>", step,
                                walltime=1000.0 + step)
        writer.close()


def write_hostile_run(root):
    """A run whose directory and tag names are HTML, written with TensorBoard's own writer."""
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(root / XSS))
    for step in range(5):
        summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(
            tag=XSS_TAG, simple_value=float(step))])
        writer.add_event(event_pb2.Event(wall_time=2000.0 + step, step=step, summary=summary))
    writer.close()


def load_provider(logdir):
    """lens's DataProvider over logdir, fully read once (no background thread)."""
    from lens.events import provider as provider_module

    data_provider = provider_module.DataProvider(str(logdir), reload_interval=0)
    data_provider.reload()
    return data_provider


@pytest.fixture(scope="session")
def tbx_logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("tbx_logs")
    write_tbx_logdir(root)
    return root


@pytest.fixture(scope="session")
def hostile_logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile_logs")
    write_tbx_logdir(root)
    write_hostile_run(root)
    return root


@pytest.fixture(scope="session")
def tbx_app(tbx_logdir):
    return create_app(load_provider(tbx_logdir))


@pytest.fixture()
def client(tbx_app):
    return tbx_app.test_client()


@pytest.fixture(scope="session")
def tbx_server(tbx_app):
    with serve(tbx_app) as url:
        yield url


@pytest.fixture(scope="session")
def hostile_server(hostile_logdir):
    with serve(create_app(load_provider(hostile_logdir))) as url:
        yield url


@contextlib.contextmanager
def launched_chromium(webgl=False):
    """Debian's chromium through playwright; a missing chromium fails, it never skips.
    webgl=True trades --disable-gpu for SwiftShader's software WebGL (plotly's 3-D and gl traces)."""
    assert os.path.exists(CHROMIUM), (
        f"{CHROMIUM} is missing: install it with `apt-get install -y chromium`")
    from playwright.sync_api import sync_playwright

    args = CHROMIUM_ARGS
    if webgl:
        args = [a for a in args if a != "--disable-gpu"] + ["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]
    with sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=args)
        yield instance
        instance.close()


@pytest.fixture(scope="module")
def browser():
    # Module scope: playwright's sync API keeps an asyncio loop running in the main thread
    # while it is open, which would break later tests that start their own loop.
    """Debian's chromium (see launched_chromium)."""
    with launched_chromium() as instance:
        yield instance


@pytest.fixture()
def page(browser):
    """A fresh page that records script errors (tests assert there are none)."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    new_page = context.new_page()
    new_page.errors = []
    new_page.on("pageerror", lambda err: new_page.errors.append(str(err)))
    yield new_page
    context.close()


def wait_until(predicate, timeout=10.0, interval=0.05):
    """Poll predicate until it is truthy; returns its last value."""
    deadline = time.monotonic() + timeout
    value = predicate()
    while not value and time.monotonic() < deadline:
        time.sleep(interval)
        value = predicate()
    return value
