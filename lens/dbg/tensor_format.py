"""Formatting tensor values for the debugger's `pt`, `pf` and `eval` screens (pure)."""

import ast
import itertools
import re
import sys

import numpy as np

from lens.dbg.screen import Screen

_SLICING_RE = re.compile(r"^\[(\d|,|\s|:)+\]$")
# One printed element inside a numpy array repr: numbers, inf/nan and booleans.
_ELEMENT_RE = re.compile(
    r"[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?|inf|nan)|True|False")
_TRAILER_RE = re.compile(r"dtype=|shape=")
DEFAULT_THRESHOLD = 2000
DEFAULT_EDGEITEMS = 3
# `-a` prints a big value one page at a time: formatting costs a few microseconds per
# element, so 9M elements at once would freeze the UI for half a minute.
PAGE_ELEMENTS = 10000


def parse_tensor_name_with_slicing(text):
    """Split 'x:0[0:2, :]' into ('x:0', '[0:2, :]'); no slicing gives ''."""
    if text.endswith("]") and "[" in text:
        start = text.index("[")
        return text[:start], text[start:]
    return text, ""


def validate_slicing(slicing):
    """True if `slicing` is tfdbg's allowed form: non-negative ints, ':' and ','."""
    return bool(_SLICING_RE.match(slicing))


def apply_slicing(value, slicing):
    """Apply a validated '[a:b, c]' slicing string to an array."""
    if not slicing:
        return value
    if not validate_slicing(slicing):
        raise ValueError(
            "Invalid tensor-slicing string %r: use non-negative indices, ':' and ',' only, "
            "e.g. [0:2, :]" % slicing)
    index = []
    for item in slicing[1:-1].split(","):
        item = item.strip()
        if ":" in item:
            parts = [int(p) if p.strip() else None for p in item.split(":")]
            index.append(slice(*parts))
        elif item:
            index.append(int(item))
    try:
        return value[tuple(index)]
    except IndexError as exc:
        raise ValueError("Slicing %s does not fit shape %s: %s"
                         % (slicing, np.shape(value), exc)) from exc


def parse_ranges(text):
    """Parse '-r' ranges: '[a, b]' or '[[a, b], [c, d]]' into a list of (low, high)."""
    cleaned = text.replace("-inf", "-%r" % sys.float_info.max).replace(
        "inf", repr(sys.float_info.max))
    try:
        ranges = ast.literal_eval(cleaned)
    except (ValueError, SyntaxError) as exc:
        raise ValueError("Invalid ranges %r: write [low, high] or [[low, high], ...]"
                         % text) from exc
    if not isinstance(ranges, (list, tuple)) or not ranges:
        raise ValueError("Invalid ranges %r: expected a list like [low, high]" % text)
    if not isinstance(ranges[0], (list, tuple)):
        ranges = [ranges]
    out = []
    for item in ranges:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise ValueError("Invalid range %r in %r: each range is [low, high]" % (item, text))
        out.append((float(item[0]), float(item[1])))
    return out


def _shown_indices(shape, summarize, edgeitems):
    """Indices of the elements numpy prints, in print order (C order, ellipsis skipped)."""
    axes = []
    for size in shape:
        if summarize and size > 2 * edgeitems:
            axes.append(list(range(edgeitems)) + list(range(size - edgeitems, size)))
        else:
            axes.append(list(range(size)))
    return itertools.product(*axes)


def _array_text(value, width, print_all):
    """numpy's repr of `value` at the given line width, with or without ellipsis."""
    threshold = sys.maxsize if print_all else DEFAULT_THRESHOLD
    with np.printoptions(threshold=threshold, linewidth=max(width, 20),
                         edgeitems=DEFAULT_EDGEITEMS):
        return repr(value)


def _locate_elements(lines, value, summarize):
    """Map printed element tokens to (line, start, end, index); None when not mappable."""
    if value.dtype.kind not in "biuf" or value.ndim == 0:
        return None
    indices = _shown_indices(value.shape, summarize, DEFAULT_EDGEITEMS)
    located = []
    for line_no, line in enumerate(lines):
        # 'dtype=float32' and numpy 2's 'shape=(50, 100)' must not be read as elements.
        body = _TRAILER_RE.split(line)[0]
        body_start = 6 if line_no == 0 and body.startswith("array(") else 0
        for match in _ELEMENT_RE.finditer(body, body_start):
            index = next(indices, None)
            if index is None:
                return None
            located.append((line_no, match.start(), match.end(), index))
    return located


