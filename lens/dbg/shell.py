"""UI-independent command shell: dispatch, redirection, screen history, search, completion.

Both the prompt_toolkit UI and the readline UI drive a `Shell`; tests drive it directly.
"""

import os
from dataclasses import dataclass

from lens.dbg.command_parser import CommandLineExit, CommandSyntaxError, split_redirect, \
    tokenize
from lens.dbg.commands import Context, write_redirect
from lens.dbg.patterns import InvalidRegexError, compile_regex
from lens.dbg.screen import Screen

MAX_NAV_SCREENS = 10
MAX_HISTORY = 100


@dataclass
class Result:
    """What one command did: a new screen, a toast, a search, or an exit request."""

    screen: Screen | None = None
    toast: str = ""
    toast_is_error: bool = False
    search: str | None = None
    exit_token: object = None
    exited: bool = False


class CommandHistory:
    """Command history persisted one command per line (like ~/.tfdbg_history)."""

    def __init__(self, path=None):
        self.path = path
        self.items = []
        if path and os.path.isfile(path):
            try:
                with open(path) as f:
                    self.items = [line.rstrip("\n") for line in f if line.strip()]
            except OSError:
                self.items = []
        self.items = self.items[-MAX_HISTORY:]

    def add(self, command):
        """Append (skipping a consecutive duplicate) and save."""
        command = command.strip()
        if not command or (self.items and self.items[-1] == command):
            return
        self.items.append(command)
        self.items = self.items[-MAX_HISTORY:]
        if self.path:
            try:
                with open(self.path, "w") as f:
                    f.write("\n".join(self.items) + "\n")
            except OSError:
                pass  # unwritable home: history still works for this session

    def matching(self, prefix):
        """Commands starting with `prefix`, oldest first."""
        return [c for c in self.items if c.startswith(prefix)]


def find_matches(screen, pattern):
    """[(line, start, end)] of every regex match in a screen (InvalidRegexError on bad regex)."""
    regex = compile_regex(pattern)
    out = []
    for index, line in enumerate(screen.lines):
        for match in regex.finditer(line):
            if match.end() > match.start():
                out.append((index, match.start(), match.end()))
    return out


def common_prefix(words):
    """Longest common prefix of some strings."""
    return os.path.commonprefix(list(words)) if words else ""


class Shell:
    """Runs commands against a registry and keeps the navigation history of screens."""

    def __init__(self, registry, title="", title_style="", history=None):
        self.registry = registry
        self.title = title
        self.title_style = title_style
        self.history = history or CommandHistory()
        self.mouse_on = True
        self.screens = []  # [(command, Screen)], newest last
        self.position = -1
        self.last_search = None

    @property
    def current(self):
        """The screen being shown (None before the first command)."""
        return self.screens[self.position][1] if self.screens else None

    @property
    def current_command(self):
        """The command that produced the current screen."""
        return self.screens[self.position][0] if self.screens else ""

    def execute(self, text, width=80, record=True):
        """Run one command line and report what the UI should do."""
        text = text.strip()
        if not text:
            return Result()
        if record:
            self.history.add(text)
        if text.startswith("/"):
            return self._search(text[1:])
        tokens = tokenize(text)
        name = tokens[0] if tokens else ""
        if name in ("prev", "next"):
            return self._navigate(-1 if name == "prev" else 1)
        if name in ("mouse", "m"):
            return self._mouse(tokens[1:])
        try:
            command, redirect = split_redirect(text)
        except CommandSyntaxError as exc:
            return Result(toast="ERROR: %s" % exc, toast_is_error=True)
        try:
            screen = self.registry.dispatch(command, Context(width))
        except CommandLineExit as exc:
            return Result(exit_token=exc.exit_token, exited=True)
        toast, failure = write_redirect(screen, redirect) if redirect else ("", None)
        if failure is not None:
            # Shown in the output pane, above the output it failed to save.
            screen = Screen().add("%s: %s" % (toast, failure), "red").add("").extend(screen)
        self._push(text, screen)
        return Result(screen=screen, toast=toast, toast_is_error=failure is not None)

    def _push(self, command, screen):
        del self.screens[self.position + 1:]  # a new command drops the "forward" screens
        self.screens.append((command, screen))
        self.screens = self.screens[-MAX_NAV_SCREENS:]
        self.position = len(self.screens) - 1

    def _navigate(self, step):
        target = self.position + step
        if target < 0:
            return Result(toast="At the OLDEST in navigation history!")
        if target >= len(self.screens):
            return Result(toast="At the LATEST in navigation history!")
        self.position = target
        return Result(screen=self.current)

    def _mouse(self, args):
        if not args:
            return Result(toast="Mouse mode: %s" % ("on" if self.mouse_on else "off"))
        if len(args) != 1 or args[0] not in ("on", "off"):
            return Result(toast="Invalid mouse mode: %s" % " ".join(args), toast_is_error=True)
        self.mouse_on = args[0] == "on"
        return Result(toast="Mouse mode: %s" % args[0])

    def _search(self, pattern):
        pattern = pattern or self.last_search
        if not pattern:
            return Result(toast="Empty search pattern: type /regex", toast_is_error=True)
        if self.current is None:
            return Result(toast="Pattern not found", toast_is_error=True)
        try:
            matches = find_matches(self.current, pattern)
        except InvalidRegexError as exc:
            return Result(toast="ERROR: %s" % exc, toast_is_error=True)
        if not matches:
            return Result(toast="Pattern not found", toast_is_error=True)
        self.last_search = pattern
        return Result(search=pattern)

    def complete(self, text):
        """(completed text, candidates) for tab completion of `text`."""
        words = text.split(" ")
        if len(words) == 1:
            candidates = [n for n in self.registry.names() if n.startswith(words[0])]
            candidates += [n for n in ("prev", "next", "mouse") if n.startswith(words[0])
                           and n not in candidates]
            done = common_prefix(candidates)
            if len(candidates) == 1:
                done += " "
            return (done if candidates else text), sorted(candidates)
        prefix = self.registry.resolve(words[0])
        partial = words[-1]
        pool = []
        if prefix is not None:
            completer = self.registry.completers.get(prefix)
            if completer is not None:
                pool += list(completer())
            parser = self.registry.parser(prefix)
            if parser is not None and partial.startswith("-"):
                pool += [s for a in parser._actions for s in a.option_strings]
        candidates = sorted({c for c in pool if c.startswith(partial)})
        if not candidates:
            return text, []
        done = common_prefix(candidates)
        head = " ".join(words[:-1]) + " "
        return head + done + (" " if len(candidates) == 1 else ""), candidates
