"""The board's Flask app factory: one blueprint per dashboard plus the page and its assets.

`create_app(logdir_or_provider)` accepts a logdir path, a {name: path} logdir_spec dict, or an
object already implementing lens.events.provider.DataProvider (tests and benches pass one in).
"""

import importlib
import logging
import os
from pathlib import Path

from flask import Flask, abort, send_file, send_from_directory
from werkzeug.exceptions import HTTPException

from lens.board.params import json_response
from lens.events.provider import NotFound as ProviderNotFound

STATIC_DIR = Path(__file__).resolve().parent / "static"

# Dashboards in tab order; graphs belongs to another module owner and may not exist yet.
DASHBOARD_MODULES = ("timeseries", "scalars", "images", "audio", "graphs", "distributions",
                     "histograms", "text",
                     "custom_scalars",
                     "pr_curves",
                     "hparams",
                     "projector",
                     "mesh",
                     "profile",
                     "debugger_v2")

# Scripts may only come from this server; plotly injects inline styles, images may be blobs.
# 'unsafe-eval': plotly's WebGL traces (parcoords, splom, scattergl) build their drawing code
# with Function() (regl); no inline script may run, and no logged data reaches eval.
CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-eval'; "
                           "style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
                           "media-src 'self' blob:; object-src 'none'; base-uri 'none'; "
                           "frame-ancestors 'self'")

# Sent with every response (after_request; a module's wsgi_fast_path adds them itself).
SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"),
                    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
                    ("Referrer-Policy", "no-referrer"))

log = logging.getLogger(__name__)


def _is_provider(obj):
    """True for an object that already serves data (duck-typed on the provider contract)."""
    return hasattr(obj, "list_tags") and hasattr(obj, "runs")


def _make_provider(logdir, reload_interval, samples_per_plugin):
    """Build and start a DataProvider for a path or a {name: path} spec."""
    from lens.events.provider import DataProvider

    if isinstance(logdir, os.PathLike):
        logdir = os.fspath(logdir)
    provider = DataProvider(logdir, reload_interval=reload_interval,
                            samples_per_plugin=samples_per_plugin)
    provider.start()
    return provider


def _describe_location(logdir):
    """The data_location string shown by /data/environment."""
    if isinstance(logdir, dict):
        return ",".join(f"{name}:{path}" for name, path in logdir.items())
    return os.fspath(logdir)


def plotly_js_path():
    """plotly.min.js from the installed plotly package (the board never uses a CDN)."""
    import plotly

    return Path(plotly.__file__).resolve().parent / "package_data" / "plotly.min.js"


def dashboard_modules():
    """Import every dashboard module that exists; a missing one only loses its tab."""
    modules = {}
    for name in DASHBOARD_MODULES:
        try:
            modules[name] = importlib.import_module(f"lens.board.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"lens.board.{name}":
                raise  # a real import error inside the module must not be hidden
            log.info("dashboard %s not available yet", name)
    return modules


def _register_error_handlers(app):
    """Every error leaves as JSON {"error": message} with the matching status."""

    @app.errorhandler(HTTPException)
    def _http_error(err):
        return json_response({"error": err.description}, status=err.code or 500)

    @app.errorhandler(ProviderNotFound)
    def _not_found(err):
        message = err.args[0] if err.args else "not found"
        return json_response({"error": str(message)}, status=404)


def _register_page(app):
    """The single page, its static files and the vendored plotly bundle."""

    @app.route("/")
    def index():
        return send_from_directory(STATIC_DIR, "index.html", max_age=0)

    @app.route("/static/vendor/plotly.min.js")
    def plotly_js():
        path = plotly_js_path()
        if not path.is_file():
            abort(404, "plotly.min.js is missing from the plotly package: reinstall plotly")
        return send_file(path, mimetype="text/javascript", max_age=3600)

    @app.route("/static/<path:filename>")
    def static_file(filename):
        # send_from_directory refuses paths that escape STATIC_DIR.
        return send_from_directory(STATIC_DIR, filename, max_age=0)

    @app.after_request
    def _security_headers(response):
        for name, value in SECURITY_HEADERS:
            response.headers.setdefault(name, value)
        return response


def create_app(logdir_or_provider, reload_interval=5.0, samples_per_plugin=None):
    """Build the board's Flask app over a logdir, a logdir_spec dict or a DataProvider."""
    app = Flask(__name__, static_folder=None)
    app.json.sort_keys = False
    if _is_provider(logdir_or_provider):
        provider = logdir_or_provider
        location = getattr(provider, "logdir", "")
        location = _describe_location(location) if location else ""
    else:
        provider = _make_provider(logdir_or_provider, reload_interval, samples_per_plugin)
        location = _describe_location(logdir_or_provider)
    app.config["LENS_PROVIDER"] = provider
    app.config["LENS_DATA_LOCATION"] = location
    app.config["LENS_RELOAD_INTERVAL"] = reload_interval

    from lens.board import core

    modules = dashboard_modules()
    app.config["LENS_DASHBOARDS"] = modules
    app.register_blueprint(core.bp)
    for module in modules.values():
        app.register_blueprint(module.bp)
    _register_error_handlers(app)
    _register_page(app)
    for module in modules.values():  # answers a dashboard serves without Flask's dispatch
        if hasattr(module, "wsgi_fast_path"):
            app.wsgi_app = module.wsgi_fast_path(app.wsgi_app, provider, SECURITY_HEADERS)
    return app
