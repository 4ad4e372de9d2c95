"""The HParams table as a file: CSV, JSON or a LaTeX table (TensorBoard's download_data)."""

import csv
import io
import math

from lens.board.hparams_data import HParamsError


def _cell(value):
    kind = value.WhichOneof("kind")
    return getattr(value, kind) if kind in ("number_value", "string_value", "bool_value") else ""


def _latex(value):
    if value is None:
        return "-"
    if isinstance(value, int):  # booleans too, as TensorBoard writes them ($1$, $0$)
        return "$%d$" % value
    if isinstance(value, float):
        if math.isnan(value):
            return r"$\mathrm{NaN}$"
        if math.isinf(value):
            return r"$%s\infty$" % ("-" if value < 0 else "+")
        text = "%.3g" % value
        if "e" in text:
            mantissa, exponent = text.split("e")
            return "$%s\\cdot 10^{%d}$" % (mantissa, int(exponent))
        return "$%s$" % text
    return str(value).replace("_", "\\_").replace("%", "\\%")


def table(experiment, response, visibility):
    """(header, rows): one column per hparam then per metric, hidden columns dropped."""
    header = [h.display_name or h.name for h in experiment.hparam_infos] + \
        [m.display_name or m.name.tag for m in experiment.metric_infos]

    def visible(row):
        if visibility is None:
            return row
        return [value for value, shown in zip(row, visibility) if shown]

    rows = []
    for group in response.session_groups:
        row = [_cell(group.hparams[h.name]) if h.name in group.hparams else ""
               for h in experiment.hparam_infos]
        values = {(mv.name.group, mv.name.tag): mv.value for mv in group.metric_values}
        row += [values.get((m.name.group, m.name.tag)) for m in experiment.metric_infos]
        rows.append(visible(row))
    return visible(header), rows


def export(experiment, response, fmt, visibility):
    """(body, mimetype) for format 'csv', 'json' or 'latex'."""
    header, rows = table(experiment, response, visibility)
    if fmt == "json":
        return {"header": header, "rows": rows}, "application/json"
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(rows)
        return out.getvalue(), "text/csv"
    if fmt == "latex":
        lines = ["\\begin{table}[tbp]\n\\begin{tabular}{%s}\n" % ("l" * len(header)),
                 " & ".join(map(_latex, header)) + " \\\\ \\hline\n"]
        lines += [" & ".join(map(_latex, row)) + " \\\\\n" for row in rows]
        lines.append("\\hline\n\\end{tabular}\n\\end{table}\n")
        return "".join(lines), "application/x-latex"
    raise HParamsError("Invalid response format %r: use csv, json or latex" % (fmt,))
