"""The one place the debugger compiles regular expressions given by users."""

import re

_SHOWN_CHARS = 60  # a 5000-character pattern would bury the message


class InvalidRegexError(re.error, ValueError):
    """A pattern `re` cannot compile; still an re.error (as tfdbg raised) and a ValueError."""


def compile_regex(pattern, source=""):
    """re.compile(pattern), with every way it can fail turned into InvalidRegexError.

    `source` names where the pattern came from (a flag, an argument) in the message."""
    try:
        return re.compile(pattern)
    except re.error as exc:
        reason = str(exc)
    except RecursionError:
        # sre's parser recurses once per nested group: thousands of '(' exhaust the stack.
        reason = "groups nested too deeply"
    except OverflowError as exc:  # e.g. a{99999999999}
        reason = str(exc)
    shown = pattern if len(pattern) <= _SHOWN_CHARS else \
        "%s... (%d characters)" % (pattern[:_SHOWN_CHARS], len(pattern))
    where = " for %s" % source if source else ""
    raise InvalidRegexError('Invalid regular expression%s: "%s": %s' % (where, shown, reason))
