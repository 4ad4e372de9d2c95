// Histograms dashboard: a card per tag x run, offset (stacked over steps, newest in front)
// or overlay mode (the shared histogram mode setting); drawing is in histo.js.
"use strict";

(function () {
  const C = window.lensCharts;
  let ctx = null;
  let cardsEl = null;
  let statusEl = null;
  const openGroups = new Set();
  const cards = new Map();  // "run\u0000tag" -> card

  const H = window.lensHisto;
  const S = window.lensSettings;
  const mode = () => S.get("histogramMode");

  function render() {
    return C.renderPluginCards({ctx, plugin: "histograms", noun: "histogram", statusEl, cards, cardsEl, openGroups,
      draw});
  }

  async function draw(card) {
    let rows;
    try { rows = await ctx.fetchJSON("/data/plugin/histograms/histograms", {run: card.run, tag: card.tag}); }
    catch (e) { card.plot.textContent = e.message; return; }
    const drawMode = mode();
    const axis = S.get("histogramAxis");
    const data = H.traces(rows, ctx.runColor(card.run), drawMode, S.isDark(), axis);
    const layout = H.layout(drawMode, null, axis);
    await C.drawChart(card, data, layout, card.tag + " (" + card.run + ")");
    // Link hovers once plotly has drawn the card (now, or when it has started).
    if (window.Plotly) H.link(card.plot);
    else C.whenPlotly().then(() => setTimeout(() => H.link(card.plot), 0), () => {});
  }

  window.lens.registerDashboard({
    id: "histograms", title: "Histograms", plugin: "histograms",
    mount(container, context) {
      ctx = context;
      const bar = C.toolbar();
      const modeSelect = C.select([["offset", "Offset"], ["overlay", "Overlay"]], mode());
      modeSelect.className = "histogram-mode";
      modeSelect.addEventListener("change", () => S.set("histogramMode", modeSelect.value));
      S.onChange((name, value) => {
        if (name === "histogramMode") modeSelect.value = value;
        if (["histogramMode", "histogramAxis", "theme"].includes(name)) {
          for (const card of cards.values()) draw(card);
        }
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
