"""The PR curves, custom scalars, HParams and Profile dashboards in chromium, on the bundled
sample logs (what `lens board` serves with no arguments): each draws, and its main
interaction works."""

import json

import pytest

from conftest import launched_chromium, load_provider, serve, wait_until
from lens.board.app import create_app
from lens.board.cli import sample_logdir
from lens.examples import sample_plugins


@pytest.fixture(scope="module")
def browser():
    """Chromium with software WebGL (SwiftShader): parcoords and splom draw with WebGL."""
    with launched_chromium(webgl=True) as instance:
        yield instance


@pytest.fixture(scope="module")
def sample_server():
    app = create_app(load_provider(sample_logdir()))
    with serve(app) as url:
        yield url, app.test_client()


def open_tab(page, base, tab, extra=""):
    page.goto(f"{base}/#tab={tab}{extra}")
    page.wait_for_selector(f"#dashboard-{tab}:not([hidden])")


def plot_data(page, selector):
    """The plotly traces (JSON-safe parts) inside selector, or None before drawing."""
    return page.evaluate("""(sel) => {
        const el = document.querySelector(sel);
        const plot = el && (el.classList.contains("js-plotly-plot") ? el
                                                                   : el.querySelector(".js-plotly-plot"));
        return plot && plot.data ? plot.data.map(t => ({type: t.type, name: t.name,
            meta: t.meta || null, x: t.x ? Array.from(t.x) : null,
            y: t.y ? Array.from(t.y) : null})) : null; }""", selector)


def test_every_plugin_tab_is_listed_on_the_sample_logs(sample_server):
    _, client = sample_server
    listing = client.get("/data/plugins_listing").get_json()
    for plugin in ("pr_curves", "custom_scalars", "hparams", "profile"):
        assert listing[plugin]["enabled"], plugin


def test_pr_curves_cards_slider_and_tooltip(page, sample_server):
    base, client = sample_server
    open_tab(page, base, "pr_curves")
    card = ".pr-card[data-tag='spiral_class_1/pr_curves']"
    page.wait_for_selector(card + " .js-plotly-plot .scatterlayer .trace")
    assert page.locator(".pr-card").count() == 2
    steps = [e["step"] for e in client.get(
        "/data/plugin/pr_curves/pr_curves?run=classifier_pr&tag=spiral_class_1/pr_curves")
        .get_json()["classifier_pr"]]
    assert page.get_attribute(card, "data-step") == str(steps[-1])
    last = plot_data(page, card)[0]
    page.eval_on_selector(card + " .pr-step-slider",
                          "s => { s.value = '0'; s.dispatchEvent(new Event('input')); }")
    assert wait_until(lambda: page.get_attribute(card, "data-step") == str(steps[0]))
    first = plot_data(page, card)[0]
    assert first["meta"] == {"run": "classifier_pr", "step": steps[0]} and first["x"] != last["x"]
    page.evaluate("""(sel) => { const p = document.querySelector(sel + ' .js-plotly-plot');
        Plotly.Fx.hover(p, [{curveNumber: 0, pointNumber: 3}]); }""", card)
    assert wait_until(lambda: page.locator(card + " .hovertext").count() > 0)
    text = page.locator(card + " .hovertext").first.text_content()
    for word in ("threshold", "precision", "recall", "TP", "FP"):
        assert word in text, text
    assert page.errors == []


def test_custom_scalars_layout_and_regex_chart_in_url(page, sample_server):
    base, _ = sample_server
    open_tab(page, base, "custom_scalars")
    multiline = ".cs-card[data-title='loss and accuracy']"
    margin = ".cs-card.cs-margin"
    assert wait_until(lambda: page.get_attribute(multiline, "data-traces") == "6")
    roles = wait_until(lambda: [t["meta"]["role"] for t in plot_data(page, margin) or []])
    assert roles == ["lower", "upper", "value"]
    page.fill(".cs-regex", "learning_rate")
    page.click(".cs-add")
    mine = ".cs-card[data-title='learning_rate']"
    assert wait_until(lambda: page.get_attribute(mine, "data-traces") == "3")
    assert "custom_scalars.charts=" in page.url
    page.goto("about:blank")  # a fresh load of the shared URL restores the chart
    page.goto(base + "/#tab=custom_scalars&custom_scalars.charts=" + json.dumps(["learning_rate"]))
    assert wait_until(lambda: page.locator(mine).count() == 1 and
                      page.get_attribute(mine, "data-traces") == "3")
    page.click(mine + " .cs-remove")
    assert wait_until(lambda: page.locator(mine).count() == 0)
    assert page.errors == []


def _rows(page):
    return page.eval_on_selector_all(".hp-row", "rows => rows.map(r => r.dataset.group)")


