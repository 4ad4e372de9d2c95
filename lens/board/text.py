"""Text dashboard routes (TensorBoard's shapes); text is rendered from Markdown and sanitized.

GET /data/plugin/text/tags
    {"train": ["notes", "samples/predictions"]}
GET /data/plugin/text/text?run=train&tag=notes
    [{"wall_time": 1700000000.5, "step": 0, "text": "<p>hello <strong>world</strong></p>"}]
    A scalar string is rendered as Markdown; a vector or matrix becomes an HTML table of
    rendered cells; higher ranks show the 2-D slice at index 0 of every leading axis,
    after a warning.
    Every string from the log is HTML-escaped before any tag is written (see markdown.py).
    At most 100 steps, spread evenly and always including the newest (TensorBoard serves
    100); lens extra: &downsample=N changes that, &downsample=0 returns every step.
"""

import numpy as np
from flask import Blueprint

from lens.board import markdown
from lens.board.params import even_sample, json_response, optional_int, provider, required

PLUGIN = "text"
DEFAULT_SAMPLES = 100
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")


def _as_str(item):
    """A tensor element as text (bytes are decoded as UTF-8, bad bytes replaced)."""
    if isinstance(item, bytes):
        return item.decode("utf-8", errors="replace")
    return str(item)


def _table(matrix):
    """A 2-D array of strings -> an HTML table of rendered cells."""
    rows = "".join("<tr>" + "".join(f"<td>{markdown.render(_as_str(c))}</td>" for c in row)
                   + "</tr>" for row in matrix)
    return f'<table class="lens-text-table"><tbody>{rows}</tbody></table>'


def text_to_html(value):
    """One step's string tensor (any rank) -> sanitized HTML."""
    array = np.asarray(value, dtype=object)
    if array.ndim == 0:
        return markdown.render(_as_str(array.item()))
    if array.ndim == 1:
        return _table(array.reshape(-1, 1))
    warning = ""
    if array.ndim > 2:
        warning = (f"<p><strong>Warning:</strong> showing a 2-D slice of a rank-{array.ndim} "
                   f"tensor of shape {list(array.shape)}.</p>")
        array = array[(0,) * (array.ndim - 2)]  # TensorBoard keeps the last two axes
    return warning + _table(array)


def text_rows(series, max_steps=DEFAULT_SAMPLES):
    """[(wall, step, array)] -> [{wall_time, step, text}]."""
    return [{"wall_time": float(wall), "step": int(step), "text": text_to_html(value)}
            for wall, step, value in even_sample(series, max_steps)]


def text_tag_index(tags_by_run):
    """{run: {tag: meta}} -> {run: [tag, ...]} (runs without text omitted)."""
    return {run: sorted(tags) for run, tags in tags_by_run.items() if tags}


@bp.route("/tags")
def tags_route():
    return json_response(text_tag_index(provider().list_tags(PLUGIN)))


@bp.route("/text")
def text_route():
    run, tag = required("run"), required("tag")
    samples = optional_int("downsample", DEFAULT_SAMPLES, minimum=0)
    return json_response(text_rows(provider().text(run, tag), samples))
