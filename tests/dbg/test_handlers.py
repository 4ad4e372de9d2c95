"""Command handlers without a terminal: screen text and styled spans."""

import os
import re

import numpy as np
import pytest

from lens.dbg.analyzer import DebugAnalyzer, human_size
from lens.dbg.commands import Context, CommandRegistry, register_common
from lens.dbg.config import CLIConfig
from lens.dbg.debug_data import DebugDumpDir
from lens.dbg.filters import FilterRegistry

from conftest import write_mlp_dump


def make_registry(dump, filters=None, config_path=""):
    registry = CommandRegistry()
    config = CLIConfig(path=config_path)
    register_common(registry, config)
    DebugAnalyzer(dump, filters or FilterRegistry(), config).register(registry)
    return registry


@pytest.fixture
def registry(mlp_dump_dir):
    return make_registry(mlp_dump_dir)


def run(registry, command, width=80):
    return registry.dispatch(command, Context(width))


def test_lt_columns_and_rows(registry, mlp_dump_dir):
    screen = run(registry, "lt")
    assert screen.lines[0] == "13 dumped tensor(s):"
    header = screen.lines[2]
    assert re.match(r"t \(ms\)\s+Size \(B\)\s+Op type\s+Tensor name$", header)
    assert screen.styled(2, "Size (B)") == {"bold", "link"}
    rows = screen.lines[3:]
    assert rows[0].split()[0] == "[0.000]" and rows[0].split()[-1] == "x:0"
    log_row = next(r for r in rows if r.endswith("cross_entropy/Log:0"))
    t_ms, size, op_type, name = log_row.split()
    assert t_ms == "[1.000]" and op_type == "Log"
    datum = mlp_dump_dir.watch_key_to_data("cross_entropy/Log:0:DebugIdentity")[0]
    assert size == human_size(datum.dump_size_bytes)
    links = dict((text, cmd) for _, text, cmd in screen.links())
    assert links["cross_entropy/Log:0"] == "pt cross_entropy/Log:0"
    assert links["t (ms)"] == "lt -s timestamp -r"
    assert links["Op type"] == "lt -s op_type"


def test_lt_filters_and_sorting(registry):
    screen = run(registry, "lt -f has_inf_or_nan")
    assert screen.lines[0] == '3 dumped tensor(s) passing filter "has_inf_or_nan":'
    assert screen.lines[3].endswith("cross_entropy/Log:0")  # the culprit comes first
    screen = run(registry, "lt -n cross.*")
    assert screen.lines[:2] == ["3 dumped tensor(s):", 'Node name regex filter: "cross.*"']
    screen = run(registry, "lt -t MatMul -s tensor_name -r")
    assert [line.split()[-1] for line in screen.lines[4:]] == ["logits/MatMul:0",
                                                               "hidden/MatMul:0"]
    screen = run(registry, "lt -s dump_size")
    sizes = [line.split()[1] for line in screen.lines[3:]]
    assert sizes[0] != "?" and len(sizes) == 13
    assert run(registry, "lt -f nope").lines == ['ERROR: There is no tensor filter named "nope".']
    assert "red" in run(registry, "lt -f nope").styled(0, "ERROR")
    assert "only with" in run(registry, "lt -fenn x").text


def test_lt_health_column(registry):
    screen = run(registry, "lt --health -n cross_entropy/Log")
    row = screen.lines[-1]
    assert row.startswith("[1.000]")
    # 12 elements: one -inf (the zeroed softmax entry), the rest negative or zero.
    counts = row.split("cross_entropy/Log:0")[1].split("|")[0].split()
    assert counts[0] == "0" and counts[1] == "1" and sum(map(int, counts)) == 12


def test_human_size():
    assert [human_size(n) for n in (5, 1023, 1024, 1536, 3 * 1024 ** 2)] == [
        "5", "1023", "1.00k", "1.50k", "3.00M"]


def test_pt(registry):
    screen = run(registry, "pt cross_entropy/Log:0")
    assert screen.lines[0] == 'Tensor "cross_entropy/Log:0:DebugIdentity":'
    assert "-inf" in screen.text and screen.lines[1] == "  dtype: float32"
    screen = run(registry, "pt cross_entropy/Log")  # bare node name with one slot
    assert screen.lines[0] == 'Tensor "cross_entropy/Log:0:DebugIdentity":'
    screen = run(registry, "pt Softmax:0[0:2, :] -s")
    assert screen.lines[0] == 'Tensor "Softmax:0:DebugIdentity[0:2, :]":'
    assert "  shape: (2, 3)" in screen.lines and "Numeric summary:" in screen.lines
    screen = run(registry, "pt hidden/Relu:0 -r [0.5,100]")
    assert "Highlighted([0.5,100])" in screen.lines[0]


