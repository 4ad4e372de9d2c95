"""Shell behaviour (redirect, navigation, completion, mouse) and the run-start/end screens."""

import pytest

from lens.dbg import run_screens
from lens.dbg.analyzer import DebugAnalyzer
from lens.dbg.command_parser import CommandSyntaxError, split_redirect, tokenize
from lens.dbg.commands import CommandRegistry, register_common
from lens.dbg.config import CLIConfig
from lens.dbg.filters import FilterRegistry
from lens.dbg.shell import CommandHistory, Shell


@pytest.fixture
def shell(mlp_dump_dir, tmp_path):
    registry = CommandRegistry()
    config = CLIConfig(path="")
    register_common(registry, config)
    filters = FilterRegistry()
    DebugAnalyzer(mlp_dump_dir, filters, config).register(registry)
    registry.register("run", run_screens.make_run_handler(filters), aliases=["r"],
                      parser=run_screens.run_parser())
    registry.completers["run"] = filters.names
    return Shell(registry, title="t", history=CommandHistory(str(tmp_path / "h")))


def test_tokenize_and_redirect():
    assert tokenize('pt x:0[0, :] -a') == ["pt", "x:0[0, :]", "-a"]
    assert tokenize('eval "np.sum(`a:0`) + 1"') == ["eval", "np.sum(`a:0`) + 1"]
    assert split_redirect("lt -n a > /tmp/out.txt") == ("lt -n a", "/tmp/out.txt")
    assert split_redirect("pt x:0[0:2, >]") == ("pt x:0[0:2, >]", None)
    with pytest.raises(CommandSyntaxError, match="Redirect file path is empty"):
        split_redirect("lt >")


def test_redirect_writes_plain_text(shell, tmp_path):
    target = tmp_path / "lt.txt"
    result = shell.execute("lt > %s" % target)
    assert result.toast == "INFO: Wrote output to %s" % target
    assert target.read_text().startswith("13 dumped tensor(s):\n")
    missing = tmp_path / "no" / "dir" / "x"
    bad = shell.execute("lt > %s" % missing)
    assert bad.toast_is_error and bad.toast == "ERROR: Failed to write output to %s" % missing
    # The reason is in the output pane, above the output that could not be saved.
    assert bad.screen.lines[:3] == [
        "ERROR: Failed to write output to %s: No such file or directory" % missing, "",
        "13 dumped tensor(s):"]
    assert "red" in bad.screen.styled(0, "ERROR") and "is_error" not in bad.screen.annotations
    assert ("x:0", "pt x:0") in [(text, command) for _, text, command in bad.screen.links()]
    assert shell.execute("lt >").toast == "ERROR: Redirect file path is empty"


def test_failed_redirect_keeps_line_annotations_in_place(shell, tmp_path, capfd):
    screen = shell.execute("pt -a x:0 > %s" % tmp_path).screen  # a directory: not writable
    assert screen.lines[0].startswith("ERROR: Failed to write output to %s: " % tmp_path)
    firsts = screen.annotations["element_indices"]
    assert screen.lines[min(firsts)].startswith("array([[")  # indices moved down with lines
    assert capfd.readouterr().err == ""  # nothing behind the full-screen UI's back


def test_navigation_history(shell):
    assert shell.execute("prev").toast == "At the OLDEST in navigation history!"
    shell.execute("lt")
    shell.execute("pt x:0")
    assert shell.execute("prev").screen.lines[0] == "13 dumped tensor(s):"
    assert shell.execute("next").screen.lines[0].startswith('Tensor "x:0')
    assert shell.execute("next").toast == "At the LATEST in navigation history!"
    for i in range(12):
        shell.execute("pt x:0")
    assert len(shell.screens) == 10


def test_mouse_and_search_toasts(shell):
    assert shell.execute("mouse").toast == "Mouse mode: on"
    assert shell.execute("mouse off").toast == "Mouse mode: off" and not shell.mouse_on
    assert shell.execute("mouse sideways").toast == "Invalid mouse mode: sideways"
    shell.execute("lt")
    assert shell.execute("/Soft").search == "Soft"
    assert shell.execute("/zzz").toast == "Pattern not found"
    assert shell.execute("/[").toast == ('ERROR: Invalid regular expression: "[": '
                                          "unterminated character set at position 0")
    assert shell.execute("/").search == "Soft"  # bare '/' repeats the last search


