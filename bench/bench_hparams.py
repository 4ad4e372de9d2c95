"""Plugin benchmarks, lens vs TensorBoard 2.21's own plugins (in-process, Python data path) on
the same logdir: list an experiment of 1,000 session groups (each session one run with its
hparams and a loss scalar) through /data/plugin/hparams/session_groups (goal: lens < 1 s), and
fetch 100 steps of a 201-threshold PR curve through /data/plugin/pr_curves/pr_curves."""

import json
import statistics
import tempfile
import time
from pathlib import Path

BODY = json.dumps({"experimentName": "", "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS"],
                   "colParams": [{"hparam": "lr"}, {"hparam": "units"}, {"hparam": "opt"},
                                 {"metric": {"tag": "loss", "group": ""}, "order": "ORDER_ASC"}],
                   "startIndex": 0, "sliceSize": 1000})


def write_logdir(root, sessions):
    """One run per session: hparams (own trial id), a loss series, an end."""
    from lens.events.writer import FileWriter
    from lens.plugins import hparams as hp
    from lens.proto import summary_pb2

    for i in range(sessions):
        with FileWriter(str(Path(root) / ("s%04d" % i))) as w:
            w.add_summary(hp.hparams_pb({"lr": 10.0 ** -(i % 5), "units": 8 * (i % 9),
                                         "opt": ["adam", "sgd", "rms"][i % 3]},
                                        trial_id="trial-%04d" % i, start_time_secs=float(i)), 0)
            for step in range(3):
                w.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
                    tag="loss", simple_value=(i % 97) / 97.0 + step)]), step)
            w.add_summary(hp.session_end_pb(1, end_time_secs=float(i) + 1), 3)


def write_pr_run(root, steps):
    """One run with a 201-threshold PR curve at every step."""
    import numpy as np

    from lens.events.writer import FileWriter
    from lens.plugins import pr_curve

    rng = np.random.default_rng(0)
    with FileWriter(str(Path(root) / "pr")) as w:
        for step in range(steps):
            labels = rng.random(500) < 0.5
            w.add_summary(pr_curve.pb("clf", labels, np.clip(labels * 0.3 + rng.random(500) * 0.7,
                                                             0, 1)), step)


def _median_ms(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _tensorboard_client(root):
    from tensorboard import default, program
    from tensorboard.backend import application
    from tensorboard.backend.event_processing import data_ingester
    from werkzeug.test import Client

    tb = program.TensorBoard(plugins=default.get_plugins())
    tb.configure(argv=[None, "--logdir", str(root), "--load_fast", "false",
                       "--reload_interval", "0", "--reload_task", "blocking"])
    ingester = data_ingester.LocalDataIngester(tb.flags)
    ingester.start()
    return Client(application.TensorBoardWSGIApp(tb.flags, tb.plugin_loaders,
                                                 ingester.data_provider, tb.assets_zip_provider,
                                                 ingester.deprecated_multiplexer))


def run(quick=False):
    from lens.board.app import create_app
    from lens.events.provider import DataProvider

    sessions = 50 if quick else 1000
    repeats = 2 if quick else 5
    with tempfile.TemporaryDirectory() as root:
        write_logdir(root, sessions)
        provider = DataProvider(root, reload_interval=0)
        provider.reload()
        lens_client = create_app(provider).test_client()

        def ask(client):
            response = client.post("/data/plugin/hparams/session_groups", data=BODY,
                                   content_type="application/json")
            assert response.status_code == 200, response.get_data()[:200]
            assert json.loads(response.get_data())["totalSize"] == sessions

        lens_ms = _median_ms(lambda: ask(lens_client), repeats)
        try:
            tb_client = _tensorboard_client(root)
            tb_ms = _median_ms(lambda: ask(tb_client), repeats)
        except ImportError:
            tb_ms = None
    rows = [{"name": "hparams session_groups, %d groups" % sessions, "lens": lens_ms,
             "other": tb_ms, "other_name": "TensorBoard 2.21 plugin", "unit": "ms",
             "note": "goal < 1000 ms"}]
    return rows + _pr_rows(10 if quick else 100, repeats)


def _pr_rows(steps, repeats):
    from lens.board.app import create_app
    from lens.events.provider import DataProvider

    url = "/data/plugin/pr_curves/pr_curves?run=pr&tag=clf/pr_curves"
    with tempfile.TemporaryDirectory() as root:
        write_pr_run(root, steps)
        provider = DataProvider(root, reload_interval=0)
        provider.reload()
        clients = {"lens": create_app(provider).test_client()}
        try:
            clients["tb"] = _tensorboard_client(root)
        except ImportError:
            pass

        def fetch(client):
            response = client.get(url)
            assert response.status_code == 200, response.get_data()[:200]
            assert len(json.loads(response.get_data())["pr"]) == steps

        times = {name: _median_ms(lambda c=c: fetch(c), repeats) for name, c in clients.items()}
    return [{"name": "pr_curves route, %d steps x 201 thresholds" % steps, "lens": times["lens"],
             "other": times.get("tb"), "other_name": "TensorBoard 2.21 plugin", "unit": "ms",
             "note": "at least as fast as TensorBoard"}]
