// Histogram charts shared by the Histograms and Time Series dashboards. Every step is re-binned
// into 30 equal-width bins over the shown steps' range (as TensorBoard draws them); "offset"
// stacks one filled ridge per step, scaled to that step's own maximum, oldest at the back;
// "overlay" draws every step as a line on one plane, older steps lighter.
"use strict";

window.lensHisto = (function () {
  const C = window.lensCharts;
  const BINS = 30;
  const RIDGE_ROWS = 2.5;  // a ridge is this many step-rows tall, so neighbours overlap

  // Spread each bucket's count over the equal-width bins it overlaps (uniform density).
  function rebin(buckets, lo, hi) {
    const counts = new Array(BINS).fill(0);
    const width = (hi - lo) / BINS || 1;
    for (const [left, right, count] of buckets) {
      if (right <= left) {
        const i = Math.min(BINS - 1, Math.max(0, Math.floor((left - lo) / width)));
        counts[i] += count;
        continue;
      }
      for (let i = 0; i < BINS; i++) {
        const a = lo + i * width, b = a + width;
        const overlap = Math.min(b, right) - Math.max(a, left);
        if (overlap > 0) counts[i] += count * overlap / (right - left);
      }
    }
    return counts;
  }

  // rows: [[wall, step, [[left, right, count], ...]], ...] -> the bins of every step.
  function binned(rows) {
    let lo = Infinity, hi = -Infinity;
    for (const [, , buckets] of rows) {
      if (buckets.length) {
        lo = Math.min(lo, buckets[0][0]);
        hi = Math.max(hi, buckets[buckets.length - 1][1]);
      }
    }
    if (!Number.isFinite(lo)) return null;
    if (hi === lo) { lo -= 0.5; hi += 0.5; }
    const width = (hi - lo) / BINS;
    const edges = Array.from({length: BINS + 1}, (_, i) => lo + i * width);
    const centers = edges.slice(0, BINS).map((e) => e + width / 2);
    const steps = rows.map(([wall, step, buckets]) => ({wall, step, counts: rebin(buckets, lo, hi)}));
    return {edges, centers, steps};
  }

  // Where a step's ridge sits on the offset axis: its step, hours since the first step, or its
  // wall time (ms, on a date axis), as TensorBoard's "offset time axis" setting says.
  function position(h, first, axis) {
    if (axis === "relative") return (h.wall - first.wall) / 3600;
    if (axis === "wall") return h.wall * 1000;
    return h.step;
  }

  // Median gap between consecutive ridges: the height unit of a ridge.
  function rowHeight(steps) {
    const gaps = [];
    for (let i = 1; i < steps.length; i++) gaps.push(steps[i].pos - steps[i - 1].pos);
    gaps.sort((a, b) => a - b);
    return gaps.length ? Math.max(1e-9, gaps[Math.floor(gaps.length / 2)]) : 1;
  }

  function traces(rows, color, mode, dark, axis) {
    const b = binned(rows);
    if (!b) return [];
    const {edges, centers, steps} = b;
    for (const h of steps) h.pos = position(h, steps[0], axis || "step");
    const binInfo = (counts) => counts.map((c, i) => [edges[i], edges[i + 1], c]);
    const hover = (step) => "step " + step + "<br>[%{customdata[0]:.4g}, %{customdata[1]:.4g}): " +
      "%{customdata[2]:.4g}<extra></extra>";
    const age = (i) => steps.length > 1 ? 1 - i / (steps.length - 1) : 0;  // 1 oldest, 0 newest
    if (mode === "overlay") {
      return steps.map((h, i) => ({type: "scatter", mode: "lines", x: centers, y: h.counts,
        name: "step " + h.step, meta: {step: h.step, width: i === steps.length - 1 ? 2 : 1},
        customdata: binInfo(h.counts),
        line: {color: C.tint(color, 0.8 * age(i)), width: i === steps.length - 1 ? 2 : 1},
        hovertemplate: hover(h.step)}));
    }
    const unit = rowHeight(steps) * RIDGE_ROWS;
    const background = dark ? [43, 44, 48] : [255, 255, 255];
    return steps.map((h, i) => {
      const peak = Math.max(...h.counts) || 1;
      // y grows downwards (reversed axis): a ridge rises from its step towards older steps.
      const ys = h.counts.map((c) => h.pos - (c / peak) * unit);
      const fill = mix(color, background, 0.35 + 0.5 * age(i));
      return {type: "scatter", mode: "lines", x: [edges[0], ...centers, edges[BINS]],
        y: [h.pos, ...ys, h.pos], fill: "toself", fillcolor: fill, hoveron: "points",
        line: {color: C.tint(color, 0.5 * age(i)), width: 1}, name: "step " + h.step,
        meta: {step: h.step, width: 1}, customdata: [[edges[0], edges[0], 0], ...binInfo(h.counts),
          [edges[BINS], edges[BINS], 0]],
        hovertemplate: hover(h.step)};
    });
  }

  // Colour c ("#rrggbb") mixed towards background [r, g, b] by t in [0, 1].
  function mix(c, background, t) {
    const n = parseInt(c.slice(1), 16);
    const rgb = [n >> 16, (n >> 8) & 255, n & 255];
    return "rgb(" + rgb.map((v, k) => Math.round(v + (background[k] - v) * t)).join(",") + ")";
  }

  function layout(mode, extra, axis) {
    const offset = {step: {title: {text: "step"}}, relative: {title: {text: "relative (hours)"}},
      wall: {title: {text: "wall time"}, type: "date"}}[axis || "step"];
    return C.baseLayout(Object.assign({hovermode: "closest", uirevision: mode + (axis || ""),
      xaxis: {title: {text: "value"}},
      yaxis: mode === "offset" ? Object.assign({autorange: "reversed"}, offset)
        : {title: {text: "count"}}}, extra || {}));
  }

  // Timeseries route bins ({min, max, count}) -> the histograms route's [left, right, count].
  function fromTimeSeries(points) {
    return points.map((p) => [p.wallTime, p.step, p.bins.map((b) => [b.min, b.max, b.count])]);
  }

  // Step-linked hover: hovering a step in one histogram outlines that step in every other
  // histogram on screen (the others are restyled only; the hovered chart keeps its hover).
  const linked = new Set();
  let current = null;
  function link(plot) {
    if (linked.has(plot) || !plot.on) return;
    linked.add(plot);
    plot.on("plotly_hover", (ev) => {
      const p = ev.points && ev.points[0];
      highlight(plot, p && p.data.meta ? p.data.meta.step : null);
    });
    plot.on("plotly_unhover", () => highlight(plot, null));
  }
  function onScreen(el) {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight && r.width > 0;
  }
  function highlight(source, step) {
    if (step === current) return;
    current = step;
    for (const el of [...linked]) {
      if (!el.isConnected) { linked.delete(el); continue; }
      if (el === source || !el.data || !onScreen(el)) continue;
      const widths = el.data.map((t) => (t.meta && t.meta.step === step ? 3 :
        (t.meta && t.meta.width) || 1));
      window.Plotly.restyle(el, {"line.width": widths});
    }
  }

  return {BINS, rebin, binned, traces, layout, fromTimeSeries, link};
})();
