"""Histograms dashboard routes (TensorBoard's shapes).

GET /data/plugin/histograms/tags
    {"train": {"layer1/weights": {"displayName": "layer1/weights", "description": ""}}}
GET /data/plugin/histograms/histograms?run=train&tag=layer1/weights
    [[1700000000.5, 0, [[-0.98, -0.5, 3.0], [-0.5, 0.1, 12.0], [0.1, 0.87, 5.0]]], ...]
    ([wall_time, step, [[left, right, count], ...]]: TF2 histogram tensors as written; a TF1
    HistogramProto loses its empty end buckets (inner empty ones stay) and its outer edges
    become the histogram's min and max, in float32, as TensorBoard converts it)
    At most 51 steps, spread evenly and always including the newest (TensorBoard serves 51);
    lens extra: &downsample=N changes that, &downsample=0 returns every step.
"""

import numpy as np
from flask import Blueprint

from lens.board.params import even_sample, json_response, optional_int, provider, required
from lens.board.scalars import tag_index
from lens.events.values import legacy_buckets

PLUGIN = "histograms"
DEFAULT_SAMPLES = 51
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")


def buckets_from_histo(histo):
    """A classic HistogramProto-like dict -> [[left, right, count], ...] as TensorBoard reads it."""
    return legacy_buckets(histo).tolist()


def histogram_rows(series, max_steps=DEFAULT_SAMPLES):
    """[(wall, step, [k, 3] buckets)] -> [[wall, step, [[left, right, count], ...]]] for at
    most max_steps steps."""
    return [[float(wall), int(step), np.asarray(buckets).tolist()]
            for wall, step, buckets in even_sample(series, max_steps)]


@bp.route("/tags")
def tags_route():
    return json_response(tag_index(provider().list_tags(PLUGIN)))


@bp.route("/histograms")
def histograms_route():
    run, tag = required("run"), required("tag")
    samples = optional_int("downsample", DEFAULT_SAMPLES, minimum=0)
    return json_response(histogram_rows(provider().histogram_buckets(run, tag), samples))
