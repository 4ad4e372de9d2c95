"""Source annotation commands: print_source (ps) and list_source (ls)."""

import collections
import math
import os

from lens.framework.sources import is_lens_file
from lens.dbg.command_parser import ArgumentParser
from lens.dbg.patterns import compile_regex
from lens.dbg.screen import Screen, error_screen


def _ps_parser():
    p = ArgumentParser("print_source", "Print a Python source file with the ops it created.")
    p.add_argument("source_file_path", help="Path to the source file.")
    p.add_argument("-t", "--tensors", action="store_true",
                   help="Label lines with dumped tensors instead of ops.")
    p.add_argument("-m", "--max_elements_per_line", type=int, default=10,
                   help="Maximum number of op/tensor names shown per line.")
    p.add_argument("-b", "--line_begin", type=int, default=1,
                   help="Scroll so this line (1-based) is at the top.")
    return p


def _ls_parser():
    p = ArgumentParser("list_source", "List source files that created nodes in this run.")
    p.add_argument("-p", "--path_filter", default="", help="Regex on source file paths.")
    p.add_argument("-n", "--node_name_filter", default="", help="Regex on node names.")
    return p


class SourceCommands:
    """ps / ls handlers; mixed into DebugAnalyzer (needs self.dump)."""

    def register_source_commands(self, registry):
        """Register print_source and list_source."""
        registry.register("print_source", self.print_source, aliases=["ps"],
                          parser=_ps_parser())
        registry.register("list_source", self.list_source, aliases=["ls"],
                          parser=_ls_parser())

    def _ops_by_file_line(self):
        """{file: {line: set(op names)}} from the Python graph's op tracebacks."""
        graph = self.dump.python_graph
        table = collections.defaultdict(lambda: collections.defaultdict(set))
        dumped = set(self.dump.nodes()) if self.dump.loaded_partition_graphs() else None
        for op in graph.get_operations():
            if dumped is not None and op.name not in dumped:
                continue
            for path, line, _, _ in op.traceback:
                table[path][line].add(op.name)
        return table

    def print_source(self, args, ctx=None):
        """`ps <file> [-t] [-m N] [-b L]`."""
        if self.dump.python_graph is None:
            return error_screen("ERROR: print_source needs the Python graph, which is not "
                                "loaded for this dump (e.g. in the offline analyzer)")
        path = os.path.expanduser(args.source_file_path)
        table = self._ops_by_file_line()
        match = path if path in table else next(
            (p for p in table if os.path.abspath(p) == os.path.abspath(path)), path)
        try:
            with open(match) as f:
                lines = f.read().split("\n")
        except OSError as exc:
            return error_screen("ERROR: Cannot read source file %s: %s" % (path, exc))
        per_line = table.get(match, {})
        dumped = collections.defaultdict(list)
        for datum in self.dump.dumped_tensor_data:
            if datum.tensor_name not in dumped[datum.node_name]:
                dumped[datum.node_name].append(datum.tensor_name)
        width = int(math.ceil(math.log10(max(len(lines), 1)))) + 3
        screen = Screen()
        screen.add("Source file: %s" % match, "bold")
        screen.add("")
        scroll_to = 2
        for number, text in enumerate(lines, 1):
            if number == args.line_begin:
                scroll_to = len(screen.lines)
            screen.add_parts([(("L%d" % number).ljust(width), "yellow"), (" " + text, None)])
            names = sorted(per_line.get(number, ()))
            if args.tensors:
                names = sorted(t for n in names for t in dumped.get(n, ()))
            self._annotate(screen, names, dumped, args)
        screen.annotations["scroll_to"] = scroll_to
        return screen

    def _annotate(self, screen, names, dumped, args):
        limit = args.max_elements_per_line
        for name in names[:limit]:
            has_dump = name in dumped or ":" in name
            if has_dump:
                screen.add_parts([("    ", None), (name, "underline", "pt %s" % name)])
            else:
                screen.add_parts([("    ", None), (name, "blue")])
        if len(names) > limit:
            screen.add_parts([("    (... Omitted %d of %d %s(s) ...) " % (
                len(names) - limit, len(names), "tensor" if args.tensors else "op"), None),
                ("+5", "underline", "ps %s -m %d%s" % (
                    args.source_file_path, limit + 5, " -t" if args.tensors else ""))])

    def list_source(self, args, ctx=None):
        """`ls [-p PATH_REGEX] [-n NODE_REGEX]`: files that created nodes, with counts."""
        if self.dump.python_graph is None:
            return error_screen("ERROR: list_source needs the Python graph, which is not "
                                "loaded for this dump (e.g. in the offline analyzer)")
        path_re = compile_regex(args.path_filter, "--path_filter") if args.path_filter else None
        node_re = compile_regex(args.node_name_filter, "--node_name_filter") \
            if args.node_name_filter else None
        screen = Screen()
        screen.add("List of source files that created nodes in this run", "bold")
        if args.path_filter:
            screen.add("File path regex filter: \"%s\"" % args.path_filter)
        if args.node_name_filter:
            screen.add("Node name regex filter: \"%s\"" % args.node_name_filter)
        screen.add("")
        dumps_per_node = collections.Counter(d.node_name for d in self.dump.dumped_tensor_data)
        tensors_per_node = collections.defaultdict(set)
        for datum in self.dump.dumped_tensor_data:
            tensors_per_node[datum.node_name].add(datum.tensor_name)
        stats = {}
        for path, lines in self._ops_by_file_line().items():
            if path_re and not path_re.search(path):
                continue
            nodes = {n for names in lines.values() for n in names
                     if not node_re or node_re.match(n)}
            if nodes:
                first = min(line for line, names in lines.items() if names & nodes)
                stats[path] = (len(nodes), sum(len(tensors_per_node[n]) for n in nodes),
                               sum(dumps_per_node[n] for n in nodes), first)
        if not stats:
            return screen.add("[No source file information.]")
        for title, library in (("File(s) outside lens library:", False),
                               ("lens library file(s):", True)):
            rows = sorted(p for p in stats if is_lens_file(p) == library)
            screen.add(title, "gray" if library else None)
            self._source_table(screen, rows, stats, library)
            screen.add("")
        return screen

    @staticmethod
    def _source_table(screen, rows, stats, library):
        if not rows:
            screen.add("[No files.]")
            return
        width = max(len(p) for p in rows + ["Source file path"]) + 2
        screen.add("Source file path".ljust(width) + "#(nodes)  #(tensors)  #(tensor dumps)",
                   "bold")
        for path in rows:
            nodes, tensors, dumps, first = stats[path]
            style = "gray" if library else None
            command = "ps %s -b %d" % (path, first) if path.endswith(".py") else None
            screen.add_parts([(path, style or ("underline" if command else None), command),
                              (" " * (width - len(path)), None),
                              ("%-10d%-12d%d" % (nodes, tensors, dumps), style)])