def test_completion(shell):
    assert shell.complete("print_t") == ("print_tensor ", ["print_tensor"])
    text, candidates = shell.complete("l")
    assert text == "l" and {"list_tensors", "lt", "li", "lo", "ls"} <= set(candidates)
    assert shell.complete("pt cross_entropy/N") == ("pt cross_entropy/Neg:0 ",
                                                   ["cross_entropy/Neg:0"])
    assert shell.complete("ni hidden/")[1] == ["hidden/MatMul", "hidden/Relu"]
    assert shell.complete("run -f has")[0] == "run -f has_inf_or_nan "
    assert "--reverse" in shell.complete("lt --")[1]


def test_exit_command_leaves(shell):
    result = shell.execute("exit")
    assert result.exited and result.exit_token == {"action": "exit"}


def test_run_command_validation(shell):
    assert shell.execute("run -f nope").screen.lines == [
        'ERROR: tensor filter "nope" does not exist.']
    assert "only with" in shell.execute("run -fenn x").screen.text
    assert "Invalid regular expression" in shell.execute("run --node_name_filter (").screen.text
    deep = "(" * 5000
    for flag in ("--node_name_filter", "--op_type_filter", "--tensor_dtype_filter"):
        screen = shell.execute("run %s %s" % (flag, deep)).screen
        assert screen.lines[0].startswith("ERROR: Invalid regular expression for %s: " % flag)
        assert screen.lines[0].endswith("groups nested too deeply") and len(screen.lines) == 1
    assert shell.execute("run -f has_inf_or_nan -fenn %s" % deep).screen.lines[0].endswith(
        "groups nested too deeply")
    shell.execute("lt")
    assert shell.execute("/" + deep).toast.endswith("(5000 characters)\": groups nested too "
                                                     "deeply")
    done = shell.execute("run -t 3 --op_type_filter MatMul")
    assert done.exited and done.exit_token["args"].times == 3
    assert done.exit_token["args"].op_type_filter == "MatMul"


class FakeTensor:
    """Just enough of a Tensor for the title and run_info screens (a name)."""

    def __init__(self, name):
        self.name = name


def test_run_description_and_run_start_screen():
    x, y, loss = FakeTensor("x:0"), FakeTensor("y_:0"), FakeTensor("cross_entropy/Neg:0")
    assert run_screens.run_description(3, loss, {x: 1}) == \
        "run #3: 1 fetch (cross_entropy/Neg:0); 1 feed (x:0)"
    assert run_screens.run_description(1, [loss, "train"], {x: 1, y: 2}) == \
        "run #1: 2 fetches; 2 feeds"
    assert run_screens.run_description(1, {"a": loss}, None) == "run #1: 1 fetch; 0 feeds"
    screen = run_screens.run_start_screen(1, {"l": [loss, "train"]}, {x: 1},
                                          ["has_inf_or_nan"])
    lines = screen.lines
    assert lines[1] == "Session.run() call #1:"
    assert lines[3:6] == ["Fetch(es):", "  cross_entropy/Neg:0", "  train"]
    assert lines[7:9] == ["Feed dict:", "  x:0"]
    assert ("        * has_inf_or_nan" in lines)
    links = {cmd for _, _, cmd in screen.links()}
    assert {"run", "run -n", "run -f has_inf_or_nan", "pf 'x:0'", "help"} <= links
    assert "bold" in screen.styled(lines.index("  run:"), "run")
    empty = run_screens.run_start_screen(2, loss, None, [])
    assert "  (Empty)" in empty.lines and "        (None)" in empty.lines


def test_error_intro():
    screen = run_screens.error_intro("MatMul", ValueError("shapes differ"))
    assert "!!! An error occurred during the run !!!" in screen.lines
    assert "Op name:    MatMul" in screen.lines and "shapes differ" in screen.lines
    assert {"ni -a -d -t MatMul", "li -r MatMul", "lt"} == {c for _, _, c in screen.links()}
    unknown = run_screens.error_intro(None, ValueError("x"))
    assert "WARNING: Cannot determine the name of the op that caused the error." in unknown.lines


def test_print_feed(shell):
    import numpy as np
    x = FakeTensor("x:0")
    handler = run_screens.make_print_feed_handler({x: np.arange(6.0).reshape(2, 3)})
    parser = run_screens.print_feed_parser()
    screen = handler(parser.parse_args(["x:0[1, :]"]), None)
    assert screen.lines[0] == 'Tensor "x:0 (feed)[1, :]":'
    assert "array([3., 4., 5.])" in screen.text
    missing = handler(parser.parse_args(["y:0"]), None)
    assert missing.lines == ["ERROR: The feed_dict of the current run does not contain the "
                             "key y:0"]
    empty = run_screens.make_print_feed_handler(None)(parser.parse_args(["x:0"]), None)
    assert empty.lines == ["ERROR: The feed_dict of the current run is None or empty."]
