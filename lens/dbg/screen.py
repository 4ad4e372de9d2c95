"""Screen data: lines of plain text plus styled, optionally clickable spans.

Command handlers return a `Screen`; the terminal UIs only render it. Keeping this a plain
data type lets tests check text and styles without a terminal.
"""

from dataclasses import dataclass, field

# Style words understood by the renderers (cli.py maps them to prompt_toolkit classes).
STYLES = frozenset({
    "bold", "underline", "blink", "reverse",
    "red", "green", "yellow", "blue", "magenta", "cyan", "gray", "white", "black",
    "bg_white", "bg_red", "bg_blue", "bg_black",
})


@dataclass
class Span:
    """A styled range [start, end) of one line; `command` makes it clickable."""

    start: int
    end: int
    style: str = ""
    command: str | None = None

    def words(self):
        """The individual style words of this span."""
        return self.style.split()


@dataclass
class Screen:
    """Output of one command: lines, spans per line index and a few annotations."""

    lines: list = field(default_factory=list)
    spans: dict = field(default_factory=dict)
    # Free-form metadata, e.g. "scroll_to" (line index), "tensor_name", "is_error".
    annotations: dict = field(default_factory=dict)

    def add(self, text="", style="", command=None):
        """Append one line, styled as a whole when `style` or `command` is given."""
        self.lines.append(text)
        if (style or command) and text:
            self.spans[len(self.lines) - 1] = [Span(0, len(text), style, command)]
        return self

    def add_parts(self, parts):
        """Append one line made of (text, style, command) parts; style/command may be None."""
        text, spans, pos = "", [], 0
        for part in parts:
            chunk, style, command = (tuple(part) + (None, None))[:3]
            if (style or command) and chunk:
                spans.append(Span(pos, pos + len(chunk), style or "", command))
            text += chunk
            pos += len(chunk)
        self.lines.append(text)
        if spans:
            self.spans[len(self.lines) - 1] = spans
        return self

    def style_range(self, line_index, start, end, style="", command=None):
        """Add a span to an existing line."""
        self.spans.setdefault(line_index, []).append(Span(start, end, style, command))

    def extend(self, other):
        """Append another screen's lines and spans (annotations of `self` win)."""
        offset = len(self.lines)
        self.lines.extend(other.lines)
        for index, spans in other.spans.items():
            self.spans.setdefault(index + offset, []).extend(spans)
        for key, value in other.annotations.items():
            # Annotations that point at lines move down with them.
            if key == "scroll_to":
                value += offset
            elif key == "element_indices":
                value = {line + offset: index for line, index in value.items()}
            self.annotations.setdefault(key, value)
        return self

    def spans_at(self, line_index):
        """Spans of one line, sorted by start."""
        return sorted(self.spans.get(line_index, ()), key=lambda s: s.start)

    def links(self):
        """Every (line index, clickable text, command) of the screen."""
        out = []
        for index in sorted(self.spans):
            for span in self.spans_at(index):
                if span.command:
                    out.append((index, self.lines[index][span.start:span.end], span.command))
        return out

    def styled(self, line_index, text):
        """Style words applied to the first occurrence of `text` in a line (for tests)."""
        line = self.lines[line_index]
        start = line.find(text)
        if start < 0:
            return set()
        words = set()
        for span in self.spans.get(line_index, ()):
            if span.start <= start and start + len(text) <= span.end:
                words.update(span.words())
                if span.command:
                    words.add("link")
        return words

    @property
    def text(self):
        """Plain text of the whole screen."""
        return "\n".join(self.lines)


def error_screen(message):
    """A one-line error screen in tfdbg's red style."""
    screen = Screen(annotations={"is_error": True})
    screen.add(message, "red")
    return screen


def info_screen(message):
    """A one-line informational screen."""
    return Screen().add(message)
