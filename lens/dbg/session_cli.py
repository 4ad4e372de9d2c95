"""Builds the run-start / run-end command sets for a wrapper session and launches the UI."""

import os
import sys

from lens.dbg import run_screens
from lens.dbg.analyzer import DebugAnalyzer
from lens.dbg.commands import CommandRegistry, register_common
from lens.dbg.config import CLIConfig
from lens.dbg.debug_data import DebugDumpDir
from lens.dbg.filters import FilterRegistry
from lens.dbg.profile import ProfileCommands
from lens.dbg.shell import CommandHistory, Shell


def default_history_path():
    """~/.tfdbg_history, as tfdbg."""
    return os.path.join(os.path.expanduser("~"), ".tfdbg_history")


class SessionCLI:
    """The debugger UI side of LocalCLIDebugWrapperSession / LocalCLIDebugHook."""

    def __init__(self, wrapper, ui_type="curses", config_path=None, history_path=None):
        self.wrapper = wrapper
        self.ui_type = ui_type
        self.filters = FilterRegistry()
        self.config = CLIConfig(config_path)
        self.history = CommandHistory(history_path or default_history_path())
        self._shown_logo = False

    def _registry(self, fetches, feed_dict, run_end):
        registry = CommandRegistry()
        register_common(registry, self.config)
        registry.register("run", run_screens.make_run_handler(self.filters), aliases=["r"],
                          parser=run_screens.run_parser())
        registry.completers["run"] = self.filters.names
        count = self.wrapper.run_call_count
        registry.register("run_info", lambda args, ctx: run_screens.run_start_screen(
            count, fetches, feed_dict, self.filters.names()),
            "Display information about this Session.run() call.", aliases=["ri"])
        registry.register("print_feed", run_screens.make_print_feed_handler(feed_dict),
                          aliases=["pf"], parser=run_screens.print_feed_parser())
        registry.completers["print_feed"] = lambda: [run_screens.element_name(k)
                                                     for k in (feed_dict or ())]
        return registry

    def _launch(self, registry, title, title_style, initial_command):
        from lens.dbg import fullscreen  # the only prompt_toolkit importer, loaded on first use
        shell = Shell(registry, title=title, title_style=title_style, history=self.history)
        shell.mouse_on = bool(self.config.get("mouse_mode"))
        token = fullscreen.launch(shell, initial_command, self.ui_type)
        if not token or token.get("action") == "exit":
            print("Note: user exited from debugger CLI: Calling sys.exit(1).", file=sys.stderr)
            sys.exit(1)
        return token["args"]

    def run_start(self, fetches, feed_dict):
        """Show the run-start screen; returns the parsed `run` command."""
        registry = self._registry(fetches, feed_dict, run_end=False)
        registry.help_intro = run_screens.run_start_screen(
            self.wrapper.run_call_count, fetches, feed_dict, self.filters.names())
        title = "run-start: " + run_screens.run_description(
            self.wrapper.run_call_count, fetches, feed_dict)
        if not self._shown_logo:
            self._shown_logo = True
            registry.register("run_info", self._logo_run_info(fetches, feed_dict),
                              "Display information about this Session.run() call.",
                              aliases=["ri"])
        return self._launch(registry, title, "blue bg_white", "run_info")

    def _logo_run_info(self, fetches, feed_dict):
        count = self.wrapper.run_call_count
        return lambda args, ctx: run_screens.run_start_screen(
            count, fetches, feed_dict, self.filters.names(), show_logo=count == 1)

    def run_end(self, dump_root, fetches, feed_dict, error=None, tensor_filter=None,
                exclude=None, budget_message=None):
        """Load the dump, show the run-end screen; returns the next `run` command."""
        registry = self._registry(fetches, feed_dict, run_end=True)
        dump = DebugDumpDir(dump_root)
        dump.set_python_graph(self.wrapper.graph)
        DebugAnalyzer(dump, self.filters, self.config).register(registry)
        title = "run-end: " + run_screens.run_description(
            self.wrapper.run_call_count, fetches, feed_dict)
        style = "black bg_white"
        initial = "lt"
        if error is not None:
            op = getattr(error, "op", None)
            registry.help_intro = run_screens.error_intro(getattr(op, "name", None), error)
            style, initial = "red bg_white", "help"
        elif tensor_filter:
            style = "red bg_white"
            initial = "lt -f %s" % tensor_filter
            if exclude:
                initial += " --filter_exclude_node_names %s" % exclude
        if budget_message:
            title += " [dump budget exhausted]"
        return self._launch(registry, title, style, initial)

    def profile_end(self, run_metadata, fetches, feed_dict):
        """Show the profiler run-end screen (`lp`)."""
        registry = self._registry(fetches, feed_dict, run_end=True)
        ProfileCommands(run_metadata, self.wrapper.graph).register(registry)
        title = "run-end (profiler mode): " + run_screens.run_description(
            self.wrapper.run_call_count, fetches, feed_dict)
        return self._launch(registry, title, "black bg_white", "lp")