def _column(page, index):
    return page.eval_on_selector_all(
        ".hp-row", "(rows, i) => rows.map(r => r.cells[i].textContent)", index)


def test_hparams_table_sort_filter_views_and_group_curves(page, sample_server):
    base, _ = sample_server
    open_tab(page, base, "hparams")
    assert wait_until(lambda: len(_rows(page)) == len(sample_plugins.TRIALS))
    headers = page.eval_on_selector_all(".hp-table th", "ths => ths.map(t => t.textContent)")
    loss_col = headers.index("loss")
    page.click(".hp-table th[data-key='m:/sweep_loss']")
    assert wait_until(lambda: "\u25b2" in page.text_content(".hp-table th[data-key='m:/sweep_loss']"))
    values = [float(v) for v in _column(page, loss_col)]
    assert values == sorted(values)
    page.click(".hp-table th[data-key='m:/sweep_loss']")
    assert wait_until(lambda: "\u25bc" in page.text_content(".hp-table th[data-key='m:/sweep_loss']"))
    values = [float(v) for v in _column(page, loss_col)]
    assert values == sorted(values, reverse=True)
    # filter: drop sgd trials (the server filters)
    page.uncheck(".hp-filter[data-key='h:optimizer'] input[data-value='\"sgd\"']")
    expected = sum(t["optimizer"] != "sgd" for t in sample_plugins.TRIALS)
    assert wait_until(lambda: len(_rows(page)) == expected)
    assert "sgd" not in _column(page, headers.index("optimizer"))
    assert "hparams.filters=" in page.url
    page.goto("about:blank")  # the shared URL brings the filter back
    page.goto(base + "/#tab=hparams&hparams.filters=" +
              json.dumps({"h:optimizer": {"values": ["adam"]}}))
    assert wait_until(lambda: len(_rows(page)) ==
                      sum(t["optimizer"] == "adam" for t in sample_plugins.TRIALS))
    assert not page.is_checked(".hp-filter[data-key='h:optimizer'] input[data-value='\"sgd\"']")
    # a group's metric curves
    page.click(".hp-row >> nth=0")
    assert wait_until(lambda: page.locator(".hp-curve-card[data-traces='1']").count() == 2)
    # the other views
    page.click(".hp-view[data-view='parcoords']")
    assert wait_until(lambda: (plot_data(page, ".hp-plot") or [{}])[0].get("type") == "parcoords")
    drawn = page.eval_on_selector_all(".hp-plot .parcoords .axis-title",
                                      "els => els.map(e => e.textContent)")
    assert drawn == headers[1:]  # an axis per hparam and metric, in table order
    assert "WebGL is not supported" not in page.text_content(".hp-plot")
    page.click(".hp-view[data-view='splom']")
    assert wait_until(lambda: (plot_data(page, ".hp-plot") or [{}])[0].get("type") == "splom")
    assert "WebGL is not supported" not in page.text_content(".hp-plot")
    assert "hparams.view=splom" in page.url
    assert page.errors == []


def test_profile_trace_and_top_ops(page, sample_server):
    base, client = sample_server
    open_tab(page, base, "profile", "&profile.run=lr_0.1&profile.tag=step10")
    page.wait_for_selector(".profile-trace.js-plotly-plot")
    trace = client.get("/data/plugin/profile/trace?run=lr_0.1&tag=step10").get_json()
    bars = plot_data(page, ".profile-trace")
    assert [b["name"] for b in bars] == [d["name"] for d in trace["devices"]]
    assert len(bars) == 2  # the sample model runs on two CPU devices
    assert page.get_attribute(".profile-trace", "data-ops") == \
        str(sum(len(d["ops"]) for d in trace["devices"]))
    times = page.eval_on_selector_all(".profile-time tbody tr",
                                      "rows => rows.map(r => Number(r.cells[4].textContent))")
    assert len(times) == 20 and times == sorted(times, reverse=True)
    memory = page.eval_on_selector_all(".profile-memory tbody tr",
                                       "rows => rows.map(r => Number(r.cells[5].textContent))")
    assert memory == sorted(memory, reverse=True)
    # zoom: a relayout of the x axis keeps the rows (one per device)
    page.evaluate("""() => Plotly.relayout(document.querySelector('.profile-trace.js-plotly-plot'),
        {'xaxis.range': [0, 10]})""")
    assert page.evaluate("() => document.querySelector('.profile-trace.js-plotly-plot')"
                         "._fullLayout.xaxis.range[1]") == 10
    page.select_option(".profile-tag", "step40")
    assert wait_until(lambda: "profile.tag=step40" in page.url)
    assert page.errors == []
