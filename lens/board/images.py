"""Images dashboard routes (TensorBoard's shapes).

GET /data/plugin/images/tags
    {"train": {"input/image/0": {"displayName": "input/image/0", "description": "",
                                 "samples": 1}}}
GET /data/plugin/images/images?run=train&tag=input/image/0&sample=0
    [{"wall_time": 1700000000.5, "step": 0, "width": 28, "height": 28,
      "query": "run=train&tag=input%2Fimage%2F0&index=0&sample=0"}, ...]
    (sample defaults to 0; steps with fewer than sample+1 images are left out)
GET /data/plugin/images/individualImage?run=train&tag=input/image/0&index=0&sample=0
    the encoded image bytes; Content-Type from the image's own bytes (PNG, JPEG, GIF, WebP,
    BMP) — anything else is sent as application/octet-stream so a browser never renders it.
"""

from urllib.parse import urlencode

from flask import Blueprint, Response
from werkzeug.exceptions import NotFound as HTTPNotFound

from lens.board import markdown
from lens.board.params import json_response, optional_int, provider, required

PLUGIN = "images"
bp = Blueprint(PLUGIN, __name__, url_prefix=f"/data/plugin/{PLUGIN}")

# Magic numbers of the raster formats browsers display (never SVG, which can carry script).
_MAGIC = ((b"\x89PNG\r\n\x1a\n", "image/png"), (b"\xff\xd8\xff", "image/jpeg"),
          (b"GIF87a", "image/gif"), (b"GIF89a", "image/gif"), (b"BM", "image/bmp"))


def sniff_content_type(data):
    """The image MIME type from the leading bytes, or application/octet-stream."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"


def sample_count(entries):
    """How many images the fullest step of a series holds."""
    return max((int(e["index"]) for e in entries), default=-1) + 1


def tag_index(tags_by_run, entries_of):
    """{run: {tag: meta}} -> TensorBoard's images index with per-tag sample counts."""
    return {run: {tag: {"displayName": meta.get("displayName", ""),
                        "description": markdown.render(meta.get("description") or ""),
                        # Counted over every event kept, as TensorBoard counts it.
                        "samples": meta["samples"] if "samples" in meta
                        else sample_count(entries_of(run, tag))}
                  for tag, meta in tags.items()}
            for run, tags in tags_by_run.items() if tags}


def of_sample(entries, sample):
    """The series' images at one sample index, in step order."""
    return [e for e in entries if int(e["index"]) == sample]


def image_rows(run, tag, entries, sample):
    """Entries -> [{wall_time, step, width, height, query}] pointing at individualImage."""
    return [{"wall_time": float(e["wall_time"]), "step": int(e["step"]),
             "width": int(e.get("width") or 0), "height": int(e.get("height") or 0),
             "query": urlencode({"run": run, "tag": tag, "index": i, "sample": sample})}
            for i, e in enumerate(of_sample(entries, sample))]


@bp.route("/tags")
def tags_route():
    data_provider = provider()
    return json_response(tag_index(data_provider.list_tags(PLUGIN), data_provider.images))


@bp.route("/images")
def images_route():
    run, tag = required("run"), required("tag")
    sample = optional_int("sample", 0, minimum=0)
    return json_response(image_rows(run, tag, provider().images(run, tag), sample))


def chosen_entry(entries_of, noun):
    """The entry an individual* route asks for (run, tag, index, sample); 404 naming the range."""
    run, tag = required("run"), required("tag")
    index = optional_int("index", 0, minimum=0)
    sample = optional_int("sample", 0, minimum=0)
    chosen = of_sample(entries_of(run, tag), sample)
    if index >= len(chosen):
        raise HTTPNotFound(f"run {run!r} tag {tag!r} has {len(chosen)} {noun} at sample "
                           f"{sample}; index {index} is out of range")
    return chosen[index]


@bp.route("/individualImage")
def individual_image_route():
    data = bytes(chosen_entry(provider().images, "images")["encoded"])
    response = Response(data, mimetype=sniff_content_type(data))
    response.headers["Cache-Control"] = "private, max-age=3600"
    return response
