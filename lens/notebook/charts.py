"""`show_scalars` and `show_histograms`: the board's charts inline, with plotly, no server.

Data comes through lens.events' DataProvider (one synchronous pass over the logdir), the
same reader the board uses; scalars get the board's debiased EMA smoothing. plotly.js is
sent once per kernel, from the installed plotly package (no CDN: it works offline and in
exported HTML).
"""

import math
import re

from lens.board.histograms import DEFAULT_SAMPLES, histogram_rows
from lens.events.provider import DataProvider
from lens.notebook import ipy

DEFAULT_SMOOTHING = 0.6          # the board's default slider value
_sent_plotly = False             # plotly.js already sent to this kernel's page
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf")


def smooth(values, weight):
    """TensorBoard's debiased EMA (the board's charts.js): non-finite points pass through and
    a constant series comes back unchanged."""
    if not 0 <= weight <= 1:
        raise ValueError(f"smoothing must be in [0, 1], got {weight}")
    finite = [v for v in values if math.isfinite(v)]
    constant = bool(finite) and all(v == finite[0] for v in finite)
    out, last, count = [], 0.0, 0
    for y in values:
        if not math.isfinite(y) or constant:
            out.append(y)
            continue
        last = last * weight + (1 - weight) * y
        count += 1
        debias = 1.0 if weight == 1 else 1 - weight ** count
        out.append(last / debias)
    return out


def load(logdir_or_run):
    """A DataProvider that has read logdir_or_run once (a provider passes through)."""
    if hasattr(logdir_or_run, "list_tags"):
        return logdir_or_run
    provider = DataProvider(logdir_or_run, reload_interval=0)
    provider.reload()
    return provider


def _matcher(selection, what):
    """A predicate from None (all), a regex string, or a list of exact names."""
    if selection is None:
        return lambda name: True
    if isinstance(selection, str):
        try:
            rx = re.compile(selection)
        except re.error as err:
            raise ValueError(f"{what}={selection!r} is not a valid regex: {err}") from None
        return lambda name: rx.search(name) is not None
    wanted = set(selection)
    return lambda name: name in wanted


def _series(provider, plugin, tags, runs):
    """{tag: [run, ...]} of the plugin's series matching tags and runs, sorted."""
    tag_ok, run_ok = _matcher(tags, "tags"), _matcher(runs, "runs")
    out = {}
    for run, run_tags in provider.list_tags(plugin).items():
        if not run_ok(run):
            continue
        for tag in run_tags:
            if tag_ok(tag):
                out.setdefault(tag, []).append(run)
    if not out:
        raise ValueError(f"no {plugin} match tags={tags!r} runs={runs!r} in "
                         f"{getattr(provider, 'logdir', 'this logdir')}; available: "
                         f"{sorted({t for r in provider.list_tags(plugin).values() for t in r})}")
    return {tag: sorted(rs) for tag, rs in sorted(out.items())}


def scalar_figures(logdir_or_run, tags=None, runs=None, smoothing=DEFAULT_SMOOTHING):
    """One plotly Figure per scalar tag: each run's raw points (faint) and smoothed line."""
    import plotly.graph_objects as go

    provider = load(logdir_or_run)
    figures = []
    for tag, tag_runs in _series(provider, "scalars", tags, runs).items():
        fig = go.Figure()
        for i, run in enumerate(tag_runs):
            steps, _, values = provider.scalars(run, tag)
            x, y = steps.tolist(), values.tolist()
            color = PALETTE[i % len(PALETTE)]
            if smoothing > 0:
                fig.add_scatter(x=x, y=y, mode="lines", name=run, legendgroup=run,
                                showlegend=False, opacity=0.25, line={"color": color},
                                hoverinfo="skip")
            fig.add_scatter(x=x, y=smooth(y, smoothing), mode="lines", name=run,
                            legendgroup=run, line={"color": color})
        fig.update_layout(title=tag, xaxis_title="step", height=320,
                          margin={"l": 50, "r": 20, "t": 40, "b": 40})
        figures.append(fig)
    return figures


def histogram_figures(logdir_or_run, tags=None, runs=None, samples=DEFAULT_SAMPLES):
    """One plotly Figure per (histogram tag, run): a line per step, newer steps darker
    (TensorBoard's overlay mode), over the steps the board shows (51 spread evenly)."""
    import plotly.graph_objects as go

    provider = load(logdir_or_run)
    figures = []
    for tag, tag_runs in _series(provider, "histograms", tags, runs).items():
        for run in tag_runs:
            rows = histogram_rows(provider.histogram_buckets(run, tag), samples)
            fig = go.Figure()
            n = len(rows)
            for i, (_, step, buckets) in enumerate(rows):
                shade = int(200 - 170 * (i / max(1, n - 1)))
                centers = [(left + right) / 2 for left, right, _ in buckets]
                counts = [count for _, _, count in buckets]
                fig.add_scatter(x=centers, y=counts, mode="lines", name=f"step {step}",
                                line={"color": f"rgb({shade},{shade // 2 + 60},{255 - shade // 3})",
                                      "width": 1})
            fig.update_layout(title=f"{tag} ({run})", height=320, showlegend=False,
                              margin={"l": 50, "r": 20, "t": 40, "b": 40})
            figures.append(fig)
    return figures


def _plotly_js_html():
    """A <script> holding plotly.js, hidden from require.js so it sets window.Plotly."""
    from lens.board.app import plotly_js_path

    source = plotly_js_path().read_text(encoding="utf-8").replace("</", "<\\/")
    return ("<script>window.__lensDefine = window.define; window.define = undefined;</script>"
            f"<script>{source}</script>"
            "<script>window.define = window.__lensDefine;</script>")


def figures_html(figures, include_plotlyjs=None):
    """HTML for the figures, plotly.js in front the first time in this kernel (None), always
    (True) or never (False)."""
    global _sent_plotly
    send = not _sent_plotly if include_plotlyjs is None else bool(include_plotlyjs)
    parts = [_plotly_js_html()] if send else []
    _sent_plotly = _sent_plotly or send
    parts += [fig.to_html(full_html=False, include_plotlyjs=False,
                          config={"displaylogo": False}) for fig in figures]
    return "\n".join(parts)


def _display(figures, include_plotlyjs):
    titles = ", ".join(str(f.layout.title.text) for f in figures)
    ipy.display(ipy.Html(figures_html(figures, include_plotlyjs), f"lens charts: {titles}"))


def show_scalars(logdir_or_run, tags=None, runs=None, smoothing=DEFAULT_SMOOTHING,
                 include_plotlyjs=None):
    """Draw scalar tags inline (tags/runs: None for all, a regex, or a list of names)."""
    _display(scalar_figures(logdir_or_run, tags, runs, smoothing), include_plotlyjs)


def show_histograms(logdir_or_run, tags=None, runs=None, samples=DEFAULT_SAMPLES,
                    include_plotlyjs=None):
    """Draw histogram tags inline, a chart per tag and run (samples=0: every step)."""
    _display(histogram_figures(logdir_or_run, tags, runs, samples), include_plotlyjs)
