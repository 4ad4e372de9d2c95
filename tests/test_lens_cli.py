"""The `lens` console script: --version, and --help listing every subcommand on one line."""

import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from lens import cli

LENS = Path(sys.executable).with_name("lens")


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out == f"lens {version('lens')}\n"
    # The installed console script answers the same.
    out = subprocess.run([str(LENS), "--version"], capture_output=True, text=True, check=True)
    assert out.stdout == f"lens {version('lens')}\n"


def test_help_lists_each_subcommand_on_one_line(capsys):
    assert cli.main(["--help"]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    for name, _ in cli.COMMANDS:
        rows = [line for line in lines if line.split()[:1] == [name]]
        assert len(rows) == 1, (name, text)
        assert len(rows[0]) <= 80
    assert {name for name, _ in cli.COMMANDS} == {"board", "dbg", "export"}
    assert cli.main([]) == 0 and capsys.readouterr().out == text


def test_unknown_command_fails_with_the_usage(capsys):
    assert cli.main(["bored"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'bored'" in err and "commands:" in err
