"""The `run -f` hot path: one small closure per run standing in for Watch.on_output.

A filtered run calls the watch once per output of every op (~150 times for an MLP step), so
each call must cost a few hundred nanoseconds on top of the tensor check itself. Everything
that depends only on the op (its OpInfo, which slots the dtype regex watches, whether the
op is exempt from the filter, whether it updates variables in place, whether its outputs can
be variable buffers) is computed once per graph and filter setup and kept from run to run;
the closure does one dict lookup, a few flag tests and an append per call. Timestamps are
made strictly increasing only when the held values are read (FilterSink.finish), not per call.

Variable buffers (read-only arrays) are held by reference and copied only when the engine
announces, through before_update, an op about to overwrite them: in a training step that is
one copy per variable, made just before its update, and none of the updated values.
"""

import numpy as np

from lens.dbg.filters import nonfinite

# Per-slot codes (bit flags; None = slot not watched).
HOLD = 0  # keep the value only (exempt node)
CHECK = 1  # run the filter on it
MAYBE_VAR = 2  # a read-only array here may be a variable buffer: copied before an update


def _slot_code(watch, tensor, allowed, const):
    if not watch._dtype_ok(tensor):
        return None
    return (HOLD if allowed else CHECK) | (0 if const else MAYBE_VAR)


def _whole_view_of(value, vid):
    """id of the array whose memory `value` views entirely (a reshape: the same numbers, so
    the same verdict), else `vid`."""
    base = value.base
    if type(base) is np.ndarray and base.nbytes == value.nbytes and base.dtype == value.dtype \
            and base.flags.c_contiguous and (value.flags.c_contiguous or value.flags.f_contiguous):
        return id(base)  # contiguous views of all of a contiguous block hold all its elements
    return vid


def _entry(sink, watch, op):
    """(OpInfo, mutates, per-slot codes) of one op for this sink's filter setup."""
    info = watch._info(op)
    allowed = bool(sink.is_allowed(info.name))
    # A Const's value is a frozen array of its own that no update can touch.
    const = info.type == "Const"
    return info, info.mutates, tuple(_slot_code(watch, t, allowed, const)
                                     for t in op.outputs)


def make_filter_hook(sink, watch):
    """(on_output(op, slot, value, ts), before_update(*buffers)) holding values in `sink` and
    testing the builtin has_inf_or_nan filter (a custom filter gets the same holding, then
    its own call)."""
    # Per-op entries only depend on the graph, the dtype regex and the exemptions: cached
    # in the sink's pool (kept by the wrapper from run to run) under that key. Without an
    # allow key the exemptions may change between runs, so the entries live for one run.
    key = ("entries", watch._dtype_key, sink._allow_key)
    entries = sink._pool.setdefault(key, {}) if sink._allow_key is not None else {}
    held = sink._held
    append = held.append
    trips = sink._trip_idx
    verdicts = sink._verdicts
    snaps = sink._snaps
    builtin = sink._builtin
    check_custom = sink._check_custom
    ndarray = np.ndarray
    pending = sink._pending

    def on_output(op, slot, value, ts):
        entry = entries.get(op)
        if entry is None:
            entry = entries[op] = _entry(sink, watch, op)
        info, mutates, codes = entry
        code = codes[slot]
        if code is None:
            return
        if mutates:
            snaps.clear()  # buffers may have changed: later reads need new copies
        if type(value) is ndarray:
            # Variable buffers (and views of them) are read-only arrays whose memory is not
            # owned by a writeable array; kernel results and folded values are not.
            if code & MAYBE_VAR and not value.flags.writeable:
                base = value.base
                if base is None:
                    pending.setdefault(id(value), []).append(len(held))
                elif not base.flags.writeable:
                    pending.setdefault(id(base), []).append(len(held))
            if code & CHECK:
                if builtin:
                    if value.dtype.kind in "fc":
                        vid = id(value)
                        verdict = verdicts.get(vid)  # identity chains pass one array on
                        if verdict is None:
                            vid = _whole_view_of(value, vid)
                            verdict = verdicts.get(vid)
                            if verdict is None:
                                verdict = verdicts[vid] = nonfinite(value)
                        if verdict:
                            trips.append(len(held))
                elif check_custom(info, slot, value, ts):
                    trips.append(len(held))
        elif code & CHECK and (check_custom(info, slot, value, ts) if not builtin
                               else nonfinite(value)):
            trips.append(len(held))
        append((info, slot, "DebugIdentity", value, ts))

    return on_output, sink.copy_pending
