"""The prompt_toolkit full-screen UI driven through pipe input (no terminal needed)."""

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from lens.dbg.analyzer import DebugAnalyzer
from lens.dbg.fullscreen import FullScreenUI, line_fragments
from lens.dbg.commands import CommandRegistry, register_common
from lens.dbg.config import CLIConfig
from lens.dbg.filters import FilterRegistry
from lens.dbg.screen import Screen, Span
from lens.dbg.shell import CommandHistory, Shell

PGDN, PGUP, UP, TAB, CTRL_C = "\x1b[6~", "\x1b[5~", "\x1b[A", "\t", "\x03"


def click(x, y):
    """An xterm SGR left click (press + release) at 0-based column x, terminal row y."""
    return "\x1b[<0;%d;%dM\x1b[<0;%d;%dm" % (x + 1, y + 1, x + 1, y + 1)


def wheel_down(x, y):
    return "\x1b[<65;%d;%dM" % (x + 1, y + 1)


@pytest.fixture
def app_parts(mlp_dump_dir, tmp_path):
    registry = CommandRegistry()
    config = CLIConfig(path="")
    register_common(registry, config)
    DebugAnalyzer(mlp_dump_dir, FilterRegistry(), config).register(registry)
    history = CommandHistory(str(tmp_path / "history"))
    shell = Shell(registry, title="tfdbg offline @ test", history=history)
    probes = []

    def probe(args, ctx):
        ui = probes_ui[0]
        probes.append({"top": ui.top, "toast": ui.toast[0], "first": ui.screen.lines[0],
                       "mouse": shell.mouse_on, "command": shell.current_command})
        return ui.screen  # keep showing the same screen
    registry.register("probe", probe, "Test probe: records the UI state.")
    probes_ui = []
    return shell, probes, probes_ui, tmp_path


def drive(app_parts, keys, initial="lt"):
    shell, probes, probes_ui, _ = app_parts
    with create_pipe_input() as pipe:
        ui = FullScreenUI(shell, input=pipe, output=DummyOutput())
        probes_ui.append(ui)
        pipe.send_text("".join(keys))
        token = ui.run(initial)
    return ui, token


def test_commands_screens_and_exit(app_parts):
    shell, probes, _, _ = app_parts
    ui, token = drive(app_parts, ["pt cross_entropy/Log:0\r", "probe\r", "bogus\r", "probe\r",
                                  "prev\r", "prev\r", "probe\r", "exit\r"])
    assert token == {"action": "exit"}
    assert probes[0]["first"] == 'Tensor "cross_entropy/Log:0:DebugIdentity":'
    assert probes[1]["first"] == 'ERROR: Invalid command prefix "bogus"'
    assert "Error in command: bogus" in probes[1]["toast"]
    assert probes[2]["first"] == 'Tensor "cross_entropy/Log:0:DebugIdentity":'


def test_scrolling_keys_and_wheel(app_parts):
    _, probes, _, _ = app_parts
    ui, _ = drive(app_parts, ["help\r", PGDN, "probe\r", PGDN, "probe\r", PGUP, "probe\r",
                              wheel_down(5, 5), "probe\r", "\x1b[1;5F", "probe\r", "exit\r"])
    page = ui.pane.height - 1
    assert [p["top"] for p in probes[:3]] == [page, 2 * page, page]
    assert probes[3]["top"] == page + 3
    assert probes[4]["top"] > 2 * page  # Ctrl-End: the bottom


def test_click_on_tensor_name_runs_pt_and_mouse_off_disables(app_parts):
    shell, probes, _, _ = app_parts
    lt = shell.registry.dispatch("lt")
    line = next(i for i, text in enumerate(lt.lines) if text.endswith("cross_entropy/Log:0"))
    col = lt.lines[line].index("cross_entropy/Log:0") + 2
    row = 2 + line  # title and nav bar sit above the pane
    ui, _ = drive(app_parts, [click(col, row), "probe\r", "lt\r", "mouse off\r",
                              click(col, row), "probe\r", "exit\r"])
    assert probes[0]["first"] == 'Tensor "cross_entropy/Log:0:DebugIdentity":'
    assert probes[0]["command"] == "pt cross_entropy/Log:0"
    assert probes[1]["first"] == "13 dumped tensor(s):" and probes[1]["mouse"] is False


