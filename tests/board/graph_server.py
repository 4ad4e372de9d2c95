"""A real board server in a thread plus Debian's chromium, for the graph dashboard's page tests.

The app is the board's own create_app over a GraphProvider; a test-only blueprint adds a page
that mounts just the graph dashboard through the registerDashboard/ctx contract, so these
tests do not depend on the other dashboards' scripts.
"""

import contextlib
import logging
import os
import threading
from pathlib import Path

import pytest
from flask import Blueprint, send_from_directory
from werkzeug.serving import make_server

from lens.board.app import create_app

HARNESS_DIR = Path(__file__).resolve().parent / "graph_harness"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]


def harness_app(provider):
    """create_app(provider) plus /graph_harness/ serving the test page and its shell."""
    app = create_app(provider)
    bp = Blueprint("graph_harness", __name__, url_prefix="/graph_harness")

    @bp.route("/<path:name>")
    def harness_file(name):
        return send_from_directory(HARNESS_DIR, name, max_age=0)

    app.register_blueprint(bp)
    return app


@contextlib.contextmanager
def serve(app):
    """Serve app on 127.0.0.1 at a free port in a thread; yields the base URL."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


@contextlib.contextmanager
def chromium_page():
    """A playwright page in Debian's chromium; fails (never skips) when chromium is missing."""
    from playwright.sync_api import sync_playwright

    if not os.path.exists(CHROMIUM):
        raise RuntimeError(f"{CHROMIUM} is missing: install it with "
                           f"'apt-get install -y chromium' (the page tests need a real browser)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900},
                                    accept_downloads=True)
            errors = []
            page.on("pageerror", lambda err: errors.append(str(err)))
            page.js_errors = errors
            yield page
        finally:
            browser.close()


@pytest.fixture()
def page():
    """chromium_page for one test, which fails on any script error the page raised."""
    with chromium_page() as pg:
        yield pg
        assert pg.js_errors == []


def open_run(page, base_url, run, extra=""):
    """The graph harness page showing run (extra: more of the URL's hash), once drawn."""
    page.goto(f"{base_url}/graph_harness/index.html#graph.run={run}{extra}")
    page.wait_for_selector("svg.lg-svg[data-drawn]", timeout=20000)
