"""Run-end analyzer commands over a DebugDumpDir: lt, pt, eval (+ registration of the rest)."""

import os
import re

import numpy as np

from lens.dbg import tensor_format
from lens.dbg.analyzer_graph import GraphCommands
from lens.dbg.analyzer_source import SourceCommands
from lens.dbg.command_parser import ArgumentParser
from lens.dbg.debug_graphs import parse_node_or_tensor_name
from lens.dbg.filters import InconvertibleTensorProto
from lens.dbg.patterns import compile_regex
from lens.dbg.screen import Screen, error_screen

SORT_KEYS = ("timestamp", "dump_size", "op_type", "tensor_name")
_BACKTICK_RE = re.compile(r"`([^`]+)`")


def human_size(nbytes):
    """tfdbg's size column: plain bytes below 1k, else %.2fk / M / G (no 'B')."""
    if nbytes is None:
        return "?"
    if nbytes < 1024:
        return str(nbytes)
    for unit, scale in (("k", 1024), ("M", 1024 ** 2), ("G", 1024 ** 3)):
        if nbytes < scale * 1024 or unit == "G":
            return "%.2f%s" % (nbytes / scale, unit)


def _lt_parser():
    p = ArgumentParser("list_tensors", "List tensors dumped during debugged Session.run() "
                       "call.")
    p.add_argument("-f", "--tensor_filter", default="",
                   help="List only tensors passing the registered filter of this name.")
    p.add_argument("-fenn", "--filter_exclude_node_names", default="",
                   help="Regex of node names the filter skips (needs -f).")
    p.add_argument("-n", "--node_name_filter", default="", help="Node-name regex filter.")
    p.add_argument("-t", "--op_type_filter", default="", help="Op-type regex filter.")
    p.add_argument("-s", "--sort_by", default="timestamp", choices=SORT_KEYS,
                   help="Field to sort by: timestamp | dump_size | op_type | tensor_name.")
    p.add_argument("-r", "--reverse", action="store_true", help="Sort in descending order.")
    p.add_argument("--health", action="store_true",
                   help="Add each tensor's health summary (counts and min/max/mean/std).")
    return p


def _pt_parser(prog="print_tensor"):
    p = ArgumentParser(prog, "Print the value of a dumped tensor.\n"
                       "  pt x:0\n  pt x:0[0:2, :]\n  pt -r [-1,1] x:0")
    p.add_argument("tensor_name", help="Tensor name, optionally with numpy slicing.")
    p.add_argument("-n", "--number", type=int, default=-1,
                   help="0-based dump number, required when the tensor has several dumps.")
    p.add_argument("-r", "--ranges", default="",
                   help="Highlight elements inside ranges, e.g. [-0.1,0.1] or "
                        "[[-inf,-0.1],[0.1,inf]].")
    p.add_argument("-a", "--all", dest="print_all", action="store_true",
                   help="Print the whole tensor, without ellipses (paged when large).")
    tensor_format.add_page_flag(p)
    p.add_argument("-s", "--numeric_summary", action="store_true",
                   help="Include a numeric summary of the value.")
    p.add_argument("-w", "--write_path", default="",
                   help="Save the (sliced) value with numpy.save to this .npy path.")
    return p


def _eval_parser():
    p = ArgumentParser("eval", "Evaluate a NumPy expression over dumped tensors, e.g.\n"
                       "  eval \"np.matmul((`output/Identity:0` / `Softmax:0`).T, `Softmax:0`)\"")
    p.add_argument("expression", help="Expression; tensors in backticks.")
    p.add_argument("-a", "--all", dest="print_all", action="store_true",
                   help="Print the result without ellipses (paged when large).")
    tensor_format.add_page_flag(p)
    p.add_argument("-w", "--write_path", default="", help="Save the result as .npy.")
    return p