def test_tab_completion_history_and_ctrl_c(app_parts):
    shell, probes, _, tmp_path = app_parts
    ui, _ = drive(app_parts, ["pt cross_entropy/L" + TAB + "\r", "probe\r",
                              "ni -t Soft" + TAB + "\r", "li" + UP + "\r", "probe\r",
                              "garbage" + CTRL_C, "probe\r", "exit\r"])
    assert probes[0]["command"] == "pt cross_entropy/Log:0"
    # Up with "li" typed recalls nothing starting with "li"; the command runs as typed.
    assert probes[1]["command"] == "li"
    assert "Interrupted" in probes[2]["toast"] and probes[2]["command"] == "probe"
    saved = open(tmp_path / "history").read().split("\n")
    assert "pt cross_entropy/Log:0" in saved and "ni -t Softmax" in saved


def test_history_up_recalls_prefix_match(app_parts):
    _, probes, _, _ = app_parts
    drive(app_parts, ["pt x:0\r", "lt\r", "pt" + UP + "\r", "probe\r", "exit\r"])
    assert probes[0]["command"] == "pt x:0"


def test_search_with_n_and_N(app_parts):
    _, probes, _, _ = app_parts
    ui, _ = drive(app_parts, ["lt\r", "/Identity\r", "probe\r", "n", "probe\r", "N",
                              "probe\r", "/nomatch\r", "probe\r", "exit\r"])
    first, second, back, missing = probes
    assert "match 1 of 2" in first["toast"] and first["top"] == 6  # the W1/read row
    assert "match 2 of 2" in second["toast"] and second["top"] == 10  # the W2/read row
    assert back["top"] == first["top"]
    assert missing["toast"] == "Pattern not found"
    assert ui.matches_by_line == {6: [(18, 26)], 10: [(18, 26)]}


def test_line_fragments_style_links_and_matches():
    screen = Screen().add_parts([("Tensor ", None), ("x:0", "bold", "pt x:0")])
    frags = line_fragments(screen.lines[0], screen.spans_at(0), [(0, 2)])
    assert frags[0] == ("fg:ansiblack bg:ansiwhite reverse", "Te")
    assert frags[-1] == ("bold underline", "x:0")
    assert line_fragments("abc", [Span(0, 3, "red")]) == [("fg:ansired", "abc")]


def test_failed_redirect_shows_in_the_pane_not_on_stderr(app_parts, capfd):
    _, probes, _, tmp_path = app_parts
    missing = tmp_path / "no" / "dir" / "out.txt"
    ui, _ = drive(app_parts, ["lt > %s\r" % missing, "probe\r", "exit\r"])
    assert probes[0]["first"] == ("ERROR: Failed to write output to %s: No such file or "
                                  "directory" % missing)
    assert probes[0]["toast"] == "ERROR: Failed to write output to %s" % missing
    assert ui.screen.lines[2] == "13 dumped tensor(s):"  # the output is still there
    assert capfd.readouterr().err == ""


def test_clicking_next_on_a_paged_value_shows_the_next_page(app_parts):
    shell, probes, _, _ = app_parts
    command = 'ev -a "np.arange(30000.)"'
    first = shell.registry.dispatch(command)
    line = next(i for i, text in enumerate(first.lines) if text.startswith("Page 1 of 3"))
    col = first.lines[line].index("next") + 1
    drive(app_parts, [click(col, 2 + line), "probe\r", "exit\r"], initial=command)
    assert probes[0]["command"] == 'eval "np.arange(30000.)" -a --page 2'
    assert shell.current.lines[line].startswith("Page 2 of 3: [10000:20000]")
