"""Run-start (run_info) and run-end screens, the `run` command and `print_feed`."""

import numpy as np

from lens.dbg import tensor_format
from lens.dbg.command_parser import ArgumentParser, CommandLineExit
from lens.dbg.patterns import compile_regex
from lens.dbg.screen import Screen, error_screen

LOGO = [
    "L      EEEEE N   N  SSSS     DDD   BBBB    GGG ",
    "L      E     NN  N S         D  D  B   B  G    ",
    "L      EEEE  N N N  SSS      D  D  BBBB   G  GG",
    "L      E     N  NN     S     D  D  B   B  G   G",
    "LLLLL  EEEEE N   N SSSS      DDD   BBBB    GGG ",
]


def element_name(element):
    """The display name of a fetch/feed element (Tensor, Operation, Variable, str)."""
    name = getattr(element, "name", None)
    return name if isinstance(name, str) else str(element)


def flatten_fetches(fetches):
    """Leaf names of a (nested) fetch structure, in order."""
    if isinstance(fetches, dict):
        return [n for v in fetches.values() for n in flatten_fetches(v)]
    if isinstance(fetches, (list, tuple)) and not hasattr(fetches, "name"):
        return [n for v in fetches for n in flatten_fetches(v)]
    return [element_name(fetches)]


def run_description(run_call_count, fetches, feed_dict):
    """'run #N: 1 fetch (x:0); 2 feeds' as in tfdbg's titles."""
    names = flatten_fetches(fetches)
    single = not isinstance(fetches, (list, tuple, dict)) or hasattr(fetches, "name")
    if single:
        fetch_text = "1 fetch (%s); " % names[0]
    else:
        fetch_text = "%d fetch%s; " % (len(names), "" if len(names) == 1 else "es")
    feeds = list(feed_dict or ())
    if not feeds:
        feed_text = "0 feeds"
    elif len(feeds) == 1:
        feed_text = "1 feed (%s)" % element_name(feeds[0])
    else:
        feed_text = "%d feeds" % len(feeds)
    return "run #%d: %s%s" % (run_call_count, fetch_text, feed_text)


def run_start_screen(run_call_count, fetches, feed_dict, filter_names, show_logo=False):
    """The run_info screen: run number, fetches, feeds, run commands and filters."""
    screen = Screen()
    if show_logo:
        screen.add("")
        for row in LOGO:
            screen.add(row)
        screen.add("")
        from lens.dbg.commands import version_screen
        screen.add(version_screen().lines[0])
        screen.add("")
    rule = "=" * 38
    screen.add(rule)
    screen.add("Session.run() call #%d:" % run_call_count)
    screen.add("")
    screen.add("Fetch(es):")
    for name in flatten_fetches(fetches):
        screen.add("  " + name)
    screen.add("")
    screen.add("Feed dict:")
    if feed_dict:
        for key in feed_dict:
            name = element_name(key)
            screen.add_parts([("  ", None), (name, "underline", "pf '%s'" % name)])
    else:
        screen.add("  (Empty)")
    screen.add(rule)
    screen.add("")
    screen.add("Select one of the following commands to proceed ---->")
    for command, text, style in (
            ("run", "Execute the run() call with debug tensor-watching", "bold underline"),
            ("run -n", "Execute the run() call without debug tensor-watching", "underline"),
            ("run -t <T>", "Execute run() calls (T - 1) times without debugging, then execute "
                           "run() once more with debugging and drop back to the CLI", None),
            ("run -f <filter_name>", "Keep executing run() calls until a dumped tensor passes "
                                     "a given, registered filter (conditional breakpoint mode)",
             None)):
        link = command if "<" not in command else None
        screen.add_parts([("  ", None), (command, style, link), (":", style)])
        screen.add("    " + text)
    screen.add("    Registered filter(s):")
    if filter_names:
        for name in filter_names:
            screen.add_parts([("        * ", None),
                              (name, "underline", "run -f %s" % name)])
    else:
        screen.add("        (None)")
    screen.add("")
    screen.add_parts([("For more details, see ", None), ("help.", "underline", "help"),
                      (".", None)])
    return screen


