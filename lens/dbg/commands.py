"""Command registry: prefixes, aliases, argparse, help, and errors turned into screens."""

import platform
import traceback

import numpy as np

from lens.dbg.command_parser import (ArgumentParser, CommandLineExit, CommandSyntaxError,
                                     tokenize)
from lens.dbg.patterns import InvalidRegexError
from lens.dbg.screen import Screen, error_screen


class Context:
    """What a handler may need beyond its arguments: the screen width."""

    def __init__(self, width=80):
        self.width = width


class CommandRegistry:
    """Maps command prefixes and aliases to handlers; dispatch always returns a Screen."""

    def __init__(self):
        self._handlers = {}
        self._parsers = {}
        self._aliases = {}
        self._help = {}
        self.help_intro = None  # Screen shown above `help` without arguments
        self.completers = {}    # prefix -> callable() -> candidate argument strings

    def register(self, prefix, handler, help_text="", aliases=(), parser=None):
        """Add a command; `handler(args_or_namespace, ctx) -> Screen`."""
        self._handlers[prefix] = handler
        self._parsers[prefix] = parser
        self._aliases[prefix] = list(aliases)
        self._help[prefix] = help_text or (parser.format_help() if parser else "")

    def resolve(self, name):
        """Canonical prefix for a name or alias, or None."""
        if name in self._handlers:
            return name
        for prefix, aliases in self._aliases.items():
            if name in aliases:
                return prefix
        return None

    def names(self):
        """Every prefix and alias, sorted (for completion)."""
        out = set(self._handlers)
        for aliases in self._aliases.values():
            out.update(aliases)
        return sorted(out)

    def prefixes(self):
        """Canonical prefixes, sorted."""
        return sorted(self._handlers)

    def aliases(self, prefix):
        """Aliases of a prefix."""
        return list(self._aliases.get(prefix, ()))

    def parser(self, prefix):
        """The argparse parser of a prefix (None for free-form commands)."""
        return self._parsers.get(prefix)

    def dispatch(self, command, ctx=None):
        """Run one command line; errors of every kind come back as screens."""
        ctx = ctx or Context()
        tokens = tokenize(command)
        if not tokens:
            return Screen()
        name, args = tokens[0], tokens[1:]
        prefix = self.resolve(name)
        if prefix is None:
            return error_screen('ERROR: Invalid command prefix "%s"' % name)
        parser = self._parsers[prefix]
        try:
            parsed = parser.parse_args(args) if parser else args
        except CommandSyntaxError as exc:
            screen = error_screen("Syntax error for command: %s" % name)
            screen.add('For help, do "help %s"' % name, "red")
            screen.add("  (%s)" % exc)
            return screen
        try:
            return self._handlers[prefix](parsed, ctx)
        except CommandLineExit:
            raise
        except InvalidRegexError as exc:  # any command's bad pattern: one clear line
            return error_screen("ERROR: %s" % exc)
        except Exception as exc:  # the CLI must survive any handler failure
            screen = error_screen("Error occurred during handling of command: %s %s:"
                                  % (name, " ".join(args)))
            screen.add("%s: %s" % (type(exc).__name__, exc), "red")
            for line in traceback.format_exc().rstrip().split("\n"):
                screen.add(line)
            return screen

    def help_screen(self, args, ctx=None):
        """`help` (all commands, with the intro) or `help <cmd>`."""
        if len(args) > 1:
            return error_screen("ERROR: help takes only 0 or 1 input argument.")
        screen = Screen()
        if args:
            prefix = self.resolve(args[0])
            if prefix is None:
                return error_screen('Invalid command prefix: "%s"' % args[0])
            self._add_help_block(screen, prefix)
            return screen
        if self.help_intro is not None:
            screen.extend(self.help_intro)
        for prefix in self.prefixes():
            self._add_help_block(screen, prefix)
        return screen

    def _add_help_block(self, screen, prefix):
        screen.add(prefix, "bold")
        if self._aliases[prefix]:
            screen.add("  Aliases: " + ", ".join(self._aliases[prefix]))
        screen.add("")
        for line in self._help[prefix].rstrip().split("\n"):
            screen.add("  " + line if line else "")
        screen.add("")
        screen.add("")


def version_screen(args=None, ctx=None):
    """`version`: lens's version and its dependency versions."""
    from importlib import metadata
    try:
        lens_version = metadata.version("lens")
    except metadata.PackageNotFoundError:
        lens_version = "unknown (not installed)"
    screen = Screen()
    screen.add("lens version: %s" % lens_version)
    screen.add("")
    screen.add("Dependency version(s):")
    screen.add("  numpy: %s" % np.__version__)
    screen.add("  python: %s" % platform.python_version())
    for package in ("protobuf", "prompt_toolkit"):
        try:
            screen.add("  %s: %s" % (package, metadata.version(package)))
        except metadata.PackageNotFoundError:
            pass
    return screen


def register_common(registry, config):
    """help, version, config (plus the UI built-ins' help entries)."""
    registry.register("help", lambda args, ctx: registry.help_screen(args, ctx),
                      "Print this help message, or the help of one command.\n"
                      "Usage: help [command]", aliases=["h"])
    registry.register("version", version_screen,
                      "Print the versions of lens and its dependencies.", aliases=["ver"])
    parser = ArgumentParser("config", "Get or set configurable options of the debugger.\n"
                            "  config show\n  config set <name> <value>")
    parser.add_argument("action", choices=["show", "set"], nargs="?", default="show")
    parser.add_argument("name", nargs="?")
    parser.add_argument("value", nargs="?")

    def config_handler(args, ctx):
        if args.action == "show":
            return config.summary()
        if args.name is None or args.value is None:
            return error_screen("ERROR: config set needs a name and a value, "
                                "e.g. config set graph_recursion_depth 10")
        try:
            config.set(args.name, args.value)
        except (KeyError, ValueError) as exc:
            return error_screen("ERROR: %s" % str(exc).strip("'\""))
        return config.summary(highlight=args.name)

    registry.register("config", config_handler, aliases=["cfg"], parser=parser)

    def exit_handler(args, ctx):
        raise CommandLineExit(exit_token={"action": "exit"})

    registry.register("exit", exit_handler, "Exit the debugger.", aliases=["quit"])
    registry.register("mouse", _ui_only, "Turn mouse mode on or off: mouse on|off.",
                      aliases=["m"])
    registry.register("prev", _ui_only, "Go to the previous screen output.")
    registry.register("next", _ui_only, "Go to the next screen output.")


def _ui_only(args, ctx):
    """Placeholder handler: the Shell intercepts these before dispatch."""
    return error_screen("ERROR: this command is handled by the terminal UI")


def write_redirect(screen, path):
    """Write a screen's plain text to `path`; returns (toast, the OS error text or None)."""
    # Nothing goes to stderr: under the full-screen UI it would land behind the app.
    try:
        with open(path, "w") as f:
            f.write(screen.text + "\n")
    except OSError as exc:
        return "ERROR: Failed to write output to %s" % path, exc.strerror or str(exc)
    return "INFO: Wrote output to %s" % path, None
