// Scalar charts shared by the Scalars and Time Series dashboards: one smoothed line per run
// (raw line faint behind it), the y range with outliers ignored, and a tooltip table sorted
// as the settings say. A card is {plot, series: Map(run -> {rows}), el}; rows are
// [wall_time, step, value] as the scalars routes send them.
"use strict";

window.lensScalarChart = (function () {
  const C = window.lensCharts;
  const S = window.lensSettings;

  function traces(card, runColor, escapeHtml) {
    const w = S.get("smoothing");
    const axis = S.get("xAxis");
    const out = [];
    for (const [run, s] of card.series) {
      if (!s.rows.length) continue;
      const color = runColor(run);
      const x = C.xValues(s.rows, axis, s.rows[0][0]);
      const y = s.rows.map((r) => C.toNumber(r[2]));
      const smoothed = C.smooth(y, w);
      const type = s.rows.length > 5000 ? "scattergl" : "scatter";
      // A single point draws no line: show it as a dot, as TensorBoard does.
      const mode = s.rows.length === 1 ? "markers" : "lines";
      const name = escapeHtml(run);  // plotly parses some HTML in names
      if (w > 0) {
        out.push({type, mode, x, y, name, hoverinfo: "skip", opacity: 0.25,
          line: {color, width: 1}, meta: {run, raw: true}});
      }
      // hoverinfo "none": plotly reports the hover (our tooltip table) but draws no label.
      out.push({type, mode, x, y: smoothed, name, hoverinfo: "none", marker: {color, size: 6},
        text: s.rows.map((r) => r[1]), line: {color, width: 1.5}, meta: {run}});
    }
    return out;
  }

  // TensorBoard's "ignore outliers": the 5th-95th percentile of the values, padded. Taken
  // over the raw values (the smoothed ones lie within them), so changing the smoothing does
  // not rescale the chart.
  function outlierRange(traceList) {
    const raw = traceList.some((t) => t.meta && t.meta.raw);
    const used = traceList.filter((t) => !raw || (t.meta && t.meta.raw));
    // A typed array sorts numbers natively (several times faster than a compare function).
    const all = new Float64Array(used.reduce((n, t) => n + t.y.length, 0));
    let count = 0;
    for (const t of used) for (const v of t.y) if (Number.isFinite(v)) all[count++] = v;
    if (count < 3) return null;
    const values = all.subarray(0, count).sort();
    const at = (q) => values[Math.round(q * (values.length - 1))];
    let lo = at(0.05), hi = at(0.95);
    if (hi === lo) return null;  // let plotly pad a flat line
    const pad = (hi - lo) * 0.2;
    lo -= pad; hi += pad;
    // Include 0 when that less than doubles the span (TensorBoard's rule).
    if (lo > 0 && hi - 0 < 2 * (hi - lo)) lo = 0;
    if (hi < 0 && 0 - lo < 2 * (hi - lo)) hi = 0;
    return [lo, hi];
  }

  function layout(traceList, logY, extra) {
    const yaxis = {type: logY ? "log" : "linear"};
    if (!logY && S.get("ignoreOutliers")) {
      const range = outlierRange(traceList);
      if (range) { yaxis.range = range; yaxis.autorange = false; }
    }
    const xaxis = Object.assign(C.xAxisLayout(S.get("xAxis")),
      {showspikes: true, spikemode: "across", spikesnap: "cursor", spikethickness: 1,
        spikedash: "solid", spikecolor: "#999"});
    return C.baseLayout(Object.assign({hovermode: "x", hoverdistance: -1, xaxis, yaxis}, extra || {}));
  }

  function formatValue(v) {
    if (!Number.isFinite(v)) return String(v);
    const a = Math.abs(v);
    return a !== 0 && (a < 1e-3 || a >= 1e6) ? v.toExponential(4) : String(Number(v.toPrecision(5)));
  }
  function formatDuration(seconds) {
    const s = Math.max(0, Math.round(seconds));
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    return (h ? h + "h " : "") + (h || m ? m + "m " : "") + r + "s";
  }
  function formatWall(wall) {
    return new Date(wall * 1000).toLocaleString();
  }

  // The rows of the tooltip for a plotly hover event: one per run, sorted per the setting.
  function hoverRows(card, ev) {
    const rows = [];
    for (const p of ev.points) {
      const meta = p.data.meta || {};
      const s = card.series.get(meta.run);
      if (meta.raw || !s) continue;
      const row = s.rows[p.pointIndex];
      if (!row) continue;
      rows.push({run: meta.run, smoothed: p.y, value: C.toNumber(row[2]), step: row[1],
        wall: row[0], relative: row[0] - s.rows[0][0], order: p.curveNumber});
    }
    const sort = S.get("tooltipSort");
    if (sort === "ascending") rows.sort((a, b) => a.smoothed - b.smoothed);
    else if (sort === "descending") rows.sort((a, b) => b.smoothed - a.smoothed);
    else if (sort === "nearest" && ev.yvals && ev.yvals.length) {
      const y = ev.yvals[0];
      rows.sort((a, b) => Math.abs(a.smoothed - y) - Math.abs(b.smoothed - y));
    } else rows.sort((a, b) => a.order - b.order);
    return rows;
  }

  function cell(tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    tr.append(td);
    return td;
  }

  // A floating table following the mouse: Name, Smoothed, Value, Step, Time, Relative.
  function attachTooltip(card, runColor) {
    const box = document.createElement("div");
    box.className = "scalar-tooltip";
    box.hidden = true;
    document.body.append(box);
    card.tooltip = box;
    card.plot.on("plotly_hover", (ev) => {
      const rows = hoverRows(card, ev);
      if (!rows.length) { box.hidden = true; return; }
      const table = document.createElement("table");
      const head = table.createTHead().insertRow();
      for (const h of ["", "Name", "Smoothed", "Value", "Step", "Time", "Relative"]) {
        const th = document.createElement("th");
        th.textContent = h;
        head.append(th);
      }
      const body = table.createTBody();
      for (const r of rows) {
        const tr = body.insertRow();
        tr.dataset.run = r.run;
        const sw = cell(tr, "", "swatch-cell");
        const swatch = document.createElement("span");
        swatch.className = "swatch";
        swatch.style.background = runColor(r.run);
        sw.append(swatch);
        cell(tr, r.run, "tt-run");
        cell(tr, formatValue(r.smoothed), "tt-smoothed");
        cell(tr, formatValue(r.value), "tt-value");
        cell(tr, String(r.step), "tt-step");
        cell(tr, formatWall(r.wall), "tt-wall");
        cell(tr, formatDuration(r.relative), "tt-relative");
      }
      box.replaceChildren(table);
      box.hidden = false;
      const mouse = ev.event || {};
      const x = mouse.clientX || 0, y = mouse.clientY || 0;
      const w = box.offsetWidth, h = box.offsetHeight;
      box.style.left = Math.max(4, x + 16 + w > window.innerWidth ? x - 16 - w : x + 16) + "px";
      box.style.top = Math.max(4, Math.min(window.innerHeight - h - 4, y + 12)) + "px";
    });
    card.plot.on("plotly_unhover", () => { box.hidden = true; });
  }

  function detachTooltip(card) {
    if (card.tooltip) { card.tooltip.remove(); card.tooltip = null; }
  }

  return {traces, layout, outlierRange, attachTooltip, detachTooltip, hoverRows, formatValue,
    formatDuration, formatWall};
})();