def numeric_summary(value):
    """tfdbg's numeric summary table lines for an array (§5.4)."""
    value = np.asarray(value)
    screen = Screen()
    if value.size == 0:
        return screen.add("No numeric summary available due to empty tensor.")
    if value.dtype == np.bool_:
        groups = [[("False", int(np.sum(~value))), ("True", int(np.sum(value)))],
                  [("total", value.size)]]
        _add_table(screen, groups)
        return screen
    if value.dtype.kind not in "biufc":
        return screen.add("No numeric summary available due to tensor dtype: %s."
                          % value.dtype.name)
    counts = health_counts(value)
    cells = [(key, counts[key]) for key in ("nan", "-inf", "-", "0", "+", "+inf")
             if counts[key]]
    _add_table(screen, [cells, [("total", value.size)]])
    finite = value[np.isfinite(value)] if value.dtype.kind in "fc" else value
    if finite.size:
        # Print stats at the tensor's own float precision so float32 shows -2.1, not
        # -2.0999999046325684.
        shown = value.dtype.type if value.dtype.kind == "f" else np.float64
        finite = finite.real.astype(np.float64)
        stats = [("min", finite.min()), ("max", finite.max()),
                 ("mean", finite.mean()), ("std", finite.std())]
        _add_table(screen, [[(k, shown(v)) for k, v in stats]])
    return screen


def health_counts(value):
    """Counts of nan, -inf, negative, zero, positive, +inf elements."""
    value = np.asarray(value)
    if value.dtype.kind == "c":
        value = value.real
    if value.dtype.kind in "f":
        nan = np.isnan(value)
        ninf = np.isneginf(value)
        pinf = np.isposinf(value)
    else:
        nan = ninf = pinf = np.zeros(value.shape, bool)
    return {"nan": int(nan.sum()), "-inf": int(ninf.sum()), "+inf": int(pinf.sum()),
            "-": int((value < 0).sum() - ninf.sum()), "0": int((value == 0).sum()),
            "+": int((value > 0).sum() - pinf.sum())}


def _add_table(screen, groups):
    """Two rows (keys, values); each group's cells share one right-aligned width."""
    keys_row, values_row = "|", "|"
    for group in groups:
        texts = [(str(k), str(v)) for k, v in group]
        width = max(max(len(k), len(v)) for k, v in texts) + 1
        keys_row += "".join(k.rjust(width) for k, _ in texts) + " |"
        values_row += "".join(v.rjust(width) for _, v in texts) + " |"
    screen.add(keys_row)
    screen.add(values_row)


def add_page_flag(parser):
    """--page N on pt, pf and eval: which page of a large value `-a` shows."""
    parser.add_argument("--page", type=int, default=None,
                        help="With -a: the 1-based page of a large value to show.")