def test_pt_errors(registry):
    assert run(registry, "pt ghost:0").lines == [
        'ERROR: Node "ghost" does not exist in partition graphs']
    assert "Invalid tensor-slicing" in run(registry, "pt x:0[-1]").text
    assert run(registry, "pt x:0 -n 3").lines[0].startswith("ERROR: Invalid number (3)")
    bad = run(registry, "pt")
    assert bad.lines[:2] == ["Syntax error for command: pt", 'For help, do "help pt"']


def test_pt_multiple_dumps_and_write(tmp_path):
    dump = DebugDumpDir(write_mlp_dump(str(tmp_path / "d"), repeat_relu=True))
    registry = make_registry(dump)
    screen = run(registry, "pt hidden/Relu:0")
    assert screen.lines[0] == 'Tensor "hidden/Relu:0" generated 2 dumps:'
    assert screen.lines[1].startswith("#0 [") and screen.links()[1][2] == \
        "print_tensor hidden/Relu:0 -n 1"
    one = run(registry, "pt hidden/Relu:0 -n 1")
    assert one.lines[0].endswith("(dump #1)\":")
    assert "exceeds the number of available dumps (2)" in run(registry,
                                                              "pt hidden/Relu:0 -n 5").text
    target = tmp_path / "relu.npy"
    saved = run(registry, "pt hidden/Relu:0 -n 1 -w %s" % target)
    assert saved.lines[0].startswith("Saved value to: %s (" % target)
    np.testing.assert_array_equal(np.load(target), dump.get_tensors("hidden/Relu", 0,
                                                                    "DebugIdentity")[1])


def test_ni(registry):
    screen = run(registry, "ni -a -d -t hidden/MatMul")
    text = screen.text
    assert screen.lines[0] == "Node hidden/MatMul" and "bold" in screen.styled(0, "hidden")
    assert "  Op: MatMul" in screen.lines
    assert "  2 input(s) + 0 control input(s):" in screen.lines
    assert "      [Placeholder] x" in screen.lines and "      [Relu] hidden/Relu" in screen.lines
    assert "Node attributes:" in text and "  transpose_a:" in screen.lines
    assert "1 dumped tensor(s):" in screen.lines
    assert any(cmd == "pt hidden/MatMul:0 -n 0" for _, _, cmd in screen.links())
    assert "(Unavailable because no Python graph has been loaded)" in screen.lines
    assert run(registry, "ni ghost").lines == [
        'ERROR: There is no node named "ghost" in the partition graphs']
    control = run(registry, "ni cross_entropy/Neg").text
    assert "0 recipient(s) + 1 control recipient(s):" in control


def test_li_lo_trees(registry):
    screen = run(registry, "li -r -t cross_entropy/Log")
    assert screen.lines[:5] == [
        'Inputs to node "cross_entropy/Log" (Depth limit = 20):',
        "|- (1) [Softmax] Softmax",
        "   |- (2) [MatMul] logits/MatMul",
        "      |- (3) [Relu] hidden/Relu",
        "      |  |- (4) [MatMul] hidden/MatMul"]
    assert "  [Op]: Input node has op type Op." in screen.lines
    shallow = run(registry, "li hidden/MatMul")
    assert shallow.lines[1:5] == ["|- (1) x", "|- (1) W1/read", "   |- ...", ""]
    links = [cmd for _, _, cmd in shallow.links()]
    assert links == ["li -c -r x", "li -c -r W1/read"]
    assert run(registry, "li -r -d 2 Softmax").lines[3] == "   |  |- ..."
    outs = run(registry, "lo -c cross_entropy/Neg")
    assert outs.lines[0].endswith("control recipients included):")
    assert outs.lines[1] == "|- (1) (Ctrl) train"
    assert run(registry, "li x").lines[1] == "  [None]"


def test_eval(registry, mlp_dump_dir):
    screen = run(registry, 'eval "np.sum(`Softmax:0`, axis=1)"')
    assert screen.lines[0] == 'Tensor "from eval of expression \'np.sum(`Softmax:0`, axis=1)\'":'
    assert "Numeric summary:" in screen.lines
    assert "Eval failed due to the value of ghost:0:DebugIdentity being unavailable" in \
        run(registry, "eval `ghost:0`").text
    assert "ZeroDivisionError" in run(registry, "eval 1/0").text


