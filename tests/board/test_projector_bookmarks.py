"""Projector in chromium: sprites drawn as the points of a 2D view, and bookmarks (the config's
bookmarks file, views saved in the browser and restored, kept across a reload)."""

import os

from PIL import Image

from conftest import wait_until
from test_projector_mesh_pages import FIXTURE_LOGDIR, browser, fixture_url  # noqa: F401

WORDS = "/#tab=projector&projector.run=words&projector.dims=2"
SPRITE = os.path.join(FIXTURE_LOGDIR, "words", "sprite.png")


def open_words(page, url):
    page.goto(url + WORDS)
    page.wait_for_selector(".proj-root[data-points='8']", timeout=30000)


def layer_pixel_at_point(page, i):
    """RGBA of the sprite layer 1.5 px right of and below point i's centre: inside the tile's
    pixel (2, 2), as a 4 px tile is drawn 12 px wide."""
    return page.evaluate("""(i) => {
        const gd = document.querySelector('.proj-plot');
        const c = gd.querySelector('canvas.proj-sprite-layer');
        const L = gd._fullLayout, r = window.devicePixelRatio || 1;
        const x = L.xaxis.l2p(gd.data[0].x[i]), y = L.yaxis.l2p(gd.data[0].y[i]);
        return Array.from(c.getContext('2d').getImageData(Math.floor((x + 1.5) * r), Math.floor((y + 1.5) * r),
            1, 1).data); }""", i)


def test_sprites_are_drawn_as_the_points(page, fixture_url):  # noqa: F811
    open_words(page, fixture_url)
    assert wait_until(lambda: page.get_attribute(".proj-plot", "data-sprites") == "8")
    # The last point is drawn last (on top): its centre shows its own tile's pixel (2, 2).
    sheet = Image.open(SPRITE).convert("RGBA")
    per_row = sheet.width // 4
    tile_x, tile_y = (7 % per_row) * 4, (7 // per_row) * 4
    want = list(sheet.getpixel((tile_x + 2, tile_y + 2)))
    got = layer_pixel_at_point(page, 7)
    assert max(abs(a - b) for a, b in zip(got, want)) <= 2, (got, want)
    # While a drag zooms or pans, the tiles hide (they would lag); the redraw shows them again.
    layer = ".proj-plot canvas.proj-sprite-layer"
    page.evaluate("() => document.querySelector('.proj-plot').emit('plotly_relayouting', {})")
    assert page.eval_on_selector(layer, "c => c.style.visibility") == "hidden"
    # Zooming moves the sprites with the points; unticking the box removes them.
    page.evaluate("""() => Plotly.relayout(document.querySelector('.proj-plot'),
        {'xaxis.range': [1e6, 2e6]})""")
    assert wait_until(lambda: page.get_attribute(".proj-plot", "data-sprites") == "0")
    page.evaluate("() => Plotly.relayout(document.querySelector('.proj-plot'), {'xaxis.autorange': true})")
    assert wait_until(lambda: page.get_attribute(".proj-plot", "data-sprites") == "8")
    assert page.eval_on_selector(layer, "c => c.style.visibility") == "visible"
    page.uncheck(".proj-sprites")
    assert page.locator(".proj-plot canvas.proj-sprite-layer").count() == 0
    assert "sprites=0" in page.url
    assert page.errors == []


def test_bookmarks_save_restore_and_file(page, fixture_url):  # noqa: F811
    open_words(page, fixture_url)
    # The config's bookmarks file is listed (read-only) and applies without error.
    page.wait_for_selector(".proj-bookmark-file[data-label='first']")
    page.click(".proj-bookmark-file .proj-bookmark-open")
    assert wait_until(lambda: page.get_attribute(".proj-root", "data-bookmark") == "first")
    # A view: colour by length, label by word, a search, point 2 selected, zoomed in.
    page.select_option(".proj-color", label="length")
    page.select_option(".proj-label", label="word")
    page.fill(".proj-search", "^p")
    page.evaluate("""() => document.querySelector('.proj-plot').emit('plotly_click',
        {points: [{curveNumber: 0, pointNumber: 2}]})""")
    assert wait_until(lambda: page.get_attribute(".proj-root", "data-selected") == "2")
    zoom = page.evaluate("""async () => { const gd = document.querySelector('.proj-plot');
        const [a, b] = gd._fullLayout.xaxis.range, [c, d] = gd._fullLayout.yaxis.range;
        const x = [a + (b - a) / 4, b - (b - a) / 4], y = [c + (d - c) / 4, d - (d - c) / 4];
        await Plotly.relayout(gd, {'xaxis.range': x, 'yaxis.range': y}); return [x, y]; }""")
    page.fill(".proj-bookmark-name", "mine")
    page.click(".proj-bookmark-save")
    page.wait_for_selector(".proj-bookmark[data-label='mine']")
    # Change everything, then restore the bookmark after a reload (kept in the browser).
    page.select_option(".proj-color", label="(none)")
    page.fill(".proj-search", "")
    page.reload()
    page.wait_for_selector(".proj-root[data-points='8']", timeout=30000)
    page.click(".proj-bookmark[data-label='mine'] .proj-bookmark-open")
    assert wait_until(lambda: page.get_attribute(".proj-root", "data-bookmark") == "mine")
    assert page.eval_on_selector(".proj-color", "s => s.selectedOptions[0].textContent") == "length"
    assert page.eval_on_selector(".proj-label", "s => s.selectedOptions[0].textContent") == "word"
    assert page.input_value(".proj-search") == "^p"
    assert page.get_attribute(".proj-root", "data-selected") == "2"
    ranges = page.evaluate("""() => { const L = document.querySelector('.proj-plot')._fullLayout;
        return [L.xaxis.range, L.yaxis.range]; }""")
    assert all(abs(a - b) < 1e-9 for got, want in zip(ranges, zoom) for a, b in zip(got, want))
    # The saved bookmark is TensorBoard's State shape; Download gives them as a file.
    saved = page.evaluate("() => JSON.parse(localStorage.getItem('lens.projector.bookmarks'))")
    (only,) = saved["words\tword_embedding"]
    assert only["label"] == "mine" and only["selectedProjection"] == "pca"
    assert only["selectedColorOptionName"] == "length" and only["selectedPoints"] == [2]
    assert only["cameraDef"]["orthographic"] is True
    with page.expect_download() as download:
        page.click(".proj-bookmark-download")
    assert '"label": "mine"' in open(download.value.path(), encoding="utf-8").read()
    page.click(".proj-bookmark[data-label='mine'] .proj-bookmark-delete")
    assert page.locator(".proj-bookmark[data-label='mine']").count() == 0
    assert page.errors == []