class DebugAnalyzer(GraphCommands, SourceCommands):
    """Command handlers over one DebugDumpDir; every handler returns a Screen."""

    def __init__(self, dump, filters, config):
        self.dump = dump
        self.filters = filters
        self.config = config

    def register(self, registry):
        """Add lt, pt, ni, li, lo, ps, ls, eval to a CommandRegistry."""
        registry.register("list_tensors", self.list_tensors, aliases=["lt"],
                          parser=_lt_parser())
        registry.register("print_tensor", self.print_tensor, aliases=["pt"],
                          parser=_pt_parser())
        registry.register("eval", self.evaluate, aliases=["ev"], parser=_eval_parser())
        self.register_graph_commands(registry)
        self.register_source_commands(registry)
        tensor_names = lambda: sorted({d.tensor_name for d in self.dump.dumped_tensor_data})
        node_names = lambda: sorted(self.dump.nodes()) if self.dump.loaded_partition_graphs() \
            else sorted(self.dump.nodes_with_dumps())
        for prefix in ("print_tensor", "eval"):
            registry.completers[prefix] = tensor_names
        for prefix in ("node_info", "list_inputs", "list_outputs"):
            registry.completers[prefix] = node_names
        registry.completers["list_tensors"] = lambda: ["-f", "-n", "-t", "-s", "-r",
                                                       "--health"]

    # --- list_tensors -----------------------------------------------------------------
    def _op_type(self, node_name):
        try:
            return self.dump.node_op_type(node_name)
        except (LookupError, ValueError):
            return "?"

    def list_tensors(self, args, ctx=None):
        """`lt`: one row per dump; t (ms), Size (B), Op type, Tensor name."""
        data = list(self.dump.dumped_tensor_data)
        if args.filter_exclude_node_names and not args.tensor_filter:
            return error_screen("ERROR: --filter_exclude_node_names (-fenn) is meaningful "
                                "only with --tensor_filter (-f)")
        name_re = compile_regex(args.node_name_filter, "--node_name_filter") \
            if args.node_name_filter else None
        type_re = compile_regex(args.op_type_filter, "--op_type_filter") \
            if args.op_type_filter else None
        if args.filter_exclude_node_names:
            compile_regex(args.filter_exclude_node_names, "--filter_exclude_node_names")
        if name_re:
            data = [d for d in data if name_re.match(d.node_name)]
        if type_re:
            data = [d for d in data if type_re.match(self._op_type(d.node_name))]
        if args.tensor_filter:
            if args.tensor_filter not in self.filters:
                return error_screen('ERROR: There is no tensor filter named "%s".'
                                    % args.tensor_filter)
            fn = self.filters.get(args.tensor_filter)
            data = [d for d in data
                    if not self.filters.is_allowed(d.node_name, args.filter_exclude_node_names)
                    and self._passes(fn, d)]
        data = self._sort(data, args.sort_by, args.reverse)
        return self._tensor_table(data, args)

    def _passes(self, fn, datum):
        try:
            return bool(fn(datum, datum.get_tensor()))
        except ValueError as exc:  # corrupt file: report it, keep listing the rest
            self.dump._note_error(datum.file_path, str(exc))
            return False

    def _sort(self, data, key, reverse):
        keys = {"timestamp": lambda d: (d.timestamp, d.extended_timestamp),
                "dump_size": lambda d: d.dump_size_bytes or 0,
                "op_type": lambda d: self._op_type(d.node_name),
                "tensor_name": lambda d: d.tensor_name}
        return sorted(data, key=keys[key], reverse=reverse)

    def _tensor_table(self, data, args):
        screen = Screen()
        if args.tensor_filter:
            screen.add('%d dumped tensor(s) passing filter "%s":'
                       % (len(data), args.tensor_filter))
        else:
            screen.add("%d dumped tensor(s):" % len(data))
        if args.node_name_filter:
            screen.add('Node name regex filter: "%s"' % args.node_name_filter)
        if args.op_type_filter:
            screen.add('Op type regex filter: "%s"' % args.op_type_filter)
        for path, message in self.dump.load_errors:
            screen.add("WARNING: skipped %s: %s" % (path, message), "red")
        screen.add("")
        t0 = self.dump.t0 or 0
        rows = [("[%.3f]" % ((d.timestamp - t0) / 1000.0), human_size(d.dump_size_bytes),
                 self._op_type(d.node_name), d.tensor_name, d) for d in data]
        w_t = max([len(r[0]) + 1 for r in rows] + [len("[0.000] ") + 1, 7])
        w_size = max([len(r[1]) + 1 for r in rows] + [9])
        w_op = max([len(r[2]) + 1 for r in rows] + [8])
        w_name = max([len(r[3]) for r in rows] + [len("Tensor name")]) if args.health else 0
        base = self._lt_flags(args)
        headers = [("t (ms)", "timestamp", w_t), ("Size (B)", "dump_size", w_size),
                   ("Op type", "op_type", w_op), ("Tensor name", "tensor_name", w_name)]
        parts = []
        for title, key, width in headers:
            reverse = " -r" if key == args.sort_by and not args.reverse else ""
            command = "lt %s-s %s%s" % (base, key, reverse)
            parts.append((title, "bold", command))
            if width:
                parts.append((" " * (width - len(title)), None))
        if args.health:
            parts.append(("   Health (nan -inf - 0 + +inf | min max mean std)", "bold"))
            # The health column follows the name, so names are padded to line it up.
        screen.add_parts(parts)
        for t_text, size, op_type, name, datum in rows:
            parts = [(t_text.ljust(w_t), None), (size.ljust(w_size), None),
                     (op_type.ljust(w_op), None), (name, "underline", "pt %s" % name)]
            if args.health:
                parts.append((" " * (w_name - len(name)) + "   " + self._health_text(datum),
                              None))
            screen.add_parts(parts)
        screen.annotations["tensor_names"] = [r[3] for r in rows]
        return screen

    @staticmethod
    def _lt_flags(args):
        out = ""
        if args.tensor_filter:
            out += "-f %s " % args.tensor_filter
        if args.node_name_filter:
            out += "-n %s " % args.node_name_filter
        if args.op_type_filter:
            out += "-t %s " % args.op_type_filter
        return out

    @staticmethod
    def _health_text(datum):
        try:
            value = datum.get_tensor()
        except ValueError:
            return "(unreadable)"
        if not isinstance(value, np.ndarray) or value.dtype.kind not in "biuf":
            return "(n/a)"
        counts = tensor_format.health_counts(value)
        text = " ".join(str(counts[k]) for k in ("nan", "-inf", "-", "0", "+", "+inf"))
        finite = value[np.isfinite(value)] if value.dtype.kind == "f" else value
        if finite.size:
            finite = finite.astype(np.float64)
            text += " | %.4g %.4g %.4g %.4g" % (finite.min(), finite.max(), finite.mean(),
                                                finite.std())
        return text

    # --- print_tensor -----------------------------------------------------------------
    def print_tensor(self, args, ctx=None):
        """`pt name[slicing]` with -n, -r, -a, -s, -w."""
        width = ctx.width if ctx else 80
        name, slicing = tensor_format.parse_tensor_name_with_slicing(args.tensor_name)
        if slicing and not tensor_format.validate_slicing(slicing):
            return error_screen("ERROR: Invalid tensor-slicing string %s: use non-negative "
                                "indices, ':' and ','; e.g. [0:2, :]" % slicing)
        node, slot = parse_node_or_tensor_name(name)
        if node not in self.dump.nodes_with_dumps():
            if self.dump.loaded_partition_graphs() and not self.dump.node_exists(node):
                return error_screen('ERROR: Node "%s" does not exist in partition graphs'
                                    % node)
            screen = error_screen('ERROR: Tensor "%s" did not generate any dumps.' % name)
            if self.dump.loaded_partition_graphs() and self.dump.node_exists(node):
                # Beyond tfdbg's message: why a node of the graph can have no dump.
                screen.add("As in tfdbg after Grappler, a debugged run does not dump ops whose "
                           "outputs nothing reads, pass-through identities or shape arithmetic "
                           "folded into constants. Fetch the tensor in the next run to see it.")
            return screen
        if slot is None:
            slots = sorted({d.output_slot for d in self.dump.dumped_tensor_data
                            if d.node_name == node})
            if len(slots) > 1:
                screen = Screen()
                screen.add('Node "%s" generated debug dumps from %d output slots:'
                           % (node, len(slots)))
                screen.add("Please specify the output slot: %s:x." % node)
                return screen
            slot = slots[0]
        tensor_name = "%s:%d" % (node, slot)
        data = [d for d in self.dump.dumped_tensor_data if d.tensor_name == tensor_name]
        if not data:
            return error_screen('ERROR: Tensor "%s" did not generate any dumps.' % tensor_name)
        if len(data) > 1 and args.number < 0:
            return self._dump_choices(tensor_name, data)
        if args.number >= 0:
            if len(data) == 1 and args.number > 0:
                return error_screen("ERROR: Invalid number (%d) for tensor %s, which "
                                    "generated one dump." % (args.number, tensor_name))
            if args.number >= len(data):
                return error_screen("ERROR: Specified number (%d) exceeds the number of "
                                    "available dumps (%d) for tensor %s"
                                    % (args.number, len(data), tensor_name))
        datum = data[max(args.number, 0)]
        label = datum.watch_key + slicing
        if len(data) > 1:
            label += " (dump #%d)" % args.number
        screen = format_value(datum.get_tensor(), label, slicing, args, width,
                              paged_command(args, "print_tensor %s" % args.tensor_name))
        screen.annotations["tensor_name"] = tensor_name
        return screen

    def _dump_choices(self, tensor_name, data):
        screen = Screen()
        screen.add('Tensor "%s" generated %d dumps:' % (tensor_name, len(data)))
        t0 = self.dump.t0 or 0
        for i, datum in enumerate(data):
            screen.add_parts([("#%d [%.3f ms] " % (i, (datum.timestamp - t0) / 1000.0), None),
                              (datum.watch_key, "underline",
                               "print_tensor %s -n %d" % (tensor_name, i))])
        screen.add("")
        screen.add("You can use the -n (--number) flag to specify which dump to print.")
        screen.add("For example:")
        screen.add("  print_tensor %s -n 0" % tensor_name)
        return screen

    # --- eval -------------------------------------------------------------------------
    def evaluate(self, args, ctx=None):
        """`eval "<numpy expression with `tensor:0` references>"`."""
        width = ctx.width if ctx else 80
        env, counter = {"np": np}, [0]

        def substitute(match):
            value = self._resolve_eval_tensor(match.group(1).strip())
            counter[0] += 1
            key = "__lens_tensor_%d" % counter[0]
            env[key] = value
            return key

        try:
            code = _BACKTICK_RE.sub(substitute, args.expression)
        except LookupError as exc:
            return error_screen(str(exc).strip("'\""))
        try:
            value = eval(code, env)  # noqa: S307 - evaluating user expressions is the feature
        except Exception as exc:
            return error_screen("ERROR: eval of %r failed: %s: %s"
                                % (args.expression, type(exc).__name__, exc))
        args.numeric_summary, args.ranges = True, ""
        label = "from eval of expression '%s'" % args.expression
        return format_value(np.asarray(value), label, "", args, width,
                            paged_command(args, 'eval "%s"' % args.expression))

    def _resolve_eval_tensor(self, ref):
        """`node:slot`, `node:slot:DebugOp`, device-prefixed, with optional `[i]` index."""
        index = 0
        match = re.match(r"^(.*)\[(\d+)\]$", ref)
        if match:
            ref, index = match.group(1), int(match.group(2))
        device = None
        if ref.startswith("/job:"):
            device, ref = self._split_device(ref)
        fields = ref.split(":")
        debug_op = "DebugIdentity"
        if len(fields) >= 3 and not fields[-1].isdigit():
            debug_op = fields[-1]
            fields = fields[:-1]
        node, slot = parse_node_or_tensor_name(":".join(fields))
        slot = 0 if slot is None else slot
        data = self.dump.watch_key_to_data("%s:%d:%s" % (node, slot, debug_op), device)
        if len(data) <= index:
            raise LookupError("Eval failed due to the value of %s:%d:%s being unavailable"
                              % (node, slot, debug_op))
        return data[index].get_tensor()

    def _split_device(self, ref):
        for device in sorted({d.device_name for d in self.dump.dumped_tensor_data},
                             key=len, reverse=True):
            if ref.startswith(device + ":"):
                return device, ref[len(device) + 1:]
        raise LookupError("Eval failed: no device prefix of %r has dumps" % ref)