def test_eval_and_pt_all_show_a_large_value_one_page_at_a_time(registry):
    """-a on 9M elements shows one page (the UI stays responsive) with prev/next links."""
    screen = run(registry, 'ev -a "np.arange(9e6).reshape(3000, 3000)"', width=120)
    assert "Page 1 of 1000: [0:3, :]  next" in screen.lines
    assert "..." not in screen.text and screen.text.count("\n") < 1000
    (_, _, next_page), = screen.links()
    assert next_page == 'eval "np.arange(9e6).reshape(3000, 3000)" -a --page 2'
    second = run(registry, next_page, width=120)
    assert "Page 2 of 1000: [3:6, :]  prev  next" in second.lines
    firsts = second.annotations["element_indices"]
    assert firsts[min(firsts)] == [3, 0]
    assert second.lines[min(firsts)].startswith("array([[ 9000.,  9001.,")
    # Without -a the value is summarised, numpy style.
    summary = run(registry, 'ev "np.arange(9e6).reshape(3000, 3000)"')
    assert "..." in summary.text and not any(line.startswith("Page ") for line in summary.lines)
    assert "There is no page 1001" in run(registry, 'ev -a "np.ones((3000, 3000))" '
                                                    "--page 1001").lines[0]
    assert "--page goes with -a" in run(registry, 'ev "np.ones(3)" --page 1').lines[0]
    # A dumped tensor small enough for one page prints whole, as tfdbg's pt -a does.
    whole = run(registry, "pt -a -n 0 hidden/Relu:0 --page 1")
    assert whole.lines[:3] == ['Tensor "hidden/Relu:0:DebugIdentity":', "  dtype: float32",
                               "  shape: (4, 5)"]
    assert run(registry, "pt -a hidden/Relu:0 --page 2").lines[0].startswith(
        "ERROR: There is no page 2: -a shows this value in 1 page(s)")


def test_print_feed_pages_too():
    from lens.dbg import run_screens
    registry = CommandRegistry()
    registry.register("print_feed", run_screens.make_print_feed_handler(
        {"x:0": np.zeros((4, 5000))}), aliases=["pf"], parser=run_screens.print_feed_parser())
    screen = run(registry, "pf x:0 -a --page 2")
    assert "Page 2 of 2: [2:4, :]  prev" in screen.lines
    assert screen.links()[0][2] == "print_feed x:0 -a --page 1"


DEEP = "(" * 5000  # nests deeper than re's parser can recurse
DEEP_SHOWN = '"%s... (5000 characters)": groups nested too deeply' % ("(" * 60)


@pytest.mark.parametrize("command, flag", [
    ("lt -n %s", "--node_name_filter"), ("lt -t %s", "--op_type_filter"),
    ("lt -f has_inf_or_nan -fenn %s", "--filter_exclude_node_names")])
def test_bad_regexes_give_one_clear_error_line(registry, command, flag):
    screen = run(registry, command % DEEP)
    assert screen.lines == ["ERROR: Invalid regular expression for %s: %s" % (flag, DEEP_SHOWN)]
    assert screen.annotations["is_error"] and "red" in screen.styled(0, "ERROR")
    assert run(registry, command % "[").lines == [
        'ERROR: Invalid regular expression for %s: "[": unterminated character set at '
        "position 0" % flag]
    assert "repetition number is too large" in run(registry, command % "a{99999999999}").text


def test_list_profile_regexes_too():
    from lens.dbg.profile import ProfileCommands
    from lens.proto import config_pb2
    metadata = config_pb2.RunMetadata()
    metadata.step_stats.dev_stats.add(device="/job:localhost/replica:0/task:0/device:CPU:0")
    registry = CommandRegistry()
    ProfileCommands(metadata, None).register(registry)
    for flag in ("-d", "-n", "-t", "-f"):
        screen = run(registry, "lp %s %s" % (flag, DEEP))
        assert len(screen.lines) == 1 and screen.lines[0].endswith(DEEP_SHOWN)
    assert run(registry, "lp -n Mat").lines[1].startswith("Device 1 of 1")


def test_help_version_config_and_errors(registry, tmp_path):
    assert run(registry, "foo").lines == ['ERROR: Invalid command prefix "foo"']
    whole = run(registry, "help")
    assert "list_tensors" in whole.lines and "  Aliases: lt" in whole.lines
    one = run(registry, "help pt")
    assert one.lines[0] == "print_tensor" and "-a, --all" in one.text
    assert run(registry, "help a b").lines == ["ERROR: help takes only 0 or 1 input argument."]
    assert run(registry, "version").lines[0].startswith("lens version:")
    assert "  numpy: %s" % np.__version__ in run(registry, "version").lines
    config_path = str(tmp_path / "cfg.json")
    reg = make_registry(registry._handlers["list_tensors"].__self__.dump, config_path=config_path)
    shown = run(reg, "config set graph_recursion_depth 2")
    assert shown.lines[2] == "  graph_recursion_depth: 2"
    assert "bold" in shown.styled(2, ": 2") and "bold" not in shown.styled(3, ": True")
    assert "underline" in shown.styled(2, "graph_recursion_depth")
    assert "Depth limit = 2" in run(reg, "li -r Softmax").lines[0]
    assert os.path.exists(config_path)
    assert "Invalid value" in run(reg, "config set mouse_mode maybe").text
    assert "Unknown config name" in run(reg, "config set nope 1").text
