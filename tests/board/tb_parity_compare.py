"""Compare one route's answer from lens with TensorBoard's recorded answer, route by route.

Every comparer raises AssertionError naming the URL and the first difference. Lens may add
keys of its own to an object (they are ignored); every key TensorBoard sends must be there
with the same value. Floats compare with a relative tolerance (lens computes in float64 where
TensorBoard sometimes goes through float32); steps, wall times and strings compare exactly.
HTML compares as its element structure and text (attributes other than href, and whitespace
between elements, may differ).
"""

import csv
import hashlib
import io
import math
import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

REL = 1e-6
CORE_PLUGINS = ("scalars", "images", "audio", "graphs", "distributions", "histograms", "text")


class _Tokens(HTMLParser):
    """Element names, hrefs and whitespace-collapsed text of an HTML fragment."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out = []

    def handle_starttag(self, tag, attrs):
        href = dict(attrs).get("href")
        self.out.append("<%s%s>" % (tag, " href=%s" % href if href else ""))

    def handle_endtag(self, tag):
        self.out.append("</%s>" % tag)

    def handle_data(self, data):
        text = re.sub(r"\s+", " ", data).strip()
        if text:
            self.out.append(text)


def html_tokens(fragment):
    parser = _Tokens()
    parser.feed(fragment)
    parser.close()
    return parser.out


def split_warning(tokens):
    """(warning tokens, rest): a leading <p><strong>Warning:</strong> ...</p> paragraph."""
    if tokens[:3] == ["<p>", "<strong>", "Warning:"] and "</p>" in tokens:
        end = tokens.index("</p>") + 1
        return tokens[:end], tokens[end:]
    return [], tokens


def same_html(ours, theirs, where):
    """Equal structure and text; a rank>2 warning must exist on both sides (wording is ours)."""
    mine, reference = html_tokens(ours), html_tokens(theirs)
    warn_mine, mine = split_warning(mine)
    warn_ref, reference = split_warning(reference)
    assert bool(warn_mine) == bool(warn_ref), "%s: warning %r vs TensorBoard's %r" % (
        where, warn_mine, warn_ref)
    assert mine == reference, "%s: HTML differs:\n lens: %s\n   tb: %s" % (where, mine, reference)


def same_value(ours, theirs, where):
    """Recursive equality: dict keys of TensorBoard's side, floats within REL."""
    if isinstance(theirs, dict):
        assert isinstance(ours, dict), "%s: expected an object, got %r" % (where, ours)
        for key, value in theirs.items():
            assert key in ours, "%s: key %r missing (lens has %s)" % (where, key, sorted(ours))
            same_value(ours[key], value, "%s.%s" % (where, key))
    elif isinstance(theirs, list):
        assert isinstance(ours, list) and len(ours) == len(theirs), \
            "%s: expected %d items, got %r" % (where, len(theirs), ours)
        for i, (a, b) in enumerate(zip(ours, theirs)):
            same_value(a, b, "%s[%d]" % (where, i))
    elif isinstance(theirs, float) and not isinstance(ours, str):
        assert isinstance(ours, (int, float)) and math.isclose(ours, theirs, rel_tol=REL,
                                                                abs_tol=1e-12), \
            "%s: %r != TensorBoard's %r" % (where, ours, theirs)
    else:
        assert ours == theirs and type(ours) is type(theirs), \
            "%s: %r != TensorBoard's %r" % (where, ours, theirs)


def same_rows_exact_keys(ours, theirs, where, keys):
    """Each row's listed keys equal (wall_time and step exact)."""
    assert len(ours) == len(theirs), "%s: %d rows, TensorBoard has %d:\n lens %r\n   tb %r" % (
        where, len(ours), len(theirs), [(r.get("step"), r.get("wall_time")) for r in ours],
        [(r["step"], r["wall_time"]) for r in theirs])
    for i, (a, b) in enumerate(zip(ours, theirs)):
        for key in keys:
            assert key in a, "%s[%d]: key %r missing" % (where, i, key)
            assert a[key] == b[key], "%s[%d].%s: %r != TensorBoard's %r" % (
                where, i, key, a[key], b[key])


def same_tag_index(ours, theirs, where):
    """{run: {tag: {displayName, description(html), [samples]}}}: same runs, tags, values."""
    assert sorted(ours) == sorted(theirs), "%s: runs %s, TensorBoard %s" % (
        where, sorted(ours), sorted(theirs))
    for run, tags in theirs.items():
        assert sorted(ours[run]) == sorted(tags), "%s[%s]: tags %s, TensorBoard %s" % (
            where, run, sorted(ours[run]), sorted(tags))
        for tag, info in tags.items():
            mine = ours[run][tag]
            here = "%s[%s][%s]" % (where, run, tag)
            same_html(mine.get("description", None) or "", info["description"], here)
            same_value({k: v for k, v in mine.items() if k != "description"},
                       {k: v for k, v in info.items() if k != "description"}, here)


