"""The offline analyzer's entry point: `lens dbg --dump_dir DIR` / `python -m lens.dbg.cli --dump_dir DIR`.

Nothing in lens imports this module back: the UIs live in fullscreen.py and readline_ui.py.
"""
import sys

from lens.dbg.fullscreen import launch
from lens.dbg.offline import offline_main


def main(argv=None):
    """Parse the flags, load the dump directory and run the debugger UI; the exit code."""
    return offline_main(argv, launch)


if __name__ == "__main__":
    sys.exit(main())
