// The Time Series dashboard's cards: scalars (all runs on one chart, step selection and data
// table), histograms and images (one run each). A card is created empty and cheap; it asks
// for its data (request()) and draws (draw()) only once it has scrolled into view.
"use strict";

window.lensTsCards = (function () {
  const C = window.lensCharts;
  const SC = window.lensScalarChart;
  const H = window.lensHisto;
  const S = window.lensSettings;
  const ST = window.lensTsSteps;
  const HEIGHT = 260;
  const CONFIG = Object.assign({}, C.PLOT_CONFIG, {edits: {shapePosition: true}});

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // While the grid is scrolling, cards coming into view show the light preview (preview.js,
  // a few ms) and become plotly charts once the scrolling has stopped, one card per frame:
  // a plotly chart costs tens of ms, which would drop frames mid-scroll.
  const SETTLE_MS = 250;  // a stall of the page (a busy machine) mid-scroll is not a stop
  let lastScroll = -Infinity;
  const upgrades = new Set();
  let upgrading = false;
  let scroller = null, lastTop = 0, checkedAt = -Infinity;
  function noteScroll() { lastScroll = performance.now(); }
  // The scroll event comes a frame after the move, and cards coming into view can load in
  // between: a moved scroll position counts as scrolling too (read at most every 10 ms, as
  // reading it after a card was drawn costs a layout).
  function scrolling() {
    const now = performance.now();
    if (scroller && now - checkedAt > 10) {
      checkedAt = now;
      const top = scroller.scrollTop;
      if (top !== lastTop) { lastTop = top; noteScroll(); }
    }
    return performance.now() - lastScroll < SETTLE_MS;
  }
  function watchScroll(el) {
    scroller = el;
    lastTop = el.scrollTop;
    trail.push([performance.now(), lastTop]);
    el.addEventListener("scroll", () => { noteScroll(); noteTop(); }, {passive: true});
  }

  // A fling (more than a screen a second) passes cards faster than anyone reads them: cards
  // it passes wait to load until it slows down, and those still near the screen load then.
  // The speed comes from the scroll positions of the last 300 ms, read in the scroll events
  // (the frame lays the page out there anyway, so the read costs no extra layout).
  const FLING_SCREENS_PER_S = 1;
  const trail = [];  // [time, scrollTop], newest last; the one before the window kept as base
  function noteTop() {
    const now = performance.now();
    trail.push([now, scroller.scrollTop]);
    while (trail.length > 2 && now - trail[1][0] > 300) trail.shift();
  }
  function flying() {
    const now = performance.now();
    if (!scroller || trail.length < 2 || now - lastScroll > SETTLE_MS) return false;
    const [t0, top0] = trail[0], [t1, top1] = trail[trail.length - 1];
    const dt = Math.min(Math.max(t1 - t0, 16), 300);  // a base from long ago counts as 300 ms
    return Math.abs(top1 - top0) / dt > FLING_SCREENS_PER_S * window.innerHeight / 1000;
  }
  const slowWaiters = new Set();
  let slowTimer = null;
  function whenSlow(fn) {
    slowWaiters.add(fn);
    if (slowTimer !== null) return;
    const poll = () => {
      if (flying()) { slowTimer = setTimeout(poll, 100); return; }
      slowTimer = null;
      const waiting = [...slowWaiters];
      slowWaiters.clear();
      for (const f of waiting) f();
    };
    slowTimer = setTimeout(poll, 100);
  }
  function scheduleUpgrades() {
    if (upgrading || !upgrades.size) return;
    upgrading = true;
    const step = () => {
      const quiet = performance.now() - lastScroll;
      if (quiet < SETTLE_MS) { setTimeout(step, SETTLE_MS - quiet); return; }
      requestAnimationFrame(() => {
        if (scrolling()) { upgrading = false; scheduleUpgrades(); return; }  // resumed meanwhile
        const card = upgrades.values().next().value;
        upgrades.delete(card);
        // A card scrolled past waits (dirty) until it shows again: no plotly for nobody.
        if (card && card.el.isConnected) {
          if (card.onScreen === false) card.dirty = true; else card.draw();
        }
        upgrading = false;
        scheduleUpgrades();
      });
    };
    step();
  }

  // While the grid scrolls, cards coming into view stay cheap placeholders (their title and
  // a blank chart area of the final size) and are drawn in the browser's idle time, never
  // inside a frame: one card's traces, table and preview cost a few ms plus their layout,
  // which a frame already busy scrolling cannot spare. Cards that left the screen before
  // their turn are skipped (marked dirty: they draw when they show again).
  const IDLE_NEEDED_MS = 8;
  const idleDraws = new Set();
  let idleHandle = null;
  function drawWhenIdle(card) {
    idleDraws.add(card);
    if (idleHandle !== null) return;
    const later = window.requestIdleCallback || ((fn) => setTimeout(() => fn({
      timeRemaining: () => 50}), 50));
    const run = (deadline) => {
      idleHandle = null;
      for (const next of idleDraws) {
        if (deadline.timeRemaining() < IDLE_NEEDED_MS) break;
        idleDraws.delete(next);
        if (!next.el.isConnected) continue;
        if (next.onScreen === false) { next.dirty = true; continue; }
        // A plotly chart's redraw costs tens of ms, more than an idle slice: after scrolling.
        if (next.wired && scrolling()) { upgrades.add(next); scheduleUpgrades(); continue; }
        next.draw();
      }
      if (idleDraws.size) idleHandle = later(run);
    };
    idleHandle = later(run);
  }

  // The theme's muted and border colours (board.css), for the canvas previews.
  const CANVAS_COLORS = {light: {text: "#757575", axis: "#e0e0e0"},
    dark: {text: "#9aa0a6", axis: "#3c4043"}};

  // Plotly when it runs, else a light preview (preview.js) and a redraw once it does. While
  // the grid scrolls the preview is one canvas (cheapest to draw and paint); plotly takes
  // the card over once the scrolling stops.
  function plot(card, data, layout, label) {
    if (window.Plotly && scrolling() && !card.wired) {
      window.lensPreview.drawCanvas(card.plot, data, layout, label, card.plotWidth,
        CANVAS_COLORS[S.isDark() ? "dark" : "light"]);
      upgrades.add(card);
      scheduleUpgrades();
      return Promise.resolve();
    }
    upgrades.delete(card);
    if (!window.Plotly) {
      window.lensPreview.draw(card.plot, data, layout, label, card.plotWidth);
      if (!card.waiting) {
        card.waiting = true;
        C.whenPlotly().then(() => { card.waiting = false; card.draw(); },
          (e) => { card.waiting = false; card.note.textContent = e.message; });
      }
      return Promise.resolve();
    }
    window.lensPreview.clear(card.plot);
    return window.Plotly.react(card.plot, data, layout, CONFIG).then(() => {
      card.el.dataset.traces = String(data.length);
      if (!card.wired) { card.wired = true; card.wire(); }
    });
  }

  function height(card) {
    return card.el.classList.contains("ts-fullscreen") ? Math.max(HEIGHT, window.innerHeight - 220) : HEIGHT;
  }

  // ---- scalars ------------------------------------------------------------------------------
  function scalarCard(card, env) {
    card.series = new Map();
    card.selection = null;
    card.rangeMode = false;
    card.plot = el("div", "plot");
    card.note = el("div", "card-note muted");
    const tools = el("div", "ts-step-tools");
    const range = el("input");
    range.type = "checkbox";
    range.className = "ts-range-mode";
    range.addEventListener("change", () => ST.setRangeMode(card, range.checked));
    const rangeLabel = el("label", "", "");
    rangeLabel.append(range, document.createTextNode(" Range selection"));
    const clear = el("button", "ts-clear-selection", "Clear selection");
    clear.type = "button";
    clear.addEventListener("click", () => { card.selection = null; card.draw(); });
    const log = el("input");
    log.type = "checkbox";
    log.className = "ts-log-y";
    log.addEventListener("change", () => { card.logY = log.checked; card.resetView = true; card.draw(); });
    const logLabel = el("label");
    logLabel.append(log, document.createTextNode(" Log y"));
    const fit = el("button", "ts-fit", "Fit");
    fit.type = "button";
    fit.title = "Fit the axes to the data (undo zooming)";
    fit.addEventListener("click", () => { card.resetView = true; card.draw(); });
    // The tag across the card's runs as one table (lens export's long layout).
    const downloads = ["csv", "json"].map((format) => {
      const a = el("a", "ts-download-" + format, format.toUpperCase());
      a.download = card.tag.replace(/[^\w.-]+/g, "_") + "." + format;
      return a;
    });
    tools.append(el("span", "muted", "Click the chart to pick a step."),
      rangeLabel, logLabel, fit, clear, el("span", "muted", "Download"), ...downloads);
    card.tableEl = el("div", "ts-table");
    card.body.append(card.plot, card.note, tools, card.tableEl);
    card.request = () => ({plugin: "scalars", tag: card.tag, runs: env.runs(), format: "columns"});
    card.receive = (response) => {
      const series = new Map();
      for (const run of env.runs()) {
        const columns = (response.runToSeries || {})[run];
        if (columns) series.set(run, lazyRows(columns));
      }
      card.series = series;
    };
    card.draw = (reason) => {
      const traces = SC.traces(card, env.runColor, env.escapeHtml);
      const layout = SC.layout(traces, !!card.logY, {height: height(card), shapes: ST.shapes(card)});
      if (reason === "smoothing" && sameTraces(card, traces)) return resmooth(card, traces, layout, env);
      cancelSync(card);  // a full draw supersedes a pending sync of older lines
      if (card.resetView) { layout.uirevision = Math.random(); card.resetView = false; }
      else layout.uirevision = card.uirevision || "keep";
      card.uirevision = layout.uirevision;
      ST.table(card, env.runColor);
      card.tools.hidden = !traces.length;
      for (const a of downloads) {
        const params = new URLSearchParams({tag: card.tag, format: a.className.slice(12)});
        for (const run of card.series.keys()) params.append("run", run);
        a.href = "/data/plugin/scalars/export?" + params;
      }
      clear.hidden = !card.selection;
      return plot(card, traces, layout, card.tag);
    };
    card.tools = tools;
    card.wire = () => { SC.attachTooltip(card, env.runColor); ST.wire(card); };
    card.dispose = () => SC.detachTooltip(card);
  }

  // A run's series kept as its columns (typed arrays from the loader); the [wall, step, value]
  // rows the charts and tables read are built on first use, so a card that arrived while the
  // grid scrolled and was never drawn holds three arrays per run, not one per point.
  function lazyRows(columns) {
    let rows = null;
    return {
      columns,
      get rows() {
        if (rows) return rows;
        const {wallTime, step, value} = columns;
        rows = new Array(step.length);
        for (let i = 0; i < step.length; i++) rows[i] = [wallTime[i], step[i], C.toNumber(value[i])];
        return rows;
      },
    };
  }

  // True when the drawn chart has the same traces (runs, raw lines) as `traces`.
  function sameTraces(card, traces) {
    const drawn = card.wired && card.plot.data;
    return !!drawn && drawn.length === traces.length &&
      drawn.every((t, i) => t.meta && t.meta.run === traces[i].meta.run &&
        !!t.meta.raw === !!traces[i].meta.raw);
  }
  // A smoothing change only moves the smoothed lines: the axes stay (a smoothed value is a
  // weighted mean of raw ones, which are drawn too). So the lines' SVG paths are rewritten
  // at once through plotly's own axis mapping (a few ms a card instead of tens), and plotly's
  // data is brought up to date when the page is idle (hover values until then are the old).
  function resmooth(card, traces, layout, env) {
    const index = [], ys = [];
    traces.forEach((t, i) => { if (!t.meta.raw) { index.push(i); ys.push(t.y); } });
    const range = layout.yaxis.range;
    const drawn = card.plot.layout.yaxis || {};
    const same = range ? String(drawn.range) === String(range) : drawn.autorange === true;
    ST.table(card, env.runColor);
    if (!same) {
      return window.Plotly.update(card.plot, {y: ys}, range ? {"yaxis.range": range}
        : {"yaxis.autorange": true}, index);
    }
    if (!repath(card.plot, traces)) return window.Plotly.restyle(card.plot, {y: ys}, index);
    index.forEach((i, k) => { card.plot.data[i].y = ys[k]; });
    cancelSync(card);
    const sync = () => {
      card.syncIdle = card.syncTimer = null;
      // A restyle costs tens of ms: never while the grid scrolls (it waits until it stops).
      if (scrolling()) { card.syncTimer = setTimeout(sync, SETTLE_MS); return; }
      if (card.el.isConnected && card.plot.data) window.Plotly.restyle(card.plot, {y: ys}, index);
    };
    if (window.requestIdleCallback) card.syncIdle = requestIdleCallback(sync, {timeout: 3000});
    else card.syncTimer = setTimeout(sync, 500);
    return Promise.resolve();
  }

  function cancelSync(card) {
    clearTimeout(card.syncTimer);
    if (card.syncIdle && window.cancelIdleCallback) cancelIdleCallback(card.syncIdle);
    card.syncIdle = card.syncTimer = null;
  }

  // Rewrite the line paths of the smoothed traces; false when plotly's drawing does not look
  // as expected (then the caller lets plotly redraw).
  function repath(gd, traces) {
    const L = gd._fullLayout;
    const xa = L && L.xaxis, ya = L && L.yaxis;
    const groups = gd.querySelectorAll(".scatterlayer > .trace");
    if (!xa || !ya || !xa.c2p || !ya.c2p || groups.length !== traces.length) return false;
    const paths = traces.map((t, i) => (t.meta.raw ? null : groups[i].querySelector("path.js-line")));
    if (traces.some((t, i) => !t.meta.raw && (!paths[i] || t.type !== "scatter" || t.mode !== "lines"))) {
      return false;
    }
    traces.forEach((t, i) => {
      if (t.meta.raw) return;
      let d = "", pen = "M";
      for (let k = 0; k < t.y.length; k++) {
        const y = t.y[k];
        if (!Number.isFinite(y) || (ya.type === "log" && y <= 0)) { pen = "M"; continue; }
        d += pen + xa.c2p(xa.d2c(t.x[k])).toFixed(2) + "," + ya.c2p(ya.d2c(y)).toFixed(2);
        pen = "L";
      }
      paths[i].setAttribute("d", d);
    });
    return true;
  }

  // ---- histograms ---------------------------------------------------------------------------
  function histogramCard(card, env) {
    card.rows = [];
    card.plot = el("div", "plot");
    card.note = el("div", "card-note muted");
    card.body.append(card.plot, card.note);
    card.request = () => ({plugin: "histograms", tag: card.tag, run: card.run});
    card.receive = (response) => {
      card.rows = H.fromTimeSeries((response.runToSeries || {})[card.run] || []);
    };
    card.draw = () => {
      const mode = S.get("histogramMode");
      const axis = S.get("histogramAxis");
      const data = H.traces(card.rows, env.runColor(card.run), mode, S.isDark(), axis);
      return plot(card, data, H.layout(mode, {height: height(card)}, axis),
        card.tag + " (" + card.run + ")");
    };
    card.wire = () => H.link(card.plot);
    card.dispose = () => {};
  }

  // ---- images -------------------------------------------------------------------------------
  function imageCard(card) {
    card.points = [];
    card.shownStep = null;  // null: follow the newest step
    card.el.classList.add("image-card");
    const label = el("div", "step-label muted");
    const slider = el("input", "step-slider");
    slider.type = "range";
    slider.min = "0";
    const frame = el("div", "image-frame");
    const img = el("img");
    img.alt = card.tag + " (" + card.run + ")";
    frame.append(img);
    card.body.append(label, slider, frame);
    slider.addEventListener("input", () => {
      const i = parseInt(slider.value, 10);
      card.shownStep = i === card.points.length - 1 ? null : card.points[i].step;
      show(i);
    });
    function show(i) {
      const p = card.points[i];
      if (!p) { label.textContent = "no image"; return; }
      label.textContent = "step " + p.step + " · " + new Date(p.wallTime * 1000).toLocaleString();
      const src = "/data/plugin/timeseries/imageData?imageId=" + encodeURIComponent(p.imageId);
      if (img.getAttribute("src") !== src) img.src = src;
      card.el.dataset.step = String(p.step);
    }
    card.request = () => ({plugin: "images", tag: card.tag, run: card.run, sample: card.sample});
    card.receive = (response) => { card.points = (response.runToSeries || {})[card.run] || []; };
    card.draw = () => {
      slider.max = String(Math.max(0, card.points.length - 1));
      slider.hidden = card.points.length < 2;
      let i = card.points.length - 1;
      if (card.shownStep !== null) {
        const found = card.points.findIndex((p) => p.step === card.shownStep);
        if (found >= 0) i = found;
      }
      slider.value = String(i);
      show(i);
      return Promise.resolve();
    };
    card.wire = () => {};
    card.dispose = () => {};
  }

  // A card for a descriptor {kind, tag, run, sample, id}; env: {runs, runColor, escapeHtml}.
  function create(desc, env, chrome) {
    const card = Object.assign({}, desc, {loaded: false, stale: true, dirty: false});
    const subtitle = desc.kind === "scalars" ? "" :
      desc.run + (desc.kind === "images" && desc.sample ? " · sample " + desc.sample : "");
    card.el = C.card(desc.tag, subtitle);
    card.el.classList.add("ts-card", "ts-" + desc.kind);
    card.el.dataset.kind = desc.kind;
    card.el.dataset.tag = desc.tag;
    card.el.dataset.id = desc.id;
    if (desc.run !== undefined) card.el.dataset.run = desc.run;
    card.el.querySelector(".card-title").append(chrome(card));
    card.body = el("div", "ts-card-body");
    card.el.append(card.body);
    if (desc.kind === "scalars") scalarCard(card, env);
    else if (desc.kind === "histograms") histogramCard(card, env);
    else imageCard(card);
    if (card.plot) watchWidth(card);
    return card;
  }

  // The chart's width as the layout last found it, so drawing a preview never forces a
  // layout (reading clientWidth after other cards changed the page would, once per card).
  const widths = window.ResizeObserver ? new ResizeObserver((entries) => {
    for (const entry of entries) {
      const card = entry.target.lensCard;
      if (card) card.plotWidth = entry.contentRect.width || undefined;
    }
  }) : null;
  function watchWidth(card) {
    card.plot.lensCard = card;
    if (widths) widths.observe(card.plot);
  }
  function unwatch(card) {
    idleDraws.delete(card);
    upgrades.delete(card);
    if (widths && card.plot) widths.unobserve(card.plot);
  }

  return {create, watchScroll, scrolling, flying, whenSlow, drawWhenIdle, unwatch, HEIGHT};
})();
