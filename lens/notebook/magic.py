"""`%load_ext lens` and the `%lens` line magic (TensorBoard's `%tensorboard`, for lens)."""

import argparse
import shlex

from lens.notebook import boards, ipy


class MagicUsageError(ValueError):
    """Bad `%lens` arguments (shown to the user as one message)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise MagicUsageError(f"%lens: {message}. Usage: %lens --logdir DIR [--port N] "
                              f"[--height PIXELS] [--reload_interval SECONDS]")


def _parser():
    p = _Parser(prog="%lens", add_help=False)
    p.add_argument("--logdir")
    p.add_argument("--port", type=int)
    p.add_argument("--height", type=int, default=boards.DEFAULT_HEIGHT)
    p.add_argument("--reload_interval", type=float, default=5.0)
    return p


def parse(line):
    """The magic's line -> argparse namespace (MagicUsageError on bad input)."""
    try:
        argv = shlex.split(line)
    except ValueError as err:
        raise MagicUsageError(f"%lens: cannot parse {line!r}: {err}") from None
    args = _parser().parse_args(argv)
    if args.height <= 0:
        raise MagicUsageError(f"%lens: --height must be > 0 pixels, got {args.height}")
    return args


def lens_magic(line):
    """`%lens --logdir DIR [--port N]` shows a board inline; `%lens` lists this kernel's boards."""
    try:
        args = parse(line)
    except MagicUsageError as err:
        print(err)
        return
    if args.logdir is None:
        print(boards.list_text())
        return
    try:
        board = boards.start(args.logdir, port=args.port, reload_interval=args.reload_interval)
    except (OSError, ValueError) as err:  # a taken port, a bad logdir: one line, no traceback
        reason = err.strerror if isinstance(err, OSError) and err.strerror else err
        print(f"%lens: could not start a board: {reason}")
        return
    print(f"lens board for {board.logdir} on {board.url}")
    ipy.display(ipy.Html(boards.frame_html(board.port, args.height), f"lens board on {board.url}"))


def load_ipython_extension(ipython):
    """Register `%lens` (called by `%load_ext lens`)."""
    ipython.register_magic_function(lens_magic, magic_kind="line", magic_name="lens")
