"""The debugger's terminal UIs: prompt_toolkit's full screen, or the readline fallback.

This is the only module of lens that imports prompt_toolkit; the others load it on first use.
"""

import sys

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl, UIContent, \
    UIControl
from prompt_toolkit.mouse_events import MouseEventType
from prompt_toolkit.styles import Style

from lens.dbg.readline_ui import ReadlineUI
from lens.dbg.shell import find_matches

_COLORS = {"red": "ansired", "green": "ansigreen", "yellow": "ansiyellow", "blue": "ansiblue",
           "magenta": "ansimagenta", "cyan": "ansicyan", "gray": "ansibrightblack",
           "white": "ansiwhite", "black": "ansiblack"}
MAX_WIDTH = 220  # tfdbg caps the layout width here too


def style_string(words):
    """Screen style words -> a prompt_toolkit style string."""
    out = []
    for word in words.split():
        if word in ("bold", "underline", "blink", "reverse"):
            out.append(word)
        elif word.startswith("bg_"):
            out.append("bg:" + _COLORS.get(word[3:], word[3:]))
        elif word in _COLORS:
            out.append("fg:" + _COLORS[word])
    return " ".join(out)


def line_fragments(text, spans, matches=()):
    """Fragments of one line: span styles, links underlined, search matches reversed."""
    styles = [""] * len(text)
    for span in spans:
        extra = style_string(span.style) + (" underline" if span.command else "")
        for i in range(max(span.start, 0), min(span.end, len(text))):
            styles[i] = (styles[i] + " " + extra).strip()
    for start, end in matches:
        for i in range(start, min(end, len(text))):
            styles[i] = (styles[i] + " fg:ansiblack bg:ansiwhite reverse").strip()
    fragments = []
    for i, char in enumerate(text):
        if fragments and fragments[-1][0] == styles[i]:
            fragments[-1] = (styles[i], fragments[-1][1] + char)
        else:
            fragments.append((styles[i], char))
    return fragments


class PaneControl(UIControl):
    """The scrollable output pane; we scroll it ourselves so paging is exact."""

    def __init__(self, ui):
        self.ui = ui
        self.height = 20

    def create_content(self, width, height):
        self.height = max(height, 1)
        ui = self.ui
        screen = ui.screen
        lines = screen.lines if screen else []
        top = ui.top

        def get_line(i):
            index = top + i
            if index >= len(lines):
                return []
            return line_fragments(lines[index], screen.spans_at(index),
                                  ui.matches_by_line.get(index, ()))
        return UIContent(get_line=get_line, line_count=max(len(lines) - top, 1),
                         cursor_position=Point(0, 0), show_cursor=False)

    def mouse_handler(self, mouse_event):
        ui = self.ui
        if not ui.shell.mouse_on:  # `mouse off`: the terminal owns the mouse (text selection)
            return NotImplemented
        if mouse_event.event_type == MouseEventType.SCROLL_UP:
            ui.scroll(-3)
        elif mouse_event.event_type == MouseEventType.SCROLL_DOWN:
            ui.scroll(3)
        elif mouse_event.event_type == MouseEventType.MOUSE_UP and ui.screen:
            index = ui.top + mouse_event.position.y
            for span in ui.screen.spans_at(index):
                if span.command and span.start <= mouse_event.position.x < span.end:
                    ui.run_command(span.command)
                    break
        else:
            return NotImplemented
        return None

    def is_focusable(self):
        return False


