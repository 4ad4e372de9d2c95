"""The board's pure JSON builders and helpers, checked against TensorBoard's own code."""

import html
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lens.board import markdown
from lens.board.cli import parse_logdir_spec, parse_samples_per_plugin
from lens.board.core import order_runs
from lens.board.histograms import buckets_from_histo
from lens.board.images import sniff_content_type
from lens.board.params import cleanse, even_sample
from lens.board.scalars import scalar_csv, scalar_rows
from lens.board.text import text_to_html


def tb_buckets(histo):
    """TensorBoard's own conversion of a classic histogram (data_compat), as the oracle."""
    from tensorboard import data_compat
    from tensorboard.compat.proto import summary_pb2
    from tensorboard.util import tensor_util

    value = summary_pb2.Summary.Value(tag="h", histo=summary_pb2.HistogramProto(**histo))
    migrated = data_compat.migrate_value(value)
    return tensor_util.make_ndarray(migrated.tensor).tolist()


@pytest.mark.parametrize("seed", range(5))
def test_histogram_buckets_equal_tensorboards(seed):
    rng = np.random.RandomState(seed)
    data = rng.randn(200) * (seed + 1)
    limits = sorted(set(np.round(rng.randn(12) * 3, 3).tolist())) + [1.7976931348623157e308]
    counts = np.histogram(data, bins=[-1.7976931348623157e308] + limits)[0].astype(float)
    counts[:2] = 0  # empty buckets at the left edge must be dropped, as TensorBoard does
    histo = {"min": float(data.min()), "max": float(data.max()), "num": float(counts.sum()),
             "sum": float(data.sum()), "sum_squares": float((data ** 2).sum()),
             "bucket_limit": limits, "bucket": counts.tolist()}
    assert buckets_from_histo(histo) == tb_buckets(histo)


def test_empty_histogram_has_no_buckets():
    histo = {"min": 0.0, "max": 0.0, "num": 0.0, "sum": 0.0, "sum_squares": 0.0,
             "bucket_limit": [1.0, 2.0], "bucket": [0.0, 0.0]}
    assert buckets_from_histo(histo) == [] == tb_buckets(histo)


def test_scalar_rows_and_csv():
    rows = scalar_rows(np.array([0, 5], np.int64), np.array([1.5, 2.5]), np.array([0.25, -1.0]))
    assert rows == [[1.5, 0, 0.25], [2.5, 5, -1.0]]
    assert isinstance(rows[0][1], int)
    assert scalar_csv(rows) == "Wall time,Step,Value\r\n1.5,0,0.25\r\n2.5,5,-1.0\r\n"


def test_cleanse_matches_tensorboards_json_encoding():
    assert cleanse([1.0, math.nan, math.inf, -math.inf, {"a": [math.nan]}]) == \
        [1.0, "NaN", "Infinity", "-Infinity", {"a": ["NaN"]}]


@given(st.lists(st.integers(), max_size=60), st.integers(min_value=0, max_value=70))
def test_even_sample_keeps_order_ends_and_size(items, k):
    out = even_sample(items, k)
    if k == 0 or len(items) <= k:
        assert out == items
        return
    assert len(out) == k
    assert out[-1] == items[-1]
    if k > 1:
        assert out[0] == items[0]
    positions = [i for i in range(len(items))]
    picked = [(i * (len(items) - 1)) // (k - 1) for i in range(k)] if k > 1 else [len(items) - 1]
    assert picked == sorted(set(picked)) and all(p in positions for p in picked)


def test_order_runs_by_start_time_then_name():
    runs = ["b", "a", "c", "d"]
    starts = {"b": 5.0, "a": 5.0, "c": 1.0, "d": None}
    assert order_runs(runs, starts) == ["c", "a", "b", "d"]


def test_markdown_renders_the_common_constructs():
    out = markdown.render("# T\n\n**b** *i* `c`\n\n- x\n- y\n\n| h |\n|---|\n| v |\n\n"
                          "[l](https://e.org)")
    for fragment in ("<h1>T</h1>", "<strong>b</strong>", "<em>i</em>", "<code>c</code>",
                     "<ul><li>x</li><li>y</li></ul>", "<th>h</th>", "<td>v</td>",
                     '<a href="https://e.org"'):
        assert fragment in out, fragment


@pytest.mark.parametrize("hostile", [
    "<script>alert(1)</script>", "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))", "[x](JaVaScRiPt:alert(1))", "[x](data:text/html,hi)",
    '[x](http://a" onmouseover="alert(1))', "```\n</pre><script>x</script>\n```",
])
def test_markdown_never_emits_markup_from_the_input(hostile):
    out = markdown.render(hostile)
    assert "<script" not in out and "<img" not in out
    assert 'href="javascript:' not in out.lower() and 'href="data:' not in out
    assert 'onmouseover="' not in out


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from(list("<>&\"'`*_[]()#|-: \nabc=/jv")), max_size=80))
def test_markdown_output_tags_are_only_its_own(text):
    out = markdown.render(text)
    allowed = {"p", "br", "strong", "em", "code", "pre", "h1", "h2", "h3", "h4", "h5", "h6",
               "ul", "ol", "li", "blockquote", "hr", "table", "thead", "tbody", "tr", "th",
               "td", "a"}
    import re

    for tag in re.findall(r"<\s*/?\s*([a-zA-Z0-9]+)", out):
        assert tag.lower() in allowed, (text, out)
    # Stripping our tags and unescaping gives back no more '<' than the input had.
    plain = html.unescape(re.sub(r"<[^>]*>", "", out))
    assert plain.count("<") <= text.count("<")


def test_text_tensor_ranks():
    assert text_to_html(np.array("**hi**", dtype=object)) == "<p><strong>hi</strong></p>"
    table = text_to_html(np.array([["a", "<b>"], ["c", "d"]], dtype=object))
    assert table.count("<tr>") == 2 and "&lt;b&gt;" in table
    cube = text_to_html(np.array([[["x", "y"]], [["z", "w"]]], dtype=object))
    # As TensorBoard: the slice at index 0 of the leading axis, i.e. one row "x", "y".
    assert "Warning" in cube and cube.count("<td>") == 2 and "y" in cube and "z" not in cube


def test_sniff_content_type():
    assert sniff_content_type(b"\x89PNG\r\n\x1a\n....") == "image/png"
    assert sniff_content_type(b"\xff\xd8\xff\xe0") == "image/jpeg"
    assert sniff_content_type(b"<svg onload=alert(1)>") == "application/octet-stream"


def test_cli_spec_parsing_and_errors():
    assert parse_logdir_spec("a:/x,b:gs://bucket/y") == {"a": "/x", "b": "gs://bucket/y"}
    with pytest.raises(ValueError, match="name:DIR"):
        parse_logdir_spec("/only/a/path")
    with pytest.raises(ValueError, match="twice"):
        parse_logdir_spec("a:/x,a:/y")
    assert parse_samples_per_plugin("scalars=5000,images=all") == {"scalars": 5000, "images": 0}
    with pytest.raises(ValueError, match="whole number"):
        parse_samples_per_plugin("images=many")
