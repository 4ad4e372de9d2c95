// Scalars dashboard: a card per tag (grouped by prefix), one line per run, smoothing,
// x/y axis options, tag filter, per-card downloads, and zoom that fetches finer data.
"use strict";

(function () {
  const C = window.lensCharts;
  const SC = window.lensScalarChart;
  const S = window.lensSettings;
  const ROUTE = "/data/plugin/scalars/scalars";
  const EXPORT_ROUTE = "/data/plugin/scalars/export";
  let ctx = null;
  let cardsEl = null;
  let statusEl = null;
  let tagIndex = {};
  const cards = new Map();          // tag -> card state
  const openGroups = new Set();
  let observer = null;

  // Smoothing and the x axis are the shared settings (lensSettings, also in the URL hash).
  const settings = {
    smoothing: () => S.get("smoothing"),
    xAxis: () => S.get("xAxis"),
    logY: () => ctx.getState("log") === "1",
    tagFilter: () => ctx.getState("tags") || "",
    // Points per series per request: series with more are bucketed (min/max kept) by the server.
    points: () => Math.max(16, parseInt(ctx.getState("points") || "20000", 10) || 20000),
  };

  function buildToolbar(container) {
    const bar = C.toolbar();
    const filter = document.createElement("input");
    filter.type = "text";
    filter.placeholder = "Filter tags (regex)";
    filter.className = "tag-filter";
    filter.value = settings.tagFilter();
    filter.addEventListener("input", () => { ctx.setState("tags", filter.value); render(); });

    const slider = document.createElement("input");
    slider.type = "range"; slider.min = "0"; slider.max = "0.999"; slider.step = "0.001";
    slider.className = "smoothing-slider";
    const number = document.createElement("input");
    number.type = "number"; number.min = "0"; number.max = "0.999"; number.step = "0.001";
    number.className = "smoothing-value";
    slider.value = number.value = String(settings.smoothing());
    slider.addEventListener("input", () => S.set("smoothing", slider.value));
    number.addEventListener("change", () => S.set("smoothing", number.value));

    const xAxis = C.select([["step", "Step"], ["relative", "Relative"], ["wall", "Wall"]],
      settings.xAxis());
    xAxis.className = "x-axis";
    xAxis.addEventListener("change", () => S.set("xAxis", xAxis.value));
    // A dragged smoothing slider redraws once per frame, not once per input event.
    const redrawSoon = C.perFrame(() => { for (const card of cards.values()) draw(card); });
    S.onChange((name, value) => {
      if (name === "smoothing") {
        slider.value = number.value = String(value);
        redrawSoon();
      } else if (name === "xAxis") {
        xAxis.value = value;
        for (const card of cards.values()) { card.zoom = null; card.resetView = true; draw(card); }
      } else if (name === "ignoreOutliers") {
        for (const card of cards.values()) { card.resetView = true; draw(card); }
      }
    });
    const yScale = C.select([["linear", "Linear"], ["log", "Log"]], settings.logY() ? "log" : "linear");
    yScale.className = "y-scale";
    yScale.addEventListener("change", () => {
      ctx.setState("log", yScale.value === "log" ? "1" : undefined);
      for (const card of cards.values()) { card.resetView = true; draw(card); }
    });
    bar.append(filter, C.labelled("Smoothing", slider), number, C.labelled("X axis", xAxis),
      C.labelled("Y axis", yScale));
    statusEl = document.createElement("div");
    statusEl.className = "muted status";
    container.append(bar, statusEl);
  }

  async function render() {
    try {
      tagIndex = await ctx.fetchJSON("/data/plugin/scalars/tags");
    } catch (e) {
      statusEl.textContent = "Could not load scalar tags: " + e.message;
      return;
    }
    const runs = ctx.selectedRuns();
    const tags = new Set();
    for (const run of runs) for (const tag of Object.keys(tagIndex[run] || {})) tags.add(tag);
    const re = C.tagRegex(settings.tagFilter());
    if (re instanceof Error) statusEl.textContent = "Invalid tag regex: " + re.message;
    const shown = [...tags].filter((t) => !(re instanceof RegExp) || re.test(t));
    if (!(re instanceof Error)) {
      statusEl.textContent = shown.length ? "" : (runs.length ? "No scalar tags match." : "No runs selected.");
    }
    layoutCards(shown);
    if (!shown.length) C.startPlotly();  // no card will ask for it: warm it up now
    await Promise.all([...cards.values()].filter((c) => c.seen).map(load));
  }

  function layoutCards(tags) {
    const wanted = new Set(tags);
    for (const [tag, card] of cards) {
      if (!wanted.has(tag)) {
        observer.unobserve(card.el); C.purge(card.plot); SC.detachTooltip(card); cards.delete(tag);
      }
    }
    cardsEl.replaceChildren();
    for (const [group, groupTags] of C.groupTags(tags)) {
      const {details, grid} = C.groupSection(group, groupTags.length, openGroups);
      for (const tag of groupTags) grid.append((cards.get(tag) || makeCard(tag)).el);
      cardsEl.append(details);
    }
    C.packGroups(cardsEl);
  }

  function makeCard(tag) {
    const el = C.card(tag);
    el.classList.add("scalar-card");
    el.dataset.tag = tag;
    const note = document.createElement("div");
    note.className = "card-note muted";
    const plot = document.createElement("div");
    plot.className = "plot";
    const card = {tag, el, plot, note, series: new Map(), zoom: null, seen: false, drawn: false};
    el.append(plot, note, downloadRow(card));
    cards.set(tag, card);
    observer.observe(el);
    return card;
  }

  function downloadRow(card) {
    const row = document.createElement("div");
    row.className = "downloads";
    const runSelect = document.createElement("select");
    runSelect.className = "download-run";
    const csv = document.createElement("a");
    csv.textContent = "CSV";
    csv.className = "download-csv";
    const json = document.createElement("a");
    json.textContent = "JSON";
    json.className = "download-json";
    const png = document.createElement("button");
    png.type = "button";
    png.textContent = "PNG";
    png.addEventListener("click", () => C.plotlyReady().then((Plotly) => Plotly.downloadImage(
      card.plot, {format: "png", filename: card.tag.replace(/[^\w.-]+/g, "_")})));
    const update = () => {
      const run = runSelect.value;
      const base = {run, tag: card.tag};
      const name = (run + "_" + card.tag).replace(/[^\w.-]+/g, "_");
      csv.href = ROUTE + "?" + new URLSearchParams(Object.assign({format: "csv"}, base));
      csv.download = name + ".csv";
      json.href = ROUTE + "?" + new URLSearchParams(base);
      json.download = name + ".json";
    };
    runSelect.addEventListener("change", update);
    // One tag across every run the card shows, as one long table (lens export's layout).
    const allLinks = ["csv", "json"].map((format) => {
      const a = document.createElement("a");
      a.textContent = format.toUpperCase();
      a.className = "download-all-" + format;
      return a;
    });
    const setAll = (runs) => {
      const name = card.tag.replace(/[^\w.-]+/g, "_");  // the route names the file the same way
      for (const a of allLinks) {
        const format = a.className.slice("download-all-".length);
        const params = new URLSearchParams({tag: card.tag, format});
        for (const r of runs) params.append("run", r);
        a.href = EXPORT_ROUTE + "?" + params;
        a.download = name + "." + format;
      }
    };
    card.updateDownloads = (runs) => {
      setAll(runs);
      const previous = runSelect.value;
      runSelect.replaceChildren(...runs.map((r) => {
        const o = document.createElement("option");
        o.value = r; o.textContent = r;
        return o;
      }));
      if (runs.includes(previous)) runSelect.value = previous;
      update();
    };
    row.append(document.createTextNode("Download "), runSelect, csv, json, png,
      document.createTextNode(" all runs: "), ...allLinks);
    return row;
  }

  async function load(card) {
    const runs = ctx.selectedRuns().filter((r) => tagIndex[r] && tagIndex[r][card.tag]);
    card.updateDownloads(runs);
    const params = {tag: card.tag, downsample: String(settings.points())};
    if (card.zoom) { params.min_step = String(card.zoom[0]); params.max_step = String(card.zoom[1]); }
    const results = await Promise.all(runs.map(async (run) => {
      try {
        const {body, response} = await ctx.fetchJSON(ROUTE, Object.assign({run}, params), {withResponse: true});
        const total = parseInt(response.headers.get("X-Lens-Total-Points") || String(body.length), 10);
        return [run, {rows: body, total}];
      } catch (e) {
        return [run, {rows: [], total: 0, error: e.message}];
      }
    }));
    card.series = new Map(results);
    draw(card);
  }

  function traces(card) {
    return SC.traces(card, ctx.runColor, ctx.escapeHtml);
  }

  // Until plotly runs, the card shows a light preview of the same traces (preview.js);
  // the first draw after plotly has started replaces it with the interactive chart.
  function draw(card) {
    if (!card.seen) return;
    const traceList = traces(card);
    const truncated = [...card.series.values()].filter((s) => s.total > s.rows.length);
    card.note.textContent = truncated.length
      ? "Some runs show " + truncated.map((s) => s.rows.length + " of " + s.total).join(", ") +
        " points (each bucket's min and max kept); zoom in for every point."
      : "";
    const errors = [...card.series].filter(([, s]) => s.error).map(([r, s]) => r + ": " + s.error);
    if (errors.length) card.note.textContent += " " + errors.join("; ");
    const layout = SC.layout(traceList, settings.logY());
    if (!window.Plotly) {
      window.lensPreview.draw(card.plot, traceList, layout, card.tag);
      if (!card.waiting) {
        card.waiting = true;
        C.whenPlotly().then(() => { card.waiting = false; draw(card); },
          (e) => { card.waiting = false; card.note.textContent = e.message; });
      }
      return;
    }
    window.lensPreview.clear(card.plot);
    if (card.resetView) { layout.uirevision = Math.random(); card.resetView = false; }
    else layout.uirevision = card.uirevision || "keep";
    card.uirevision = layout.uirevision;
    Plotly.react(card.plot, traceList, layout, C.PLOT_CONFIG);
    card.el.dataset.traces = String(traceList.length);
    if (!card.drawn) {
      card.drawn = true;
      card.plot.on("plotly_relayout", (ev) => onZoom(card, ev));
      SC.attachTooltip(card, ctx.runColor);
    }
  }

  // Zooming on a card whose series were bucketed asks the server for that step range only.
  function onZoom(card, ev) {
    const truncated = [...card.series.values()].some((s) => s.total > s.rows.length);
    if (ev["xaxis.autorange"]) {
      if (card.zoom) { card.zoom = null; load(card); }
      return;
    }
    // Drag-zoom reports range[0]/range[1]; a programmatic relayout may report the pair.
    const pair = ev["xaxis.range"] || [];
    const lo = ev["xaxis.range[0]"] ?? pair[0], hi = ev["xaxis.range[1]"] ?? pair[1];
    if (lo === undefined || hi === undefined || (!truncated && !card.zoom)) return;
    const steps = stepRange(card, lo, hi);
    if (!steps) return;
    card.zoom = steps;
    load(card);
  }

  function stepRange(card, lo, hi) {
    const axis = settings.xAxis();
    if (axis === "step") return [Math.floor(lo), Math.ceil(hi)];
    // Other axes: the steps of the points currently inside the visible x range.
    let min = Infinity, max = -Infinity;
    for (const s of card.series.values()) {
      if (!s.rows.length) continue;
      const xs = C.xValues(s.rows, axis, s.rows[0][0]);
      const a = axis === "wall" ? new Date(lo).getTime() : lo;
      const b = axis === "wall" ? new Date(hi).getTime() : hi;
      xs.forEach((x, i) => {
        const v = axis === "wall" ? x.getTime() : x;
        if (v >= a && v <= b) { min = Math.min(min, s.rows[i][1]); max = Math.max(max, s.rows[i][1]); }
      });
    }
    return Number.isFinite(min) ? [min, max] : null;
  }

  window.lens.registerDashboard({
    id: "scalars", title: "Scalars", plugin: "scalars",
    mount(container, context) {
      ctx = context;
      buildToolbar(container);
      cardsEl = document.createElement("div");
      cardsEl.className = "cards";
      container.append(cardsEl);
      // Cards load their data when first scrolled into view, so 100 tags open quickly.
      // plotly starts once the first cards in view show their previews (see charts.js).
      observer = new IntersectionObserver((entries) => {
        const loads = [];
        for (const entry of entries) {
          const card = [...cards.values()].find((c) => c.el === entry.target);
          if (!entry.isIntersecting || !card || card.seen) continue;
          card.seen = true;
          loads.push(load(card));
        }
        if (loads.length) Promise.all(loads).finally(C.startPlotly);
      }, {rootMargin: "200px"});
      render();
    },
    onRunsChanged() { if (ctx) render(); },
    onReload() { if (ctx) return render(); },
  });
})();
