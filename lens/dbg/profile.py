"""Profiler mode (`run -p`): `list_profile` / `lp` over RunMetadata.step_stats."""

from lens.framework.sources import user_frames
from lens.dbg.command_parser import ArgumentParser
from lens.dbg.patterns import compile_regex
from lens.dbg.screen import Screen, error_screen

_SORT = {"node": lambda r: r["node"], "op_type": lambda r: r["op_type"],
         "start_time": lambda r: r["start"], "op_time": lambda r: r["op_time"],
         "exec_time": lambda r: r["exec_time"], "line": lambda r: r["where"]}
_UNITS = {"us": 1.0, "ms": 1e-3, "s": 1e-6}


def _lp_parser():
    p = ArgumentParser("list_profile", "List the profile of the last run, per device.")
    p.add_argument("-d", "--device_name_filter", default="", help="Device-name regex.")
    p.add_argument("-n", "--node_name_filter", default="", help="Node-name regex.")
    p.add_argument("-t", "--op_type_filter", default="", help="Op-type regex.")
    p.add_argument("-f", "--file_path_filter", default="", help="Regex on source file paths.")
    p.add_argument("-s", "--sort_by", default="start_time", choices=sorted(_SORT),
                   help="Sort key.")
    p.add_argument("-r", "--reverse", action="store_true", help="Descending order.")
    p.add_argument("--time_unit", default="us", choices=sorted(_UNITS), help="Time unit.")
    return p


class ProfileCommands:
    """`lp` over one run's step stats; op types and sources come from the Python graph."""

    def __init__(self, run_metadata, graph):
        self.run_metadata = run_metadata
        self.graph = graph

    def register(self, registry):
        """Add list_profile / lp."""
        registry.register("list_profile", self.list_profile, aliases=["lp"],
                          parser=_lp_parser())

    def _op_info(self, name):
        try:
            op = self.graph.get_operation_by_name(name)
        except (KeyError, ValueError):
            return "?", ""
        user = user_frames(op.traceback)
        frame = (user or op.traceback or [("", 0, "", "")])[-1]
        return op.type, "%s:%d(%s)" % (frame[0], frame[1], frame[2]) if frame[0] else ""

    def list_profile(self, args, ctx=None):
        """Rows of node, op type, start, op time, exec time and creating source line."""
        stats = self.run_metadata.step_stats.dev_stats
        if not stats:
            return error_screen("ERROR: This run produced no step stats to profile.")
        regexes = {k: compile_regex(getattr(args, k), "--" + k) for k in
                   ("device_name_filter", "node_name_filter", "op_type_filter",
                    "file_path_filter") if getattr(args, k)}
        scale = _UNITS[args.time_unit]
        screen = Screen()
        devices = [d for d in stats if "device_name_filter" not in regexes
                   or regexes["device_name_filter"].search(d.device)]
        for index, dev in enumerate(devices):
            rows = []
            t0 = min((n.all_start_micros for n in dev.node_stats), default=0)
            for node in dev.node_stats:
                op_type, where = self._op_info(node.node_name)
                row = {"node": node.node_name, "op_type": op_type, "where": where,
                       "start": node.all_start_micros - t0,
                       "op_time": node.op_end_rel_micros - node.op_start_rel_micros,
                       "exec_time": node.all_end_rel_micros}
                checks = (("node_name_filter", row["node"]), ("op_type_filter", op_type),
                          ("file_path_filter", where))
                if all(k not in regexes or regexes[k].search(v) for k, v in checks):
                    rows.append(row)
            rows.sort(key=_SORT[args.sort_by], reverse=args.reverse)
            screen.add("-" * 60)
            screen.add("Device %d of %d: %s" % (index + 1, len(devices), dev.device))
            screen.add("")
            unit = args.time_unit
            width = max([len(r["node"]) for r in rows] + [4]) + 2
            screen.add("%s%-12s%16s%16s%16s  %s" % (
                "Node".ljust(width), "Op Type", "Start Time (%s)" % unit,
                "Op Time (%s)" % unit, "Exec Time (%s)" % unit,
                "Filename:Lineno(function)"), "bold")
            for r in rows:
                screen.add("%s%-12s%16.3f%16.3f%16.3f  %s" % (
                    r["node"].ljust(width), r["op_type"], r["start"] * scale,
                    r["op_time"] * scale, r["exec_time"] * scale, r["where"]))
            screen.add("")
            screen.add("%sDevice Total%32.3f%16.3f" % (" " * width, sum(
                r["op_time"] for r in rows) * scale, sum(r["exec_time"] for r in rows) * scale))
        return screen
