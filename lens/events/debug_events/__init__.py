"""Reading tfdbg v2 DebugEvent dumps (Debugger V2's data) for the board."""

from lens.events.debug_events.runs import DEFAULT_RUN, DebuggerRuns, RequestError

__all__ = ["DEFAULT_RUN", "DebuggerRuns", "RequestError"]
