// PR curves dashboard: a card per tag, one precision-recall curve per run at the step picked
// with the card's slider; the tooltip gives threshold, precision, recall, TP, FP, TN and FN.
"use strict";

(function () {
  const C = window.lensCharts;
  const ROUTE = "/data/plugin/pr_curves";
  let ctx = null;
  let statusEl = null;
  let cardsEl = null;
  const cards = new Map();  // tag -> card state

  async function render() {
    let index;
    try {
      index = await ctx.fetchJSON(ROUTE + "/tags");
    } catch (e) {
      statusEl.textContent = "Could not load PR curve tags: " + e.message;
      return;
    }
    const runs = ctx.selectedRuns();
    const byTag = new Map();
    for (const run of runs) {
      for (const [tag, info] of Object.entries(index[run] || {})) {
        if (!byTag.has(tag)) byTag.set(tag, {info, runs: []});
        byTag.get(tag).runs.push(run);
      }
    }
    statusEl.textContent = byTag.size ? "" : (runs.length ? "No PR curves in the selected runs."
      : "No runs selected.");
    for (const tag of [...cards.keys()]) {
      if (!byTag.has(tag)) { C.purge(cards.get(tag).plot); cards.delete(tag); }
    }
    cardsEl.replaceChildren();
    const tags = [...byTag.keys()].sort();
    for (const tag of tags) {
      const card = cards.get(tag) || makeCard(tag, byTag.get(tag).info);
      card.runs = byTag.get(tag).runs;
      cardsEl.append(card.el);
    }
    await Promise.all(tags.map((tag) => load(cards.get(tag))));
  }

  function makeCard(tag, info) {
    const el = C.card(info.displayName || tag, tag);
    el.classList.add("pr-card");
    el.dataset.tag = tag;
    const controls = document.createElement("div");
    controls.className = "pr-controls";
    const slider = document.createElement("input");
    slider.type = "range";
    slider.className = "pr-step-slider";
    slider.min = "0";
    slider.step = "1";
    const label = document.createElement("span");
    label.className = "pr-step-label muted";
    controls.append(document.createTextNode("Step "), slider, label);
    const plot = document.createElement("div");
    plot.className = "plot";
    const note = document.createElement("div");
    note.className = "card-note muted";
    el.append(controls, plot, note);
    const card = {tag, el, plot, note, slider, label, data: {}, steps: [], runs: []};
    slider.addEventListener("input", () => {
      ctx.setState("step." + tag, card.steps[Number(slider.value)]);
      draw(card);
    });
    cards.set(tag, card);
    return card;
  }

  async function load(card) {
    if (!card.runs.length) return;
    const params = new URLSearchParams();
    for (const run of card.runs) params.append("run", run);
    params.append("tag", card.tag);
    try {
      card.data = await ctx.fetchJSON(ROUTE + "/pr_curves?" + params.toString());
      card.note.textContent = "";
    } catch (e) {
      card.data = {};
      card.note.textContent = "Could not load this PR curve: " + e.message;
    }
    const steps = new Set();
    for (const entries of Object.values(card.data)) for (const e of entries) steps.add(e.step);
    card.steps = [...steps].sort((a, b) => a - b);
    card.slider.max = String(Math.max(0, card.steps.length - 1));
    const wanted = Number(ctx.getState("step." + card.tag));
    const at = card.steps.indexOf(wanted);
    card.slider.value = String(at >= 0 ? at : card.steps.length - 1);
    card.slider.disabled = card.steps.length < 2;
    draw(card);
  }

  // Each run's entry at the chosen step: its latest at or before it (runs log different steps).
  function entryAt(entries, step) {
    let best = null;
    for (const e of entries) if (e.step <= step && (!best || e.step > best.step)) best = e;
    return best || entries[0];
  }

  function traces(card, step) {
    const out = [];
    for (const run of card.runs) {
      const entries = card.data[run];
      if (!entries || !entries.length) continue;
      const e = entryAt(entries, step);
      out.push({type: "scatter", mode: "lines+markers", x: e.recall, y: e.precision,
        name: ctx.escapeHtml(run), meta: {run, step: e.step},
        line: {color: ctx.runColor(run), width: 1.5, shape: "hv"}, marker: {size: 4},
        customdata: e.thresholds.map((t, i) => [t, e.true_positives[i], e.false_positives[i],
          e.true_negatives[i], e.false_negatives[i]]),
        hovertemplate: "<b>%{fullData.name}</b> step " + e.step +
          "<br>threshold %{customdata[0]:.3f}<br>precision %{y:.4f}<br>recall %{x:.4f}" +
          "<br>TP %{customdata[1]} FP %{customdata[2]} TN %{customdata[3]} FN %{customdata[4]}" +
          "<extra></extra>"});
    }
    return out;
  }

  function draw(card) {
    const step = card.steps[Number(card.slider.value)];
    card.label.textContent = step === undefined ? "" : String(step);
    card.el.dataset.step = step === undefined ? "" : String(step);
    const data = traces(card, step);
    const layout = C.baseLayout({hovermode: "closest",
      xaxis: {title: {text: "recall"}, range: [0, 1.02]},
      yaxis: {title: {text: "precision"}, range: [0, 1.02]}});
    C.plotlyReady().then((Plotly) => Plotly.react(card.plot, data, layout, C.PLOT_CONFIG))
      .then(() => { card.el.dataset.traces = String(data.length); })
      .catch((e) => { card.note.textContent = e.message; });
  }

  window.lens.registerDashboard({
    id: "pr_curves", title: "PR Curves", plugin: "pr_curves",
    mount(container, context) {
      ctx = context;
      statusEl = document.createElement("div");
      statusEl.className = "muted status";
      cardsEl = document.createElement("div");
      cardsEl.className = "cards pr-cards";
      container.append(statusEl, cardsEl);
      render();
    },
    onRunsChanged() { if (ctx) render(); },
    onReload() { if (ctx) return render(); },
  });
})();
