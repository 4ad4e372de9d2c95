"""Ask a board every core route over a logdir and record the answers (TensorBoard or lens).

`record(get, post)` crawls: runs, plugins_listing, then every tag index, and for each tag the
data routes a page would fetch (every sample index for images and audio, then each row's
query on individual* so the bytes are recorded as sha256). `get(url)` / `post(url, form)`
return (status, content_type, body bytes), so any WSGI client or HTTP server fits.
"""

import hashlib
import json
from urllib.parse import urlencode

FIXTURE_NAME = "tb_parity_answers.json"
TAG_PLUGINS = ("scalars", "histograms", "distributions", "images", "audio", "text")
BLOB_ROUTES = {"images": "individualImage", "audio": "individualAudio"}


def tensorboard_wsgi(logdir):
    """Real TensorBoard (Python data path, default sampling, one load) as a WSGI app."""
    from tensorboard import default, program
    from tensorboard.backend import application
    from tensorboard.backend.event_processing import data_ingester

    tb = program.TensorBoard(plugins=default.get_plugins())
    # A blocking reload reads everything once before start() returns (the default reload
    # task is a thread, which would race the first request).
    tb.configure(argv=[None, "--logdir", str(logdir), "--load_fast", "false",
                       "--reload_interval", "0", "--reload_task", "blocking"])
    ingester = data_ingester.LocalDataIngester(tb.flags)
    ingester.start()
    return application.TensorBoardWSGIApp(tb.flags, tb.plugin_loaders, ingester.data_provider,
                                          tb.assets_zip_provider,
                                          ingester.deprecated_multiplexer)


def wsgi_fetchers(app):
    """(get, post) over a WSGI app through werkzeug's test client."""
    from werkzeug.test import Client

    client = Client(app)

    def unpack(response):
        return response.status_code, response.mimetype, response.get_data()

    return (lambda url: unpack(client.get(url)),
            lambda url, form: unpack(client.post(url, data=form)))


def _json(get, url):
    status, _, body = get(url)
    if status != 200:
        raise AssertionError("%s answered %d: %s" % (url, status, body[:300]))
    return json.loads(body)


def _entry(get, url):
    """One recorded answer: status, mimetype, and JSON or text."""
    status, mimetype, body = get(url)
    entry = {"url": url, "status": status, "mimetype": mimetype}
    if mimetype == "application/json":
        entry["json"] = json.loads(body)
    else:
        entry["text"] = body.decode("utf-8", "replace")
    return entry


def blob_digest(get, url):
    """sha256, size and MIME type of the bytes behind an individualImage/Audio URL."""
    status, mimetype, body = get(url)
    if status != 200:
        raise AssertionError("%s answered %d: %s" % (url, status, body[:300]))
    return {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body), "mimetype": mimetype}


def data_url(plugin, route, **params):
    return "/data/plugin/%s/%s?%s" % (plugin, route, urlencode(params))


def _media(get, plugin, run, tag, samples):
    """Rows of every sample index, each row with the digest of the bytes it points at."""
    out = []
    route = "images" if plugin == "images" else "audio"
    for sample in range(samples):
        entry = _entry(get, data_url(plugin, route, run=run, tag=tag, sample=sample))
        for row in entry.get("json", []):
            row["blob"] = blob_digest(get, "/data/plugin/%s/%s?%s"
                                      % (plugin, BLOB_ROUTES[plugin], row["query"]))
        out.append(entry)
    return out


def record(get, post):
    """Every core route's answer, in a stable order, as a JSON-ready list of entries."""
    entries = [_entry(get, "/data/runs"), _entry(get, "/data/plugins_listing")]
    for plugin in TAG_PLUGINS:
        index = _entry(get, "/data/plugin/%s/tags" % plugin)
        entries.append(index)
        for run, tags in sorted(index["json"].items()):
            for tag in sorted(tags):
                if plugin == "scalars":
                    entries.append(_entry(get, data_url(plugin, "scalars", run=run, tag=tag)))
                    entries.append(_entry(get, data_url(plugin, "scalars", run=run, tag=tag,
                                                        format="csv")))
                elif plugin in BLOB_ROUTES:
                    entries += _media(get, plugin, run, tag, tags[tag]["samples"])
                else:
                    entries.append(_entry(get, data_url(plugin, plugin, run=run, tag=tag)))
    scalar_runs = sorted(_json(get, "/data/plugin/scalars/tags"))
    status, mimetype, body = post("/data/plugin/scalars/scalars_multirun",
                                  {"tag": "epoch_loss", "runs": scalar_runs})
    entries.append({"url": "/data/plugin/scalars/scalars_multirun", "form":
                    {"tag": "epoch_loss", "runs": scalar_runs}, "status": status,
                    "mimetype": mimetype, "json": json.loads(body)})
    return entries
