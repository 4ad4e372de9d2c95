"""The `lens` console script: `lens board ...` serves the web board, `lens dbg ...` opens the
debugger on a dump directory; `lens --help` lists the commands, `lens --version` the version."""
import sys

# (command, one line of help); `lens <command> --help` shows the command's own options.
COMMANDS = (
    ("board", "serve the web board for a logdir (default: the bundled sample logs)"),
    ("dbg", "open the terminal debugger on a tfdbg dump directory (--dump_dir DIR)"),
    ("export", "write a logdir's scalars as one CSV, Parquet or JSON table"),
)


def usage():
    """The top-level help text: one line per command."""
    width = max(len(name) for name, _ in COMMANDS)
    lines = ["usage: lens [--version] [--help] <command> [options]", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {text}" for name, text in COMMANDS]
    lines += ["", "`lens <command> --help` shows a command's options."]
    return "\n".join(lines) + "\n"


USAGE = usage()


def version():
    """The installed lens version ('unknown' when run from a tree that was never installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("lens")
    except PackageNotFoundError:
        return "unknown"


def main(argv=None):
    """Dispatch to the board or the debugger."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, end="")
        return 0
    if argv[0] in ("-V", "--version", "version"):
        print(f"lens {version()}")
        return 0
    command, rest = argv[0], argv[1:]
    if command == "board":
        from lens.board.cli import main as board_main
        return board_main(rest)
    if command == "dbg":
        from lens.dbg.cli import main as dbg_main
        return dbg_main(rest)
    if command == "export":
        from lens.events.export import main as export_main
        return export_main(rest)
    print("lens: unknown command %r\n\n%s" % (command, USAGE), file=sys.stderr, end="")
    return 2


if __name__ == "__main__":
    sys.exit(main())