def error_intro(op_name, error):
    """The help intro after a run raised an OpError."""
    screen = Screen(annotations={"is_error": True})
    screen.add("-" * 38)
    screen.add("!!! An error occurred during the run !!!", "blink red")
    screen.add("")
    if op_name:
        screen.add("You may use the following commands to debug:")
        for command, text in (("ni -a -d -t %s" % op_name, "Inspect information about the "
                                                             "failing op."),
                              ("li -r %s" % op_name, "List inputs to the failing op, "
                                                     "recursively."),
                              ("lt", "List all tensors dumped during the failing run() "
                                     "call.")):
            screen.add_parts([("  ", None), (command, "underline", command), (":", None)])
            screen.add("    " + text)
        screen.add("")
        screen.add("Op name:    %s" % op_name)
    else:
        screen.add("WARNING: Cannot determine the name of the op that caused the error.")
    screen.add("Error type: %s" % type(error))
    screen.add("")
    screen.add("Details:")
    for line in str(error).split("\n"):
        screen.add(line)
    screen.add("")
    screen.add("-" * 38)
    return screen


def run_parser():
    """argparse for `run`."""
    p = ArgumentParser("run", "Run the next Session.run() call (or several).")
    p.add_argument("-t", "--times", type=int, default=1,
                   help="Run T - 1 times without debugging, then once with debugging.")
    p.add_argument("-n", "--no_debug", action="store_true", help="Run without debugging.")
    p.add_argument("-f", "--till_filter_pass", default="",
                   help="Keep running until a tensor passes this registered filter.")
    p.add_argument("-fenn", "--filter_exclude_node_names", default="",
                   help="With -f: regex of node names the filter skips.")
    p.add_argument("--node_name_filter", default="", help="Watch only nodes matching regex.")
    p.add_argument("--op_type_filter", default="", help="Watch only op types matching regex.")
    p.add_argument("--tensor_dtype_filter", default="",
                   help="Watch only tensors whose dtype matches regex, e.g. (float32|float64).")
    p.add_argument("-p", "--profile", action="store_true", help="Profile the next run.")
    return p


def make_run_handler(filters):
    """The `run` handler: validates and leaves the CLI with the parsed request."""
    def handler(args, ctx):
        if args.till_filter_pass and args.till_filter_pass not in filters:
            return error_screen('ERROR: tensor filter "%s" does not exist.'
                                % args.till_filter_pass)
        if args.filter_exclude_node_names and not args.till_filter_pass:
            return error_screen("ERROR: --filter_exclude_node_names is meaningful only with "
                                "-f (--till_filter_pass)")
        if args.times < 1:
            return error_screen("ERROR: -t (--times) must be at least 1, got %d" % args.times)
        for flag in ("node_name_filter", "op_type_filter", "tensor_dtype_filter",
                     "filter_exclude_node_names"):
            compile_regex(getattr(args, flag), "--" + flag)  # fail here, not in the run
        raise CommandLineExit(exit_token={"action": "run", "args": args})
    return handler


def print_feed_parser():
    """argparse for `print_feed` (pt's flags)."""
    p = ArgumentParser("print_feed", "Print the value of a feed in feed_dict.")
    p.add_argument("tensor_name", help="Name of the feed, optionally sliced.")
    p.add_argument("-a", "--all", dest="print_all", action="store_true",
                   help="Print without ellipses (paged when large).")
    tensor_format.add_page_flag(p)
    p.add_argument("-r", "--ranges", default="", help="Highlight ranges, e.g. [-1,1].")
    p.add_argument("-s", "--numeric_summary", action="store_true",
                   help="Include a numeric summary.")
    p.add_argument("-w", "--write_path", default="", help="Save the value as .npy.")
    return p


def make_print_feed_handler(feed_dict):
    """The `pf` handler over the current run's feed_dict."""
    from lens.dbg.analyzer import format_value, paged_command

    def handler(args, ctx):
        if not feed_dict:
            return error_screen("ERROR: The feed_dict of the current run is None or empty.")
        name, slicing = tensor_format.parse_tensor_name_with_slicing(args.tensor_name)
        name = name.strip("'")
        wanted = {name, name + ":0"}
        for key, value in feed_dict.items():
            if element_name(key) in wanted:
                return format_value(np.asarray(value), "%s (feed)" % name + slicing,
                                    slicing, args, ctx.width if ctx else 80,
                                    paged_command(args, "print_feed %s" % args.tensor_name))
        return error_screen("ERROR: The feed_dict of the current run does not contain the "
                            "key %s" % name)
    return handler