def same_csv(ours, theirs, where):
    mine = list(csv.reader(io.StringIO(ours)))
    reference = list(csv.reader(io.StringIO(theirs)))
    assert mine[0] == reference[0], "%s: header %r vs %r" % (where, mine[0], reference[0])
    assert len(mine) == len(reference), "%s: %d lines vs %d" % (where, len(mine), len(reference))
    for a, b in zip(mine[1:], reference[1:]):
        assert (float(a[0]), int(a[1])) == (float(b[0]), int(b[1])), "%s: %r vs %r" % (where, a, b)
        same_value(float(a[2]), float(b[2]), where)


def ask(lens, entry):
    """lens's answer to the recorded request."""
    if "form" in entry:
        response = lens.post(entry["url"], data=entry["form"])
    else:
        response = lens.get(entry["url"])
    assert response.status_code == entry["status"], "%s: %d %s" % (
        entry["url"], response.status_code, response.get_data(as_text=True)[:300])
    return response


def same_series(ours, theirs, where, compare_points):
    """[[wall_time, step, payload], ...]: wall times and steps exact, payloads compared."""
    assert [row[:2] for row in ours] == [row[:2] for row in theirs], \
        "%s: (wall_time, step) %s, TensorBoard %s" % (where, [r[:2] for r in ours],
                                                      [r[:2] for r in theirs])
    for row, reference in zip(ours, theirs):
        compare_points(row[2], reference[2], "%s@step %d" % (where, row[1]))


def same_number(ours, theirs, where):
    assert math.isclose(ours, theirs, rel_tol=REL, abs_tol=1e-12), \
        "%s: %r != TensorBoard's %r" % (where, ours, theirs)


def same_media(lens, ours, theirs, where, plugin):
    """Rows in step order with the same bytes behind each row's own query."""
    keys = ["wall_time", "step"] + (["label", "contentType"] if plugin == "audio" else [])
    same_rows_exact_keys(ours, theirs, where, keys)
    route = "individualImage" if plugin == "images" else "individualAudio"
    for row, reference in zip(ours, theirs):
        response = lens.get("/data/plugin/%s/%s?%s" % (plugin, route, row["query"]))
        assert response.status_code == 200, "%s: %s" % (row["query"], response.get_data()[:200])
        blob = reference["blob"]
        data = response.get_data()
        assert (hashlib.sha256(data).hexdigest(), len(data), response.mimetype) == \
            (blob["sha256"], blob["size"], blob["mimetype"]), "%s step %d: other bytes" % (
                where, row["step"])


def check_answer(lens, entry):
    """lens's answer to one recorded request equals TensorBoard's (see the module docstring)."""
    url = entry["url"]
    path = urlsplit(url).path
    route = path.rsplit("/", 1)[-1]
    response = ask(lens, entry)
    if "text" in entry:
        assert route == "scalars" and "format=csv" in url, url
        same_csv(response.get_data(as_text=True), entry["text"], url)
        return
    ours, theirs = response.get_json(), entry["json"]
    if path == "/data/runs":
        assert ours == theirs
    elif path == "/data/plugins_listing":
        assert set(CORE_PLUGINS) <= set(ours), sorted(ours)
        for name in CORE_PLUGINS:
            same_value(ours[name], theirs[name], "plugins_listing.%s" % name)
    elif path == "/data/plugin/text/tags":
        assert {r: sorted(t) for r, t in ours.items()} == \
            {r: sorted(t) for r, t in theirs.items()}
    elif route == "tags":
        same_tag_index(ours, theirs, url)
    elif route == "scalars":
        same_series(ours, theirs, url, same_number)
    elif route == "scalars_multirun":
        assert sorted(ours) == sorted(theirs)
        for run in theirs:
            same_series(ours[run], theirs[run], "%s[%s]" % (url, run), same_number)
    elif route in ("histograms", "distributions"):
        same_series(ours, theirs, url, same_value)
    elif route in ("images", "audio"):
        same_media(lens, ours, theirs, url, route)
    elif route == "text":
        same_rows_exact_keys(ours, theirs, url, ["wall_time", "step"])
        for row, reference in zip(ours, theirs):
            same_html(row["text"], reference["text"], "%s@step %d" % (url, row["step"]))
    else:
        raise AssertionError("no comparison for %s" % url)
