// Distributions dashboard: the nine percentile bands of each histogram over steps.
"use strict";

(function () {
  const C = window.lensCharts;
  // Symmetric basis-point pairs, outermost first, then the median (index into the 9 values).
  const BANDS = [[0, 8], [1, 7], [2, 6], [3, 5]];
  const MEDIAN = 4;
  let ctx = null;
  let cardsEl = null;
  let statusEl = null;
  const openGroups = new Set();
  const cards = new Map();

  const xAxis = () => ctx.getState("x") || "step";

  function bandTraces(rows, color, axis) {
    if (!rows.length) return [];
    const x = C.xValues(rows, axis, rows[0][0]);
    const value = (k) => rows.map((r) => C.toNumber(r[2][k][1]));
    const out = [];
    BANDS.forEach(([lo, hi], depth) => {
      const fill = C.tint(color, 0.8 - depth * 0.18);
      out.push({type: "scatter", mode: "lines", x, y: value(lo), line: {width: 0, color: fill},
        hoverinfo: "skip", showlegend: false});
      out.push({type: "scatter", mode: "lines", x, y: value(hi), line: {width: 0, color: fill},
        fill: "tonexty", fillcolor: fill, hoverinfo: "skip", showlegend: false});
    });
    const all = rows.map((r) => r[2].map((p) => C.toNumber(p[1]).toPrecision(4)).join(", "));
    out.push({type: "scatter", mode: "lines", x, y: value(MEDIAN), line: {color, width: 1.5},
      name: "median", text: all,
      hovertemplate: "median %{y:.4g}<br>percentiles: %{text}<extra></extra>"});
    return out;
  }

  function render() {
    return C.renderPluginCards({ctx, plugin: "distributions", noun: "distribution", statusEl, cards, cardsEl, openGroups,
      draw});
  }

  async function draw(card) {
    let rows;
    try { rows = await ctx.fetchJSON("/data/plugin/distributions/distributions", {run: card.run, tag: card.tag}); }
    catch (e) { card.plot.textContent = e.message; return; }
    const data = bandTraces(rows, ctx.runColor(card.run), xAxis());
    const layout = C.baseLayout({hovermode: "closest", xaxis: C.xAxisLayout(xAxis()), uirevision: xAxis()});
    await C.drawChart(card, data, layout, card.tag + " (" + card.run + ")");
  }

  window.lens.registerDashboard({
    id: "distributions", title: "Distributions", plugin: "distributions",
    mount(container, context) {
      ctx = context;
      const bar = C.toolbar();
      const axis = C.select([["step", "Step"], ["relative", "Relative"], ["wall", "Wall"]], xAxis());
      axis.className = "x-axis";
      axis.addEventListener("change", () => {
        ctx.setState("x", axis.value === "step" ? undefined : axis.value);
        for (const card of cards.values()) draw(card);
      });
      bar.append(C.labelled("X axis", axis));
      [statusEl, cardsEl] = C.statusAndCards();
      container.append(bar, statusEl, cardsEl);
      render();
    },
    onRunsChanged() { if (ctx) render(); },
    onReload() { if (ctx) return render(); },
  });
})();
