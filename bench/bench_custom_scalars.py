"""Custom scalars routes, lens vs TensorBoard 2.21's own custom_scalars plugin (in-process, the
same Python data path as bench_hparams) on one logdir: 20 runs x 8 tags x 1,000 steps written
by lens's FileWriter, a layout of multiline and margin charts in the first run.

Rows (median ms of several requests each):
- /layout (every run's layout merged);
- /scalars?run=&tag=<regex> for a regex matching 4 tags, over every run;
- /download_data one series as CSV.
"""

import json
import statistics
import tempfile
import time
from pathlib import Path

from bench.bench_hparams import _tensorboard_client

TAGS = ["loss/train", "loss/eval", "acc/train", "acc/eval", "lr", "grad/norm", "grad/max",
        "grad/min"]


def write_logdir(root, runs, steps):
    """runs x TAGS x steps scalars; run_00 also holds the layout summary."""
    from lens.events.writer import FileWriter
    from lens.plugins.custom_scalar import layout_pb2, summary
    from lens.proto import summary_pb2

    layout = layout_pb2.Layout(category=[layout_pb2.Category(title="losses", chart=[
        layout_pb2.Chart(title="loss", multiline=layout_pb2.MultilineChartContent(
            tag=[r"loss/.*"])),
        layout_pb2.Chart(title="grad band", margin=layout_pb2.MarginChartContent(series=[
            layout_pb2.MarginChartContent.Series(value="grad/norm", lower="grad/min",
                                                 upper="grad/max")]))])])
    for r in range(runs):
        with FileWriter(str(Path(root) / ("run_%02d" % r))) as w:
            if r == 0:
                w.add_summary(summary.pb(layout), 0)
            for step in range(steps):
                w.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(
                    tag=tag, simple_value=(step * (t + 1) + r) % 97 / 97.0)
                    for t, tag in enumerate(TAGS)]), step)


def _median_ms(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _checks(runs, steps):
    """(name, url, check(body bytes)) per row."""
    def layout(body):
        assert json.loads(body)["category"][0]["title"] == "losses"

    def scalars(body):
        got = json.loads(body)["tag_to_events"]
        assert len(got) == 4 and all(len(v) == steps for v in got.values()), sorted(got)

    def download(body):
        assert body.count(b"\n") == steps + 1

    base = "/data/plugin/custom_scalars"
    return [
        ("custom scalars /layout", [base + "/layout"], layout),
        ("custom scalars /scalars, regex of 4 tags, every run",
         [base + "/scalars?run=run_%02d&tag=%s" % (r, "(loss|acc)/") for r in range(runs)],
         scalars),
        ("custom scalars /download_data csv", [base + "/download_data?run=run_00&tag=loss/train"
                                               "&format=csv"], download),
    ]


def run(quick=False):
    from lens.board.app import create_app
    from lens.events.provider import DataProvider

    runs, steps = (3, 200) if quick else (20, 1000)  # TensorBoard keeps 1,000 a series
    repeats = 2 if quick else 5
    rows = []
    with tempfile.TemporaryDirectory() as root:
        write_logdir(root, runs, steps)
        provider = DataProvider(root, reload_interval=0)
        provider.reload()
        clients = {"lens": create_app(provider).test_client()}
        try:
            clients["tb"] = _tensorboard_client(root)
        except ImportError:
            pass

        def ask(client, urls, check):
            for url in urls:
                response = client.get(url)
                assert response.status_code == 200, (url, response.get_data()[:200])
                check(response.get_data())

        for name, urls, check in _checks(runs, steps):
            times = {side: _median_ms(lambda c=c: ask(c, urls, check), repeats)
                     for side, c in clients.items()}
            rows.append({"name": name, "lens": times["lens"], "other": times.get("tb"),
                         "other_name": "TensorBoard 2.21 plugin", "unit": "ms",
                         "note": "%d runs x %d tags x %d steps; at least as fast as TensorBoard"
                         % (runs, len(TAGS), steps)})
    return rows
