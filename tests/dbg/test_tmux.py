"""Drive the real full-screen debugger in tmux, the way a person would."""

import os
import shutil
import subprocess
import sys
import time
import uuid

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


class Tmux:
    """One detached tmux session running a command."""

    def __init__(self, command, env, width=150, height=45):
        self.name = "lensdbg-%s" % uuid.uuid4().hex[:8]
        subprocess.run(["tmux", "new-session", "-d", "-s", self.name, "-x", str(width),
                        "-y", str(height), command], check=True, env=env)

    def screen(self):
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name],
                              capture_output=True, text=True).stdout

    def wait_for(self, text, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError("%r never appeared; screen was:\n%s" % (text, self.screen()))

    def type(self, line):
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", line], check=True)
        subprocess.run(["tmux", "send-keys", "-t", self.name, "Enter"], check=True)

    def kill(self):
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


@pytest.fixture
def debugger(tmp_path):
    env = dict(os.environ, HOME=str(tmp_path), TERM="xterm-256color",
               PYTHONWARNINGS="ignore")
    status = tmp_path / "status"
    command = "cd %s && %s inf_model.py curses 6; echo EXIT=$? > %s; sleep 60" % (
        HERE, sys.executable, status)
    session = Tmux(command, env)
    yield session, status
    session.kill()


def test_run_till_inf_then_inspect(debugger):
    tmux, status = debugger
    tmux.wait_for("run-start: run #1: 2 fetches; 1 feed (x:0)")
    tmux.wait_for("tfdbg>")
    tmux.type("run -f has_inf_or_nan")
    shown = tmux.wait_for('dumped tensor(s) passing filter "has_inf_or_nan":')
    assert "run-end: run #4" in shown
    rows = shown.split("Tensor name", 1)[1].strip().split("\n")
    assert rows[0].split()[-1] == "cross_entropy/Log:0"  # the culprit first

    tmux.type("pt cross_entropy/Log:0")
    shown = tmux.wait_for('Tensor "cross_entropy/Log:0:DebugIdentity":')
    assert "-inf" in shown

    tmux.type("ni -t cross_entropy/Log")
    shown = tmux.wait_for("Traceback of node construction:")
    assert "Node cross_entropy/Log" in shown and "  Op: Log" in shown

    tmux.type("li -r cross_entropy/Log")
    shown = tmux.wait_for('Inputs to node "cross_entropy/Log" (Depth limit = 20):')
    assert "|- (1) add" in shown

    tmux.type("lt -n cross.*")
    shown = tmux.wait_for('Node name regex filter: "cross.*"')
    assert "cross_entropy/Mean:0" in shown and "W/read:0" not in shown

    tmux.type("bogus")
    tmux.wait_for('ERROR: Invalid command prefix "bogus"')

    tmux.type("exit")
    deadline = time.monotonic() + 20
    while not status.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert status.read_text().strip() == "EXIT=1"
    lines = tmux.screen().split("\n")
    assert "step 4 loss" not in "\n".join(lines)
    # Back on the shell's screen: the status lines and the program's prints are whole lines.
    assert "run -f has_inf_or_nan: filter passed at run #4 (3 tensor(s))" in lines
    steps = [line for line in lines if "step " in line and " loss " in line]
    assert [line.split()[:2] for line in steps] == [["step", "1"], ["step", "2"], ["step", "3"]]
