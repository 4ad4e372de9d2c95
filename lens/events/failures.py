"""Unexpected errors met while loading a file or a run: counted, the first kept, logged once."""

import logging

log = logging.getLogger("lens.events")


class Failures:
    """What went wrong where lens expected nothing to: a bug or an input lens cannot read."""

    def __init__(self, where):
        self.where = where  # a file path or a run name, prefixed to every message
        self.count = 0  # failures met
        self.skipped = 0  # records or values lost to them (0 when a fallback read everything)
        self.first = None  # message of the first failure
        self._logged = set()

    def note(self, kind, what, exc, skipped=0):
        """Count one failure; log it with its traceback the first time its `kind` is met.

        kind: a fixed label (what failed); what: the message, with offsets, tags or steps."""
        self.count += 1
        self.skipped += skipped
        message = "%s: %s (%s: %s)" % (self.where, what, type(exc).__name__, exc)
        if self.first is None:
            self.first = message
        key = (kind, type(exc).__name__)
        if key not in self._logged:
            # Once per kind: a broken writer can repeat one fault on every record.
            self._logged.add(key)
            log.warning("%s; further errors like it are counted in /data/lens/progress, not "
                        "logged", message, exc_info=(type(exc), exc, exc.__traceback__))
        return message


def merge(failures):
    """{'count', 'skipped', 'first'} summed over Failures, or None when there were none."""
    failures = [f for f in failures if f.count]
    if not failures:
        return None
    return {"count": sum(f.count for f in failures), "skipped": sum(f.skipped for f in failures),
            "first": failures[0].first}
