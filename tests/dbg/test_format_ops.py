"""Tensor formatting, debug ops and filters (pure functions)."""

import numpy as np
import pytest

from lens.dbg import debug_ops, tensor_format
from lens.dbg.filters import FilterRegistry, InconvertibleTensorProto, has_inf_or_nan


def test_pt_header_and_label_styles():
    value = np.array([[-0.5, -2.0], [0.0, -np.inf]], np.float32)
    screen = tensor_format.format_tensor(value, "cross_entropy/Log:0:DebugIdentity")
    assert screen.lines[:4] == ['Tensor "cross_entropy/Log:0:DebugIdentity":',
                                "  dtype: float32", "  shape: (2, 2)", ""]
    assert "-inf" in screen.lines[5]
    assert "bold" in screen.styled(0, "cross_entropy/Log:0:")
    assert "yellow" in screen.styled(0, "DebugIdentity")


def test_slicing():
    name, slicing = tensor_format.parse_tensor_name_with_slicing("x:0[0:2, :]")
    assert (name, slicing) == ("x:0", "[0:2, :]")
    value = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(tensor_format.apply_slicing(value, slicing), value[0:2, :])
    np.testing.assert_array_equal(tensor_format.apply_slicing(value, "[1, 1:3]"), value[1, 1:3])
    assert not tensor_format.validate_slicing("[-1]")
    with pytest.raises(ValueError, match="non-negative"):
        tensor_format.apply_slicing(value, "[-1]")
    with pytest.raises(ValueError, match="does not fit shape"):
        tensor_format.apply_slicing(value, "[7]")


def test_highlight_ranges_bolds_exactly_the_elements_inside():
    value = np.array([0.5, -3.0, 2.0, 10.0])
    ranges = tensor_format.parse_ranges("[[-5, -1], [1, 3]]")
    screen = tensor_format.format_tensor(value, "v:0", ranges=ranges,
                                         ranges_text="[[-5, -1], [1, 3]]")
    assert screen.lines[0].endswith("Highlighted([[-5, -1], [1, 3]]): 2 of 4 element(s) (50.00%)")
    array_line = len(screen.lines) - 1
    bold = [screen.lines[array_line][s.start:s.end] for s in screen.spans_at(array_line)]
    assert [b.strip() for b in bold] == ["-3.", "2."]
    with pytest.raises(ValueError, match="Invalid ranges"):
        tensor_format.parse_ranges("[1,")


def test_inf_in_ranges_means_float_max_like_tfdbg():
    ranges = tensor_format.parse_ranges("[-inf, -1]")
    screen = tensor_format.format_tensor(np.array([-np.inf, -2.0]), "v:0", ranges=ranges,
                                         ranges_text="[-inf, -1]")
    assert "1 of 2" in screen.lines[0]


def test_numeric_summary_table():
    value = np.array([[-0.5, -2.0], [0.0, -np.inf]], np.float32)
    lines = tensor_format.numeric_summary(value).lines
    assert lines[0] == "| -inf    -    0 | total |"
    assert lines[1] == "|    1    2    1 |     4 |"
    assert lines[2].split() == ["|", "min", "max", "mean", "std", "|"]
    assert lines[3].split()[1:3] == ["-2.0", "0.0"]
    assert tensor_format.numeric_summary(np.array([True, False, True])).lines[:2] == [
        "| False  True | total |", "|     1     2 |     3 |"]
    assert tensor_format.numeric_summary(np.zeros((0,))).lines == [
        "No numeric summary available due to empty tensor."]
    assert "dtype" in tensor_format.numeric_summary(np.array(["a"])).lines[0]


def test_print_all_removes_ellipsis_and_indices_are_annotated():
    value = np.arange(3000.0)
    short = tensor_format.format_tensor(value, "v:0")
    full = tensor_format.format_tensor(value, "v:0", print_all=True)
    assert "..." in short.text and "..." not in full.text
    firsts = full.annotations["element_indices"]
    assert firsts[min(firsts)] == [0]
    assert len(firsts) == len(full.lines) - 4


def test_debug_numeric_summary_layout():
    value = np.array([[np.nan, -np.inf, -1.0], [0.0, 2.0, np.inf]], np.float32)
    out = debug_ops.debug_numeric_summary(value)
    assert out.dtype == np.float64 and out.shape == (16,)
    np.testing.assert_array_equal(out[:8], [1, 6, 1, 1, 1, 1, 1, 1])
    assert (out[8], out[9], out[10]) == (-1.0, 2.0, 1.0 / 3)
    assert out[11] == pytest.approx(np.var([-1.0, 0.0, 2.0]))
    assert (out[12], out[13], list(out[14:])) == (1, 2, [2, 3])
    empty = debug_ops.debug_numeric_summary(np.zeros((0,), np.float64))
    assert empty[8] == np.inf and empty[9] == -np.inf and np.isnan(empty[10])
    assert debug_ops.debug_numeric_summary(np.ones(3), mute_if_healthy="true") is None
    bounded = debug_ops.debug_numeric_summary(np.array([-5.0, 5.0, 0.5]), lower_bound="-1",
                                              upper_bound="1")
    assert (bounded[3], bounded[7], bounded[6]) == (1, 1, 1)
    with pytest.raises(TypeError, match="numeric"):
        debug_ops.debug_numeric_summary(np.array(["a"]))


