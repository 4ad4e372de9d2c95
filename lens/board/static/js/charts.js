// Helpers shared by the chart dashboards: smoothing, axes, tag groups and cards.
"use strict";

window.lensCharts = (function () {
  // TensorBoard's debiased exponential moving average. Non-finite points pass through,
  // and a constant series is returned unchanged (TensorBoard's fix for flat lines).
  function smooth(values, weight) {
    const out = new Array(values.length);
    const finite = values.filter(Number.isFinite);
    const constant = finite.length > 0 && finite.every((v) => v === finite[0]);
    let last = 0;
    let count = 0;
    for (let i = 0; i < values.length; i++) {
      const y = values[i];
      if (!Number.isFinite(y) || constant) { out[i] = y; continue; }
      last = last * weight + (1 - weight) * y;
      count += 1;
      const debias = weight === 1 ? 1 : 1 - Math.pow(weight, count);
      out[i] = last / debias;
    }
    return out;
  }

  // JSON carries non-finite values as strings ("NaN", "Infinity"), as TensorBoard does.
  function toNumber(v) {
    if (typeof v === "number") return v;
    if (v === "Infinity") return Infinity;
    if (v === "-Infinity") return -Infinity;
    return NaN;
  }

  // x values for rows of [wall_time, step, ...] under the chosen axis.
  function xValues(rows, axis, startWall) {
    if (axis === "relative") return rows.map((r) => (r[0] - startWall) / 3600);
    if (axis === "wall") return rows.map((r) => new Date(r[0] * 1000));
    return rows.map((r) => r[1]);
  }
  function xAxisLayout(axis) {
    if (axis === "relative") return {title: {text: "relative (hours)"}, type: "linear"};
    if (axis === "wall") return {title: {text: "wall time"}, type: "date"};
    return {title: {text: "step"}, type: "linear"};
  }

  // Tags grouped by their prefix up to the first "/" (TensorBoard's categories).
  function groupTags(tags) {
    const groups = new Map();
    for (const tag of [...tags].sort()) {
      const cut = tag.indexOf("/");
      const name = cut > 0 ? tag.slice(0, cut) : tag;
      if (!groups.has(name)) groups.set(name, []);
      groups.get(name).push(tag);
    }
    return groups;
  }

  // A compiled tag filter, or an Error when the regex is invalid.
  function tagRegex(text) {
    if (!text) return null;
    try { return new RegExp(text); } catch (e) { return e; }
  }

  // A toolbar row: returns the element so callers append labelled controls.
  function toolbar() {
    const bar = document.createElement("div");
    bar.className = "toolbar";
    return bar;
  }
  function labelled(text, control) {
    const label = document.createElement("label");
    label.append(document.createTextNode(text + " "), control);
    return label;
  }
  function select(options, value) {
    const el = document.createElement("select");
    for (const [v, text] of options) {
      const o = document.createElement("option");
      o.value = v;
      o.textContent = text;
      el.append(o);
    }
    el.value = value;
    return el;
  }

  // A dashboard's status line and its cards container, as [statusEl, cardsEl].
  function statusAndCards() {
    const statusEl = document.createElement("div");
    statusEl.className = "muted status";
    const cardsEl = document.createElement("div");
    cardsEl.className = "cards";
    return [statusEl, cardsEl];
  }

  // Groups share rows: the cards container is a grid of as many card columns as the card
  // width setting allows, and each group spans as many columns as it has cards (at most all),
  // so a page of one-card groups fills the width instead of one narrow column.
  const GAP = 10;
  const packed = new Set();
  function packGroups(cardsEl) {
    cardsEl.classList.add("packed");
    if (!packed.has(cardsEl)) {
      packed.add(cardsEl);
      if (window.ResizeObserver) new ResizeObserver(() => repack(cardsEl)).observe(cardsEl);
    }
    repack(cardsEl);
  }
  function repack(cardsEl) {
    const width = cardsEl.clientWidth;
    if (!width) return;  // a hidden tab: the ResizeObserver packs it when it shows
    const min = window.lensSettings.get("cardWidth");
    const cols = Math.max(1, Math.floor((width + GAP) / (min + GAP)));
    const changed = cardsEl.style.getPropertyValue("--cols") !== String(cols);
    cardsEl.style.setProperty("--cols", String(cols));
    for (const group of cardsEl.querySelectorAll(":scope > .group")) {
      const span = Math.min(cols, Math.max(1, Number(group.dataset.count) || 1));
      group.style.gridColumn = "span " + span;
      group.style.setProperty("--group-cols", String(span));
    }
    if (changed) resizeCharts();
  }
  // plotly's responsive charts follow window resizes only: tell them the cards changed width.
  let resizeTimer = null;
  function resizeCharts() {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => window.dispatchEvent(new Event("resize")), 30);
  }
  window.lensSettings.onChange((name) => {
    if (name === "cardWidth") for (const el of packed) repack(el);
  });

  // fn, run at most once per animation frame however often it is asked (a dragged slider
  // fires many input events per frame); returns a promise of that run's result. merge(a, b)
  // folds the arguments of calls made before the frame (default: the latest wins).
  function perFrame(fn, merge) {
    let pending = null, args = null;
    return function (...next) {
      args = args && merge ? merge(args, next) : next;
      if (!pending) {
        pending = new Promise((resolve, reject) => requestAnimationFrame(() => {
          const run = args;
          pending = null;
          args = null;
          try { resolve(fn(...run)); } catch (e) { reject(e); }
        }));
      }
      return pending;
    };
  }

  // A collapsible group of cards (one per tag prefix); open state survives rerenders.
  function groupSection(name, count, openGroups) {
    const details = document.createElement("details");
    details.className = "group";
    details.dataset.count = String(count);
    details.open = !openGroups.has("closed:" + name);
    details.addEventListener("toggle", () => {
      if (details.open) openGroups.delete("closed:" + name);
      else openGroups.add("closed:" + name);
    });
    const summary = document.createElement("summary");
    summary.textContent = name + " (" + count + ")";
    details.append(summary);
    const grid = document.createElement("div");
    grid.className = "card-grid";
    details.append(grid);
    return {details, grid};
  }

  function card(title, subtitle) {
    const el = document.createElement("div");
    el.className = "card";
    const head = document.createElement("div");
    head.className = "card-title";
    head.textContent = title;
    el.append(head);
    if (subtitle) {
      const sub = document.createElement("div");
      sub.className = "card-subtitle";
      sub.textContent = subtitle;
      el.append(sub);
    }
    return el;
  }

  // plotly.min.js (4.8 MB) downloads at once (index.html preloads it) but runs only when asked:
  // its start-up takes ~0.8 s of main-thread time, which would hold back the page's own
  // fetches and the light previews (preview.js) that show the data meanwhile. The script
  // element gets its handlers first, so a failed load cannot go unnoticed.
  const FALLBACK_MS = 2000;
  let resolvePlotly, rejectPlotly;
  const plotlyPromise = new Promise((resolve, reject) => {
    resolvePlotly = resolve;
    rejectPlotly = reject;
  });
  plotlyPromise.catch(() => {});   // each drawing reports the failure on its own card
  let plotlyStarted = false;
  function runPlotly() {
    if (plotlyStarted) return;
    plotlyStarted = true;
    if (window.Plotly) { resolvePlotly(window.Plotly); return; }
    const script = document.createElement("script");
    script.src = "/static/vendor/plotly.min.js";
    script.addEventListener("load", () => resolvePlotly(window.Plotly));
    script.addEventListener("error", () => rejectPlotly(new Error(
      "could not load /static/vendor/plotly.min.js: reinstall the plotly package")));
    document.head.append(script);
  }
  // Start plotly once the frame in hand is painted, so what was just drawn shows first.
  // The timer is for background tabs, where animation frames do not run.
  function startPlotly() {
    if (plotlyStarted) return;
    requestAnimationFrame(() => setTimeout(runPlotly, 0));
    setTimeout(runPlotly, 250);
  }
  // Nothing asked in time (a slow fetch, or a tab without charts): start when the page is idle,
  // so plotly is warm when a chart tab opens.
  setTimeout(() => {
    if ("requestIdleCallback" in window) requestIdleCallback(runPlotly, {timeout: 2000});
    else runPlotly();
  }, FALLBACK_MS);

  // Resolves with Plotly once it runs; does not start it (see startPlotly).
  function whenPlotly() {
    return plotlyPromise;
  }
  // Starts plotly (after the next paint) and resolves with it: for drawings that need it now.
  function plotlyReady() {
    startPlotly();
    return plotlyPromise;
  }

  // Draw a card's chart with plotly once it runs; until then a preview of the same traces
  // (preview.js). Only the latest call is drawn. Plotly starting is the caller's decision.
  function drawChart(card, data, layout, label) {
    if (window.Plotly) {
      window.lensPreview.clear(card.plot);
      return window.Plotly.react(card.plot, data, layout, PLOT_CONFIG).then(() => {
        card.el.dataset.traces = String(data.length);
      });
    }
    window.lensPreview.draw(card.plot, data, layout, label);
    card.latest = () => drawChart(card, data, layout, label);
    if (!card.waiting) {
      card.waiting = true;
      plotlyPromise.then(() => { card.waiting = false; card.latest(); },
        (e) => { card.waiting = false; plotError(card.plot, e.message); });
    }
    return Promise.resolve();
  }

  // A message above a chart that could not be drawn with plotly; the preview stays below it.
  function plotError(plot, message) {
    let box = plot.querySelector(":scope > .plot-error");
    if (!box) {
      box = document.createElement("div");
      box.className = "plot-error error";
      plot.prepend(box);
    }
    box.textContent = message;
  }

  // Forget a chart's plotly state (a no-op when plotly never drew it).
  function purge(el) {
    if (window.Plotly) window.Plotly.purge(el);
  }

  // One plot card per (tag, run) pair, grouped by tag prefix; cards is a Map kept across renders
  // (so a redraw keeps plotly's zoom), draw(card) fills one card. Returns the pairs shown.
  async function renderRunTagCards({index, runs, cards, cardsEl, openGroups, cardClass, draw}) {
    const pairs = [];
    for (const run of runs) for (const tag of Object.keys(index[run] || {})) pairs.push([tag, run]);
    const wanted = new Set(pairs.map(([t, r]) => r + "\u0000" + t));
    for (const key of [...cards.keys()]) if (!wanted.has(key)) { purge(cards.get(key).plot); cards.delete(key); }
    cardsEl.replaceChildren();
    for (const [group, tags] of groupTags(new Set(pairs.map(([t]) => t)))) {
      const groupPairs = pairs.filter(([t]) => tags.includes(t)).sort();
      const {details, grid} = groupSection(group, groupPairs.length, openGroups);
      for (const [tag, run] of groupPairs) grid.append(runTagCard(cards, tag, run, cardClass).el);
      cardsEl.append(details);
    }
    packGroups(cardsEl);
    await Promise.all([...cards.values()].map(draw));
    return pairs;
  }

  // A run/tag-card dashboard's render: fetch `plugin`'s tags, lay out one card per (tag, run)
  // (class `<noun>-card`), draw them, then let plotly start; problems go to statusEl.
  async function renderPluginCards({ctx, plugin, noun, statusEl, cards, cardsEl, openGroups, draw}) {
    let index;
    try { index = await ctx.fetchJSON("/data/plugin/" + plugin + "/tags"); }
    catch (e) { statusEl.textContent = "Could not load " + noun + " tags: " + e.message; return; }
    statusEl.textContent = "";
    const pairs = await renderRunTagCards({index, runs: ctx.selectedRuns(), cards, cardsEl, openGroups,
      cardClass: noun + "-card", draw});
    startPlotly();  // every card shows its preview now
    if (!pairs.length) statusEl.textContent = "No " + noun + "s for the selected runs.";
  }

  function runTagCard(cards, tag, run, cardClass) {
    const key = run + "\u0000" + tag;
    if (cards.has(key)) return cards.get(key);
    const el = card(tag, run);
    el.classList.add(cardClass);
    el.dataset.tag = tag;
    el.dataset.run = run;
    const plot = document.createElement("div");
    plot.className = "plot";
    el.append(plot);
    const entry = {tag, run, el, plot};
    cards.set(key, entry);
    return entry;
  }

  const PLOT_CONFIG = {displaylogo: false, responsive: true,
    modeBarButtonsToRemove: ["select2d", "lasso2d"]};

  // The theme's (light/dark) colours are filled in where the layout sets none.
  function baseLayout(extra) {
    return window.lensSettings.themeLayout(Object.assign({
      margin: {l: 50, r: 10, t: 10, b: 40}, height: 260, showlegend: false,
      hovermode: "x unified", uirevision: "keep", font: {size: 11},
    }, extra || {}));
  }

  // Colour c ("#rrggbb") mixed towards white by t in [0, 1].
  function tint(c, t) {
    const n = parseInt(c.slice(1), 16);
    const mix = (v) => Math.round(v + (255 - v) * t);
    return "rgb(" + mix(n >> 16) + "," + mix((n >> 8) & 255) + "," + mix(n & 255) + ")";
  }

  return {plotlyReady, whenPlotly, startPlotly, drawChart, purge, smooth, toNumber, xValues,
    xAxisLayout, groupTags, tagRegex, toolbar, labelled, select, groupSection, packGroups, card,
    baseLayout, tint, resizeCharts, perFrame,
    renderRunTagCards, renderPluginCards, statusAndCards, PLOT_CONFIG};
})();