def paged_command(args, head):
    """page -> the command showing that page with the same flags (pt, pf and eval)."""
    flags = " -a"
    if getattr(args, "number", -1) >= 0:
        flags += " -n %d" % args.number
    if getattr(args, "ranges", ""):
        flags += " -r %s" % args.ranges
    if getattr(args, "numeric_summary", False) and not head.startswith("eval"):
        flags += " -s"  # eval always shows the summary
    return lambda page: "%s%s --page %d" % (head, flags, page)


def format_value(value, label, slicing, args, width, page_command=None):
    """Shared by pt, pf and eval: slicing, -w, -r, -a, -s, --page."""
    if isinstance(value, InconvertibleTensorProto):
        screen = Screen()
        screen.add('Tensor "%s":' % label, "bold")
        for line in str(value).split("\n"):
            screen.add(line)
        return screen
    value = np.asarray(value)
    try:
        value = tensor_format.apply_slicing(value, slicing)
        ranges = tensor_format.parse_ranges(args.ranges) \
            if getattr(args, "ranges", "") else None
    except ValueError as exc:
        return error_screen("ERROR: %s" % exc)
    page = getattr(args, "page", None)
    if page is not None:
        pages = tensor_format.page_count(value.shape)
        if not args.print_all:
            return error_screen("ERROR: --page goes with -a (--all), which pages large values")
        if not 1 <= page <= pages:
            return error_screen("ERROR: There is no page %d: -a shows this value in %d "
                                "page(s) of up to %d elements"
                                % (page, pages, tensor_format.PAGE_ELEMENTS))
    screen = tensor_format.format_tensor(
        value, label, width=width, print_all=args.print_all, ranges=ranges,
        ranges_text=getattr(args, "ranges", ""),
        include_numeric_summary=getattr(args, "numeric_summary", False),
        page=page or 1, page_command=page_command)
    if args.write_path:
        path = os.path.expanduser(args.write_path)
        np.save(path, value)
        saved = path if path.endswith(".npy") else path + ".npy"
        head = Screen().add("Saved value to: %s (%dB)" % (saved, os.stat(saved).st_size))
        screen = head.extend(screen)
    return screen
