// Histograms dashboard: a card per tag x run, offset (stacked over steps, newest in front)
// or overlay mode; every step is re-binned into 30 equal bins as TensorBoard draws them.
"use strict";

(function () {
  const C = window.lensCharts;
  const BINS = 30;
  let ctx = null;
  let cardsEl = null;
  let statusEl = null;
  const openGroups = new Set();
  const cards = new Map();  // "run\u0000tag" -> card

  const mode = () => ctx.getState("mode") || "offset";

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

  function histogramTraces(rows, color, drawMode) {
    let lo = Infinity, hi = -Infinity;
    for (const [, , buckets] of rows) {
      if (buckets.length) { lo = Math.min(lo, buckets[0][0]); hi = Math.max(hi, buckets[buckets.length - 1][1]); }
    }
    if (!Number.isFinite(lo)) return [];
    if (hi === lo) { lo -= 0.5; hi += 0.5; }
    const width = (hi - lo) / BINS;
    const centers = Array.from({length: BINS}, (_, i) => lo + (i + 0.5) * width);
    const all = rows.map(([, step, buckets]) => ({step, counts: rebin(buckets, lo, hi)}));
    const peak = Math.max(1e-12, ...all.map((h) => Math.max(...h.counts)));
    const steps = all.map((h) => h.step);
    const span = Math.max(1, Math.max(...steps) - Math.min(...steps));
    // Ridge height: a few step-rows tall, so neighbouring steps overlap like TensorBoard's.
    const height = span / Math.max(2, all.length) * 3;
    return all.map((h, i) => {
      const shade = all.length > 1 ? 0.75 * (1 - i / (all.length - 1)) : 0;
      const lineColor = C.tint(color, shade);
      if (drawMode === "overlay") {
        return {type: "scatter", mode: "lines", x: centers, y: h.counts, name: "step " + h.step,
          line: {color: lineColor, width: 1}, hovertemplate: "step " + h.step + ": %{y:.4g}<extra></extra>"};
      }
      const ys = h.counts.map((c) => h.step - (c / peak) * height);
      return {type: "scatter", mode: "lines", x: [centers[0], ...centers, centers[BINS - 1]],
        y: [h.step, ...ys, h.step], fill: "toself", fillcolor: "rgba(255,255,255,0.85)",
        line: {color: lineColor, width: 1}, name: "step " + h.step,
        customdata: [0, ...h.counts, 0],
        hovertemplate: "step " + h.step + ": %{customdata:.4g} at %{x:.4g}<extra></extra>"};
    });
  }

  function render() {
    return C.renderPluginCards({ctx, plugin: "histograms", noun: "histogram", statusEl, cards, cardsEl, openGroups,
      draw});
  }

  async function draw(card) {
    let rows;
    try { rows = await ctx.fetchJSON("/data/plugin/histograms/histograms", {run: card.run, tag: card.tag}); }
    catch (e) { card.plot.textContent = e.message; return; }
    const drawMode = mode();
    const data = histogramTraces(rows, ctx.runColor(card.run), drawMode);
    const layout = C.baseLayout({hovermode: "closest", uirevision: drawMode,
      xaxis: {title: {text: "value"}},
      yaxis: drawMode === "offset" ? {title: {text: "step"}, autorange: "reversed"} : {title: {text: "count"}}});
    await C.drawChart(card, data, layout, card.tag + " (" + card.run + ")");
  }

  window.lens.registerDashboard({
    id: "histograms", title: "Histograms", plugin: "histograms",
    mount(container, context) {
      ctx = context;
      const bar = C.toolbar();
      const modeSelect = C.select([["offset", "Offset"], ["overlay", "Overlay"]], mode());
      modeSelect.className = "histogram-mode";
      modeSelect.addEventListener("change", () => {
        ctx.setState("mode", modeSelect.value === "offset" ? undefined : modeSelect.value);
        for (const card of cards.values()) draw(card);
      });
      bar.append(C.labelled("Histogram mode", modeSelect));
      [statusEl, cardsEl] = C.statusAndCards();
      container.append(bar, statusEl, cardsEl);
      render();
    },
    onRunsChanged() { if (ctx) render(); },
    onReload() { if (ctx) return render(); },
  });
})();