class FullScreenUI:
    """Title bar, nav bar, output pane, status and toast lines, `tfdbg>` prompt."""

    def __init__(self, shell, input=None, output=None):
        self.shell = shell
        self.screen = None
        self.top = 0
        self.toast = ("", "")
        self.search = None
        self.matches = []
        self.matches_by_line = {}
        self.match_index = -1
        self._history_pos = None
        self._history_prefix = ""
        self.buffer = Buffer(multiline=False)
        self.pane = PaneControl(self)
        self.app = Application(
            layout=Layout(HSplit([
                Window(FormattedTextControl(self._title), height=1),
                Window(FormattedTextControl(self._nav_bar), height=1),
                Window(self.pane, wrap_lines=False),
                Window(FormattedTextControl(self._status), height=1),
                Window(FormattedTextControl(lambda: [self.toast[::-1]] if self.toast[0]
                                            else []), height=1),
                Window(BufferControl(self.buffer), height=1,
                       get_line_prefix=lambda *_: [("bold", "tfdbg> ")]),
            ]), focused_element=self.buffer),
            key_bindings=self._bindings(), full_screen=True, style=Style([]),
            mouse_support=Condition(lambda: self.shell.mouse_on),
            input=input, output=output)

    # --- rendering ------------------------------------------------------------------
    def _width(self):
        return min(self.app.output.get_size().columns, MAX_WIDTH)

    def _title(self):
        text = "--- %s " % self.shell.title
        return [(style_string(self.shell.title_style) or "reverse",
                 text.ljust(self._width(), "-"))]

    def _nav_bar(self):
        shell = self.shell
        back = "underline" if shell.position > 0 else ""
        forward = "underline" if shell.position < len(shell.screens) - 1 else ""
        offset = shell.position - (len(shell.screens) - 1)
        label = ("(%d) " % offset) if offset else ""
        return [("", "| "), (back, "<--"), ("", " "), (forward, "-->"), ("", " | "),
                ("fg:ansimagenta", label), ("", shell.current_command)]

    def _status(self):
        total = len(self.screen.lines) if self.screen else 0
        height = self.pane.height
        parts = "--- "
        if total > height:
            hint = "(PgDn)" if self.top == 0 else (
                "(PgUp)" if self.top + height >= total else "(PgDn/PgUp)")
            parts += "Scroll %s: %.2f%% " % (hint, 100.0 * min(self.top + height, total)
                                             / total)
        indices = self._visible_indices()
        if indices:
            parts += "%s " % indices
        parts += "--- Mouse: %s " % ("ON" if self.shell.mouse_on else "OFF")
        return [("reverse", parts.ljust(self._width(), "-"))]

    def _visible_indices(self):
        firsts = (self.screen.annotations.get("element_indices") if self.screen else None)
        if not firsts:
            return ""
        visible = [firsts[i] for i in sorted(firsts) if self.top <= i < self.top +
                   self.pane.height]
        if not visible:
            return ""
        fmt = lambda idx: "[%s]" % ",".join(map(str, idx))
        return "%s-%s" % (fmt(visible[0]), fmt(visible[-1]))

    # --- behaviour ------------------------------------------------------------------
    def show(self, screen):
        """Make `screen` the pane's content (re-showing the same screen keeps the view)."""
        if screen is self.screen:
            return
        self.screen = screen
        self.top = min(screen.annotations.get("scroll_to", 0), max(len(screen.lines) - 1, 0))
        self._clear_search()

    def scroll(self, delta):
        """Scroll the pane by `delta` lines, clamped."""
        total = len(self.screen.lines) if self.screen else 0
        self.top = max(0, min(self.top + delta, max(total - 1, 0)))

    def run_command(self, text):
        """Execute a command line as if typed."""
        result = self.shell.execute(text, width=self._width())
        if result.exited:
            self.app.exit(result=result.exit_token)
            return
        if result.screen is not None:
            self.show(result.screen)
            is_error = result.screen.annotations.get("is_error")
            self.toast = ("", "")
            if is_error:
                self.toast = ("Error in command: %s" % text, "fg:ansired bg:ansiwhite")
        if result.toast:
            style = "fg:ansired bg:ansiwhite" if result.toast_is_error else \
                "fg:ansiblue bg:ansiwhite"
            self.toast = (result.toast, style)
        if result.search:
            self._start_search(result.search)

    def _clear_search(self):
        self.search, self.matches, self.matches_by_line, self.match_index = None, [], {}, -1

    def _start_search(self, pattern):
        self.search = pattern
        self.matches = find_matches(self.screen, pattern)
        self.matches_by_line = {}
        for line, start, end in self.matches:
            self.matches_by_line.setdefault(line, []).append((start, end))
        after = [i for i, m in enumerate(self.matches) if m[0] >= self.top]
        self.match_index = after[0] if after else 0
        self._goto_match()

    def _goto_match(self):
        line = self.matches[self.match_index][0]
        self.top = line
        self.toast = ("/%s: match %d of %d (n/N: next/previous, Esc: end search)" % (
            self.search, self.match_index + 1, len(self.matches)), "fg:ansiblue bg:ansiwhite")

    def step_match(self, step):
        """n / N: next or previous search match."""
        if self.matches:
            self.match_index = (self.match_index + step) % len(self.matches)
            self._goto_match()

    def history_step(self, step):
        """Up/Down: walk history entries starting with what was typed."""
        if self._history_pos is None:
            self._history_prefix = self.buffer.text
            self._history_pos = len(self.shell.history.matching(self._history_prefix))
        items = self.shell.history.matching(self._history_prefix)
        self._history_pos = max(0, min(self._history_pos + step, len(items)))
        text = items[self._history_pos] if self._history_pos < len(items) else \
            self._history_prefix
        self.buffer.set_document(self.buffer.document.__class__(text, len(text)))

    def complete(self):
        """Tab: longest common completion; several candidates listed in the toast."""
        text, candidates = self.shell.complete(self.buffer.text)
        self.buffer.set_document(self.buffer.document.__class__(text, len(text)))
        if len(candidates) > 1:
            self.toast = ("Candidates: " + " ".join(candidates), "fg:ansiyellow")

    def _bindings(self):
        kb = KeyBindings()
        searching = Condition(lambda: self.search is not None and not self.buffer.text)
        empty = Condition(lambda: not self.buffer.text)

        @kb.add("enter")
        def _(event):
            text = self.buffer.text
            self.buffer.reset()
            self._history_pos = None
            if text.strip():
                self.run_command(text)

        kb.add("pageup")(lambda e: self.scroll(-(self.pane.height - 1)))
        kb.add("pagedown")(lambda e: self.scroll(self.pane.height - 1))
        for key in ("s-up", "c-up"):
            kb.add(key)(lambda e: self.scroll(-1))
        for key in ("s-down", "c-down"):
            kb.add(key)(lambda e: self.scroll(1))
        kb.add("home", filter=empty)(lambda e: setattr(self, "top", 0))
        kb.add("end", filter=empty)(lambda e: self.scroll(10 ** 9))
        kb.add("c-home")(lambda e: setattr(self, "top", 0))
        kb.add("c-end")(lambda e: self.scroll(10 ** 9))
        kb.add("up")(lambda e: self.history_step(-1))
        kb.add("down")(lambda e: self.history_step(1))
        kb.add("tab")(lambda e: self.complete())
        kb.add("n", filter=searching)(lambda e: self.step_match(1))
        kb.add("N", filter=searching)(lambda e: self.step_match(-1))

        @kb.add("escape", eager=True)
        def _(event):
            self._clear_search()
            self.toast = ("", "")

        @kb.add("c-c")
        def _(event):
            self.buffer.reset()
            self._clear_search()
            self.toast = ("Interrupted: back to the prompt (type exit to leave the debugger)",
                          "fg:ansimagenta")
        return kb

    def run(self, initial_command=None):
        """Show the UI until a command leaves it; returns that command's exit token."""
        if initial_command:
            result = self.shell.execute(initial_command, width=self._width(), record=False)
            if result.exited:
                return result.exit_token
            if result.screen is not None:
                self.show(result.screen)
        return self.app.run()


def launch(shell, initial_command=None, ui_type="curses", input=None, output=None):
    """Run the full-screen UI (or readline when asked or without a terminal)."""
    interactive = input is not None or (sys.stdin.isatty() and sys.stdout.isatty())
    if ui_type == "curses" and interactive:
        return FullScreenUI(shell, input=input, output=output).run(initial_command)
    return ReadlineUI(shell).run(initial_command)