def page_count(shape):
    """How many `-a` pages a value of this shape takes (1 when it fits in one)."""
    size = int(np.prod(shape))
    if size <= PAGE_ELEMENTS or not shape:
        return 1
    axis, chunk = _page_split(shape)
    return int(np.prod(shape[:axis])) * -(-shape[axis] // chunk)


def _page_split(shape):
    """(axis, chunk): a page is `chunk` consecutive indices of `axis`, the outer axes fixed;
    the axis is the outermost whose inner block fits in a page (the last axis always does)."""
    axis = next(a for a in range(len(shape)) if np.prod(shape[a + 1:]) <= PAGE_ELEMENTS)
    return axis, PAGE_ELEMENTS // max(int(np.prod(shape[axis + 1:])), 1)


def page_index(shape, page):
    """The index tuple (ints, then one slice) selecting 1-based `page` of a value."""
    axis, chunk = _page_split(shape)
    runs = -(-shape[axis] // chunk)
    outer = np.unravel_index((page - 1) // runs, shape[:axis]) if axis else ()
    start = (page - 1) % runs * chunk
    return tuple(int(i) for i in outer) + (slice(start, min(start + chunk, shape[axis])),)


def _slicing_text(index, ndim):
    """'[2, 30:40, :]': a page's index in the slicing syntax `pt` accepts."""
    parts = [str(i) if isinstance(i, int) else "%d:%d" % (i.start, i.stop) for i in index]
    return "[%s]" % ", ".join(parts + [":"] * (ndim - len(index)))


def format_tensor(value, label, *, width=80, print_all=False, ranges=None, ranges_text="",
                  include_numeric_summary=False, include_metadata=True, page=1,
                  page_command=None):
    """A `pt`-style screen: label, dtype/shape, optional summary, the array text.

    With print_all, a value of more than PAGE_ELEMENTS elements shows only page `page`;
    page_command(n), when given, is the command showing page n (for prev/next links)."""
    screen = Screen()
    _add_label(screen, label)
    if not isinstance(value, np.ndarray):
        screen.add("  (value is not an array: %s)" % type(value).__name__)
        screen.add("")
        screen.add(repr(value))
        return screen
    if include_metadata:
        screen.add("  dtype: %s" % value.dtype.name)
        screen.add("  shape: %s" % (value.shape,))
    if include_numeric_summary:
        screen.add("")
        screen.add("Numeric summary:")
        screen.extend(numeric_summary(value))
    screen.add("")
    shown, to_full = value, None
    pages = page_count(value.shape) if print_all else 1
    if pages > 1:
        index = page_index(value.shape, page)
        shown = value[index]
        _add_page_line(screen, page, pages, _slicing_text(index, value.ndim), page_command)
        fixed, first = index[:-1], index[-1].start

        def to_full(i):
            return fixed + (first + i[0],) + tuple(i[1:])
    array_start = len(screen.lines)
    summarize = not print_all and value.size > DEFAULT_THRESHOLD
    array_lines = _array_text(shown, width, print_all).split("\n")
    for line in array_lines:
        screen.add(line)
    located = _locate_elements(array_lines, shown, summarize)
    if located and to_full is not None:  # indices within the page -> within the value
        located = [(line, start, end, to_full(i)) for line, start, end, i in located]
    if located:
        # The index of each line's first element, for '@' navigation and status indices.
        firsts = {}
        for line_no, _, _, index in located:
            firsts.setdefault(array_start + line_no, list(index))
        screen.annotations["element_indices"] = firsts
    if ranges:
        _highlight(screen, value, located, array_start, ranges, ranges_text)
    return screen


def _add_page_line(screen, page, pages, slicing, page_command):
    """'Page 2 of 900: [3:6, :]' with prev/next links."""
    parts = [("Page %d of %d: %s" % (page, pages, slicing), "bold")]
    if page_command is not None:
        for text, target in (("prev", page - 1), ("next", page + 1)):
            if 1 <= target <= pages:
                parts += [("  ", None), (text, "underline", page_command(target))]
    screen.add_parts(parts)
    screen.add("(-a shows %d elements per page; --page N for another)" % PAGE_ELEMENTS)
    screen.add("")


def _add_label(screen, label):
    """'Tensor "<label>":' with the tensor part bold and a debug-op suffix yellow."""
    core, bracket, rest = label.partition("[")
    suffix = bracket + rest  # slicing and " (dump #k)" stay unstyled
    head, _, tail = core.rpartition(":")
    if head and tail and not tail[0].isdigit() and " " not in tail:
        screen.add_parts([('Tensor "', None), (head + ":", "bold"), (tail, "yellow"),
                          (suffix + '":', None)])
    else:
        screen.add_parts([('Tensor "', None), (label, "bold"), ('":', None)])


def _highlight(screen, value, located, array_start, ranges, ranges_text):
    """Bold the elements inside any range and report how many there are on line 0."""
    inside = np.zeros(value.shape, bool)
    numeric = value.astype(np.float64) if value.dtype.kind in "biuf" else None
    if numeric is not None:
        for low, high in ranges:
            inside |= (numeric >= low) & (numeric <= high)
    count, total = int(inside.sum()), value.size
    percent = 100.0 * count / total if total else 0.0
    screen.lines[0] += " Highlighted(%s): %d of %d element(s) (%.2f%%)" % (
        ranges_text, count, total, percent)
    for line_no, start, end, index in located or ():
        if inside[index]:
            screen.style_range(array_start + line_no, start, end, "bold")