def test_debug_nan_count_and_parse():
    assert debug_ops.debug_nan_count(np.array([np.nan, 1, np.nan])) == 2
    assert debug_ops.debug_nan_count(np.array([1, 2])) == 0
    assert debug_ops.parse_debug_op("DebugNumericSummary(mute_if_healthy=true; lower_bound=-1)") \
        == ("DebugNumericSummary", {"mute_if_healthy": "true", "lower_bound": "-1"})
    with pytest.raises(ValueError, match="Unknown debug op 'DebugFoo'"):
        debug_ops.parse_debug_op("DebugFoo")
    with pytest.raises(ValueError, match="key=value"):
        debug_ops.parse_debug_op("DebugIdentity(oops)")


def test_has_inf_or_nan_float_tensors_only():
    assert has_inf_or_nan(None, np.array([1.0, np.inf]))
    assert has_inf_or_nan(None, np.array([np.nan], np.float16))
    assert has_inf_or_nan(None, np.array([1 + 0j, complex(np.nan, 0)]))
    assert not has_inf_or_nan(None, np.array([1.0, 2.0]))
    assert not has_inf_or_nan(None, np.array([3e38, 3e38], np.float32))  # sum overflows only
    assert has_inf_or_nan(None, np.array([np.inf, -np.inf]))
    assert not has_inf_or_nan(None, np.array([1, 2], np.int64))
    assert not has_inf_or_nan(None, np.array([True]))
    assert not has_inf_or_nan(None, np.array(["nan"]))
    assert not has_inf_or_nan(None, InconvertibleTensorProto(None, initialized=False))


def test_filter_registry():
    filters = FilterRegistry()
    assert filters.names() == ["has_inf_or_nan"]
    filters.add("big", lambda d, t: t.max() > 10)
    assert filters.names() == ["big", "has_inf_or_nan"]
    with pytest.raises(TypeError, match="str"):
        filters.add(3, lambda d, t: True)
    with pytest.raises(ValueError, match="non-empty"):
        filters.add("", lambda d, t: True)
    with pytest.raises(TypeError, match="callable"):
        filters.add("x", 5)
    with pytest.raises(KeyError, match="registered: big, has_inf_or_nan"):
        filters.get("nope")
    filters.allow_nodes([r"safe/.*"])
    assert filters.is_allowed("safe/Sqrt") and not filters.is_allowed("unsafe")
    assert filters.is_allowed("unsafe", exclude_regex="uns")


def _page_elements(screen):
    """How many array elements a formatted screen prints."""
    body = screen.text.split("\n\n")[-1]
    return len(tensor_format._ELEMENT_RE.findall(tensor_format._TRAILER_RE.split(body)[0]))


def test_print_all_pages_a_large_value_and_indices_stay_global():
    value = np.arange(30000.0).reshape(3, 100, 100)  # a 100x100 block fills a page
    first = tensor_format.format_tensor(value, "v:0", print_all=True)
    assert tensor_format.page_count(value.shape) == 3
    assert "Page 1 of 3: [0:1, :, :]" in first.lines
    assert "..." not in first.text and _page_elements(first) == 10000
    links = [command for _, _, command in first.links()]
    assert links == []  # no command to repeat: no links
    last = tensor_format.format_tensor(value, "v:0", print_all=True, page=3,
                                       page_command=lambda n: "pt v:0 -a --page %d" % n)
    assert "Page 3 of 3: [2:3, :, :]  prev" in last.lines
    assert [command for _, _, command in last.links()] == ["pt v:0 -a --page 2"]
    firsts = last.annotations["element_indices"]
    assert firsts[min(firsts)] == [2, 0, 0] and firsts[max(firsts)][:2] == [2, 99]
    # The printed numbers are the elements the indices name.
    line = min(firsts)
    assert last.lines[line].lstrip("array([").startswith("20000.")


def test_page_shapes_rows_columns_and_small_values():
    assert tensor_format.page_count((3000, 3000)) == 1000  # 3 rows of 3000 per page
    assert tensor_format.page_index((3000, 3000), 2) == (slice(3, 6),)
    assert tensor_format.page_count((2, 25000)) == 6  # a row too long for a page is split
    assert tensor_format.page_index((2, 25000), 4) == (1, slice(0, 10000))
    assert tensor_format.page_index((2, 25000), 6) == (1, slice(20000, 25000))
    assert tensor_format.page_count((10000,)) == 1 and tensor_format.page_count(()) == 1
    small = tensor_format.format_tensor(np.arange(5000.0), "v:0", print_all=True)
    assert not any(line.startswith("Page ") for line in small.lines)
    assert _page_elements(small) == 5000  # tfdbg's -a: everything, no ellipsis


def test_highlight_counts_the_whole_value_on_a_page():
    value = np.arange(20000.0)
    screen = tensor_format.format_tensor(value, "v:0", print_all=True, page=2,
                                         ranges=[(15000.0, 15002.0)], ranges_text="[15000, 15002]")
    assert screen.lines[0].endswith("Highlighted([15000, 15002]): 3 of 20000 element(s) (0.01%)")
    bold = [screen.lines[i][s.start:s.end] for i in screen.spans for s in screen.spans_at(i)
            if s.style == "bold" and i > 3]
    assert bold[-3:] == ["15000.", "15001.", "15002."]
