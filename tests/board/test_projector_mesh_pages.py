"""The Projector and Mesh dashboards in chromium: on the bundled sample logs each draws and its
main interaction works (projector: click a point -> neighbours and sprite, search; mesh: the step
slider); on fixtures/projector_logdir the bad items say what is wrong and the rest still draws."""

import os

import pytest

from conftest import launched_chromium, load_provider, serve, wait_until
from lens.board.app import create_app
from lens.board.cli import sample_logdir

FIXTURE_LOGDIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "projector_logdir")


@pytest.fixture(scope="module")
def browser():
    """Chromium with software WebGL (SwiftShader): scatter3d, scattergl and mesh3d need WebGL."""
    with launched_chromium(webgl=True) as instance:
        yield instance


@pytest.fixture(scope="module")
def sample_url():
    with serve(create_app(load_provider(sample_logdir()))) as url:
        yield url


@pytest.fixture(scope="module")
def fixture_url():
    with serve(create_app(load_provider(FIXTURE_LOGDIR))) as url:
        yield url


def _traces(page, selector):
    return page.evaluate("""(sel) => { const p = document.querySelector(sel);
        return p && p.data ? p.data.map(t => ({type: t.type, n: (t.x || []).length, name: t.name || null,
            i: t.i ? t.i.length : 0, vertexcolor: t.vertexcolor ? t.vertexcolor.length : 0})) : null; }""",
                         selector)


def test_projector_draws_clicks_to_neighbours_and_searches(page, sample_url):
    # 2D first: software WebGL draws scattergl much faster than a 3D scene.
    page.goto(sample_url + "/#tab=projector&projector.dims=2")
    page.wait_for_selector(".proj-root[data-points='60']", timeout=30000)
    traces = _traces(page, ".proj-plot")
    assert traces[0]["type"] == "scattergl" and traces[0]["n"] == 60
    assert "variance explained" in page.text_content(".proj-variance")
    page.evaluate("""() => { const p = document.querySelector('.proj-plot');
        p.emit('plotly_click', {points: [{curveNumber: 0, pointNumber: 4}]}); }""")
    assert wait_until(lambda: page.locator(".proj-neighbour").count() == 10)
    assert page.get_attribute(".proj-root", "data-selected") == "4"
    assert "square_4" in page.text_content(".proj-selected")
    # Point 4 is a square: its nearest neighbours are the other squares (clusters are well apart).
    names = page.locator(".proj-neighbour").all_text_contents()
    assert all(n.startswith("square_") for n in names), names
    assert page.is_visible(".proj-sprite")
    assert page.locator(".proj-neighbour canvas.proj-thumb").count() == 10
    page.fill(".proj-search", "^triangle_")
    assert wait_until(lambda: page.text_content(".proj-search-info") == "20 matches")
    page.select_option(".proj-dims", "3")
    assert wait_until(lambda: page.get_attribute(".proj-root", "data-dims") == "3", timeout=30)
    assert _traces(page, ".proj-plot")[0]["type"] == "scatter3d"
    assert page.errors == []
    check_mesh_page(page)


def test_bad_items_are_named_and_the_rest_draws(page, fixture_url):
    page.goto(fixture_url + "/#tab=projector&projector.run=bad_rows&projector.dims=2")
    page.wait_for_selector(".proj-root[data-points='5']", timeout=30000)
    problems = page.text_content(".proj-problems")
    assert "missing_ckpt" in problems and "nowhere.ckpt" in problems
    assert "3 rows but the tensor has 5 points" in page.text_content(".proj-note")
    page.select_option(".proj-run", "words")
    page.wait_for_selector(".proj-root[data-points='8']", timeout=30000)
    page.select_option(".proj-tensor", "missing/tensor")
    assert wait_until(lambda: "not found in checkpoint" in page.text_content(".status"))
    page.click("#tabs button[data-dashboard=mesh]")
    page.wait_for_selector(".mesh-card[data-tag='broken'][data-error='1']", timeout=30000)
    assert "faces index vertex 4" in page.text_content(".mesh-card[data-tag='broken'] .mesh-note")
    page.wait_for_selector(".mesh-card[data-tag='tetra'][data-drawn='1']")
    assert page.errors == []


def check_mesh_page(page):
    """The sample mesh run: the octahedron draws with vertex colours; the slider changes its step."""
    page.click("#tabs button[data-dashboard=mesh]")
    card = ".mesh-card[data-tag='octahedron']"
    page.wait_for_selector(card + "[data-drawn='1']", timeout=30000)
    trace = _traces(page, card + " .js-plotly-plot")[0]
    assert (trace["type"], trace["n"], trace["i"], trace["vertexcolor"]) == ("mesh3d", 6, 8, 6)
    assert page.get_attribute(card, "data-step") == "2"
    x_last = page.evaluate("(s) => Array.from(document.querySelector(s).data[0].x)", card + " .js-plotly-plot")
    page.eval_on_selector(card + " .mesh-step-slider", "s => { s.value = '0'; s.dispatchEvent(new Event('input')); }")
    assert wait_until(lambda: page.evaluate("(s) => document.querySelector(s).data[0].x[0]",
                                            card + " .js-plotly-plot") == 1)
    assert x_last[0] == 2
    cloud = ".mesh-card[data-tag='point_cloud']"
    page.wait_for_selector(cloud + "[data-drawn='1']")
    assert _traces(page, cloud + " .js-plotly-plot")[0]["type"] == "scatter3d"
    assert page.errors == []

