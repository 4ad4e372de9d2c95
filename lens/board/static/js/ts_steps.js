// Step selection on a Time Series scalar card: click (or drag the line) to pick a step and see
// every run's value there in a table under the chart; in range mode two lines bound a step
// range and the table shows start/end values, change, min, max and mean between them.
"use strict";

window.lensTsSteps = (function () {
  const C = window.lensCharts;
  const SC = window.lensScalarChart;
  const S = window.lensSettings;

  // Every step any run has, sorted (the selection snaps to these).
  function allSteps(card) {
    const steps = new Set();
    for (const s of card.series.values()) for (const r of s.rows) steps.add(r[1]);
    return [...steps].sort((a, b) => a - b);
  }
  function nearest(sorted, step) {
    let best = sorted[0];
    for (const s of sorted) if (Math.abs(s - step) < Math.abs(best - step)) best = s;
    return best;
  }
  // The row of a run closest to a step.
  function rowAt(rows, step) {
    let best = null;
    for (const r of rows) if (!best || Math.abs(r[1] - step) < Math.abs(best[1] - step)) best = r;
    return best;
  }

  // x of a step under the current axis (relative/wall: from the first run holding it).
  function xOfStep(card, step) {
    const axis = S.get("xAxis");
    if (axis === "step") return step;
    for (const s of card.series.values()) {
      if (!s.rows.length) continue;
      const r = rowAt(s.rows, step);
      if (axis === "relative") return (r[0] - s.rows[0][0]) / 3600;
      return new Date(r[0] * 1000);
    }
    return step;
  }
  // The step under an x of the current axis (inverse of xOfStep, snapped to a real step).
  function stepOfX(card, x) {
    const axis = S.get("xAxis");
    if (axis === "step") return nearest(allSteps(card), Number(x));
    let best = null, bestGap = Infinity;
    for (const s of card.series.values()) {
      if (!s.rows.length) continue;
      const xs = C.xValues(s.rows, axis, s.rows[0][0]);
      const target = axis === "wall" ? new Date(x).getTime() : Number(x);
      xs.forEach((v, i) => {
        const gap = Math.abs((axis === "wall" ? v.getTime() : v) - target);
        if (gap < bestGap) { bestGap = gap; best = s.rows[i][1]; }
      });
    }
    return best;
  }

  // Layout shapes for the selection: one line, or two lines and a band between them.
  function shapes(card) {
    const sel = card.selection;
    if (!sel) return [];
    const line = (step, name) => ({type: "line", xref: "x", yref: "paper", y0: 0, y1: 1,
      x0: xOfStep(card, step), x1: xOfStep(card, step), name,
      line: {color: "#f57c00", width: 2}, editable: true});
    if (!card.rangeMode) return [line(sel.start, "step")];
    return [line(sel.start, "start"), line(sel.end, "end"),
      {type: "rect", xref: "x", yref: "paper", y0: 0, y1: 1, x0: xOfStep(card, sel.start),
        x1: xOfStep(card, sel.end), fillcolor: "rgba(245,124,0,0.08)", line: {width: 0},
        layer: "below", editable: false}];
  }

  // A click picked `step`: move the selection (range mode: the nearer end).
  function pick(card, step) {
    if (step === null || step === undefined) return;
    const sel = card.selection;
    if (!card.rangeMode || !sel) card.selection = {start: step, end: step};
    else if (Math.abs(step - sel.start) <= Math.abs(step - sel.end)) sel.start = step;
    else sel.end = step;
    if (card.selection.start > card.selection.end) {
      card.selection = {start: card.selection.end, end: card.selection.start};
    }
    card.draw();
  }

  // plotly_relayout after dragging a line: shapes[i].x0 tells where it was dropped.
  function onRelayout(card, ev) {
    for (const [key, value] of Object.entries(ev)) {
      const m = /^shapes\[(\d)\]\.x0$/.exec(key);
      if (!m || !card.selection) continue;
      const step = stepOfX(card, value);
      if (m[1] === "0") card.selection.start = step; else card.selection.end = step;
      if (!card.rangeMode) card.selection.end = step;
      if (card.selection.start > card.selection.end) {
        card.selection = {start: card.selection.end, end: card.selection.start};
      }
      card.draw();
      return;
    }
  }

  function wire(card) {
    card.plot.on("plotly_click", (ev) => {
      const p = ev.points && ev.points.find((q) => q.data.meta && !q.data.meta.raw);
      if (!p) return;
      const rows = card.series.get(p.data.meta.run).rows;
      pick(card, rows[p.pointIndex] ? rows[p.pointIndex][1] : null);
    });
    card.plot.on("plotly_relayout", (ev) => onRelayout(card, ev));
  }

  function headRow(table, names) {
    const tr = table.createTHead().insertRow();
    for (const n of names) {
      const th = document.createElement("th");
      th.textContent = n;
      tr.append(th);
    }
  }
  function addRow(body, run, color, cells) {
    const tr = body.insertRow();
    tr.dataset.run = run;
    const first = tr.insertCell();
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = color;
    first.append(swatch, document.createTextNode(" " + run));
    first.className = "dt-run";
    for (const [cls, text] of cells) {
      const td = tr.insertCell();
      td.className = cls;
      td.textContent = text;
    }
  }

  // The data table under the chart for the current selection (empty without one).
  function table(card, runColor) {
    const box = card.tableEl;
    box.replaceChildren();
    const sel = card.selection;
    if (!sel) return;
    const t = document.createElement("table");
    t.className = "ts-data-table";
    const body = t.createTBody();
    const w = S.get("smoothing");
    const F = SC.formatValue;
    if (!card.rangeMode) {
      headRow(t, ["Run", "Smoothed", "Value", "Step", "Relative", "Wall time"]);
      for (const [run, s] of card.series) {
        if (!s.rows.length) continue;
        const values = s.rows.map((r) => C.toNumber(r[2]));
        const smoothed = C.smooth(values, w);
        const r = rowAt(s.rows, sel.start);
        const i = s.rows.indexOf(r);
        addRow(body, run, runColor(run), [["dt-smoothed", F(smoothed[i])], ["dt-value", F(values[i])],
          ["dt-step", String(r[1])], ["dt-relative", SC.formatDuration(r[0] - s.rows[0][0])],
          ["dt-wall", SC.formatWall(r[0])]]);
      }
    } else {
      headRow(t, ["Run", "Start step", "Start value", "End step", "End value", "Change",
        "Min", "Max", "Mean"]);
      for (const [run, s] of card.series) {
        const inside = s.rows.filter((r) => r[1] >= sel.start && r[1] <= sel.end);
        const values = inside.map((r) => C.toNumber(r[2])).filter(Number.isFinite);
        if (!inside.length || !values.length) continue;
        const first = inside[0], last = inside[inside.length - 1];
        const a = C.toNumber(first[2]), b = C.toNumber(last[2]);
        const mean = values.reduce((x, y) => x + y, 0) / values.length;
        addRow(body, run, runColor(run), [["dt-start-step", String(first[1])], ["dt-start", F(a)],
          ["dt-end-step", String(last[1])], ["dt-end", F(b)], ["dt-change", F(b - a)],
          ["dt-min", F(Math.min(...values))], ["dt-max", F(Math.max(...values))],
          ["dt-mean", F(mean)]]);
      }
    }
    box.append(t);
  }

  // Turning range mode on widens a single step to the whole span; off keeps its start.
  function setRangeMode(card, on) {
    card.rangeMode = on;
    const steps = allSteps(card);
    if (on && steps.length) {
      const sel = card.selection;
      card.selection = sel && sel.start !== steps[0] ? {start: steps[0], end: sel.start}
        : {start: steps[0], end: steps[steps.length - 1]};
    } else if (card.selection) {
      card.selection = {start: card.selection.start, end: card.selection.start};
    }
    card.draw();
  }

  return {shapes, wire, table, pick, setRangeMode, allSteps, stepOfX, xOfStep};
})();
