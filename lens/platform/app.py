"""tf.app.run: parse the flags (unknown ones are left in argv) and call main(argv), then exit with its result."""
import sys as _sys

from absl.app import run as _absl_run

from lens.platform import flags

__all__ = ["run", "flags"]


def _parse_known_flags(argv):
    """Parse the defined flags out of argv; unknown flags stay in the argv given to main (TF1's tolerance)."""
    return flags.FLAGS(_sys.argv if argv is None else argv, known_only=True)


def run(main=None, argv=None):
    """Run main(argv) (default: the __main__ module's main) after parsing flags; exits with main's return value."""
    main = main or _sys.modules["__main__"].main
    _absl_run(main=main, argv=argv, flags_parser=_parse_known_flags)
