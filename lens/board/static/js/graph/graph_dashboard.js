// The Graphs dashboard: registers with the board shell, loads its parts, owns the view state.
// Parts (layout, render, panel) live in sibling files loaded on first mount, so the shell only
// needs this one <script>. Everything from logs is set with textContent, never innerHTML.
(function () {
  "use strict";

  const PARTS = ["graph_layout.js", "graph_render.js", "graph_bridges.js", "graph_panel.js",
    "graph_style.js", "graph_minimap.js", "graph_upload.js", "graph_scopes.js"];
  const BASE = "/static/js/graph/";
  const G = (window.lensGraph = window.lensGraph || {});

  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      const s = document.createElement("script");
      s.async = false;  // fetched in parallel, run in the order they were added
      s.src = src;
      s.onload = resolve;
      s.onerror = function () { reject(new Error("could not load " + src)); };
      document.head.appendChild(s);
    });
  }

  let partsReady = null;
  function loadParts() {
    // dagre comes from the page normally; load it here too so the dashboard stands alone.
    if (!partsReady) {
      const srcs = (window.dagre ? [] : ["/static/vendor/dagre.min.js"])
        .concat(PARTS.map(function (name) { return BASE + name; }));
      partsReady = Promise.all(srcs.map(loadScript));
    }
    return partsReady;
  }

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  G.el = el;

  const COLOR_MODES = [["structure", "Structure"], ["device", "Device"],
    ["compute", "Compute time"], ["memory", "Memory"], ["none", "None"]];

  function buildControls(S) {
    const bar = el("div", { class: "lg-controls" });
    const runSel = el("select", { class: "lg-run", title: "Run" });
    const tagSel = el("select", { class: "lg-session-runs", title: "Session runs (tagged run metadata)" });
    const colorSel = el("select", { class: "lg-color", title: "Colour by" });
    COLOR_MODES.forEach(function (m) { colorSel.appendChild(el("option", { value: m[0] }, m[1])); });
    const search = el("input", { class: "lg-search", type: "search", placeholder: "Search nodes (regex)",
      autocomplete: "off", spellcheck: "false" });
    const trace = el("input", { class: "lg-trace", type: "checkbox" });
    const traceLabel = el("label", { class: "lg-trace-label" });
    traceLabel.appendChild(trace);
    traceLabel.appendChild(document.createTextNode(" Trace inputs"));
    const fit = el("button", { class: "lg-fit", type: "button", title: "Fit to screen" }, "Fit");
    const svgBtn = el("button", { class: "lg-dl-svg", type: "button" }, "SVG");
    const pngBtn = el("button", { class: "lg-dl-png", type: "button" }, "PNG");
    [el("span", {}, "Run "), runSel, el("span", {}, " Session runs "), tagSel,
      el("span", {}, " Colour "), colorSel, search, traceLabel, fit, svgBtn, pngBtn]
      .forEach(function (x) { bar.appendChild(x); });
    S.ui = { bar: bar, runSel: runSel, tagSel: tagSel, colorSel: colorSel, search: search,
      trace: trace, fit: fit, svgBtn: svgBtn, pngBtn: pngBtn };
    return bar;
  }

  function setStatus(S, text) {
    S.ui.status.textContent = text || "";
    S.ui.status.hidden = !text;
  }
  G.setStatus = setStatus;

  // Which graph the routes should answer for: an uploaded file or a run (see graph_upload.js).
  G.graphQuery = function (S, extra) {
    return Object.assign(S.upload ? { upload: S.upload.id } : { run: S.run }, extra || {});
  };

  function fillRuns(S) {
    const runs = Object.keys(S.info).sort();
    const sel = S.ui.runSel;
    sel.textContent = "";
    runs.forEach(function (r) { sel.appendChild(el("option", { value: r }, r)); });
    if (S.upload) {
      // An uploaded graph stays shown (reloads only refresh the runs listed beside it).
      sel.appendChild(el("option", { value: S.run }, "Uploaded: " + S.upload.name));
      sel.value = S.run;
      return;
    }
    if (runs.indexOf(S.run) < 0) S.run = runs.length ? runs[0] : null;
    if (S.run !== null) sel.value = S.run;
  }

  function fillTags(S) {
    const sel = S.ui.tagSel;
    sel.textContent = "";
    sel.appendChild(el("option", { value: "" }, "(none)"));
    const item = S.info[S.run];
    const tags = item ? Object.keys(item.tags) : [];
    tags.forEach(function (t) { sel.appendChild(el("option", { value: t }, t)); });
    if (tags.indexOf(S.statsTag) < 0) S.statsTag = "";
    sel.value = S.statsTag;
    sel.disabled = tags.length === 0;
  }

  // drawn: the caller has just drawn the graph without stats (no second drawing needed).
  function loadStats(S, drawn) {
    S.stats = null;
    if (!S.statsTag || S.upload) { if (!drawn) G.redraw(S); return Promise.resolve(); }
    setStatus(S, "Loading run metadata " + S.statsTag + "…");
    return S.ctx.fetchJSON("/data/plugin/graphs/stats", { run: S.run, tag: S.statsTag })
      .then(function (stats) { S.stats = stats; setStatus(S, ""); G.redraw(S); })
      .catch(function (err) { setStatus(S, "Run metadata failed: " + err.message); });
  }

  function loadGraph(S) {
    S.h = null;
    S.nodes = {};
    S.loaded = new Set();
    S.inflight = new Map();   // scope -> the request fetching its children
    S.whole = false;
    S.expanded = new Set([""]);
    S.layouts = new Map();
    S.selected = null;
    S.trace = null;
    G.clearPanel(S);
    if (S.run === null) {
      setStatus(S, "No run has a graph. Write one with FileWriter(logdir, graph), or upload a " +
        "GraphDef (.pb/.pbtxt) with Upload.");
      G.clearSvg(S);
      if (G.updateMinimap) G.updateMinimap(S);
      return Promise.resolve();
    }
    const run = S.run;
    setStatus(S, "Loading graph of " + (S.upload ? S.upload.name : run) + "…");
    // Only the root's children: a scope's own come when it is first expanded (graph_scopes.js).
    const ask = function () {
      return S.ctx.fetchJSON("/data/plugin/graphs/hierarchy", G.graphQuery(S, { scope: "" }));
    };
    const early = S.early.root && !S.upload ? S.early.root : null;
    S.early.root = null;
    const asked = early ? early.then(function (r) { return r && r.run === run ? r.h : ask(); }, ask) : ask();
    return asked
      .then(function (h) {
        if (S.run !== run) return;  // the user picked another run meanwhile
        S.h = h;
        G.mergeNodes(S, h);
        setStatus(S, "");
        G.redraw(S);
        G.fit(S);
        restoreNode(S);
        return loadStats(S, true);
      })
      .catch(function (err) { setStatus(S, "Could not load the graph of " + run + ": " + err.message); });
  }

  // A node named in the URL (graphs.graph.node, e.g. from a shared link) is revealed and
  // selected once, when the page first shows that run's graph.
  function restoreNode(S) {
    const wanted = S.restoreNode;
    S.restoreNode = null;
    if (!wanted) return;
    // The server resolves an op name whose path became scope/(leaf) and sends its scopes.
    G.fetchReveal(S, wanted).then(function (path) {
      if (path !== null) G.select(S, path, true);
    }).catch(function () { setStatus(S, "Node " + wanted + " (from the URL) is not in this graph."); });
  }

  function refreshInfo(S) {
    const early = S.early.info;
    S.early.info = null;
    return (early || S.ctx.fetchJSON("/data/plugin/graphs/info", {})).then(function (info) {
      S.info = info;
      const before = S.run;
      fillRuns(S);
      fillTags(S);
      return S.run !== before || !S.h ? loadGraph(S) : null;
    });
  }

  function wire(S) {
    const ui = S.ui;
    ui.runSel.addEventListener("change", function () {
      if (S.upload && ui.runSel.value === S.run) return;
      S.upload = null;
      S.run = ui.runSel.value; S.ctx.setState("graph.run", S.run); S.ctx.setState("graph.node", "");
      fillRuns(S); fillTags(S); loadGraph(S);
    });
    ui.tagSel.addEventListener("change", function () {
      S.statsTag = ui.tagSel.value; S.ctx.setState("graph.session", S.statsTag);
      if (!S.statsTag && (S.colorBy === "compute" || S.colorBy === "memory")) {
        S.colorBy = "structure"; ui.colorSel.value = S.colorBy;
      }
      loadStats(S);
      if (S.selected) G.showInfo(S, S.selected);
    });
    ui.colorSel.addEventListener("change", function () {
      S.colorBy = ui.colorSel.value; S.ctx.setState("graph.color", S.colorBy); G.redraw(S);
    });
    ui.fit.addEventListener("click", function () { G.fit(S); });
    ui.svgBtn.addEventListener("click", function () { G.downloadSvg(S); });
    ui.pngBtn.addEventListener("click", function () { G.downloadPng(S); });
    ui.trace.addEventListener("change", function () { G.updateTrace(S); });
    G.wireSearch(S);
  }

  function mount(container, ctx) {
    const S = { ctx: ctx, container: container, info: {}, run: ctx.getState("graph.run") || null,
      statsTag: ctx.getState("graph.session") || "", colorBy: ctx.getState("graph.color") || "structure",
      h: null, nodes: {}, loaded: new Set(), inflight: new Map(), expanded: new Set([""]), layouts: new Map(), selected: null,
      trace: null, stats: null, view: { x: 0, y: 0, k: 1 }, pos: {}, upload: null,
      restoreNode: ctx.getState("graph.node") || null };
    G.current = S;
    const root = el("div", { class: "lg-root" });
    root.appendChild(buildControls(S));
    S.ui.colorSel.value = S.colorBy;
    S.ui.status = el("div", { class: "lg-status", role: "status" });
    root.appendChild(S.ui.status);
    const body = el("div", { class: "lg-body" });
    S.ui.canvas = el("div", { class: "lg-canvas" });
    S.ui.side = el("div", { class: "lg-side" });
    body.appendChild(S.ui.canvas);
    body.appendChild(S.ui.side);
    root.appendChild(body);
    container.appendChild(root);
    setStatus(S, "Loading the graph dashboard…");
    // Ask for the runs and the URL's run's root scope while the parts load (errors surface
    // when they are used).
    const early = function (p) { p.catch(function () {}); return p; };
    const info = early(ctx.fetchJSON("/data/plugin/graphs/info", {}));
    const wanted = S.run;
    S.early = { info: info, root: early(info.then(function (runs) {
      // The run fillRuns will pick: the URL's when it has a graph, else the first.
      const names = Object.keys(runs).sort();
      const run = names.indexOf(wanted) >= 0 ? wanted : names[0];
      if (run === undefined) return null;
      return ctx.fetchJSON("/data/plugin/graphs/hierarchy", { run: run, scope: "" })
        .then(function (h) { return { run: run, h: h }; });
    })) };
    S.ready = loadParts().then(function () {
      G.installStyle();
      G.initSvg(S);
      G.initPanel(S);
      G.initMinimap(S);
      G.initUpload(S, { fillRuns: fillRuns, fillTags: fillTags, loadGraph: loadGraph });
      wire(S);
      return refreshInfo(S);
    }).catch(function (err) { setStatus(S, "Graph dashboard failed to start: " + err.message); });
    return S;
  }

  const dashboard = {
    id: "graphs",
    title: "Graphs",
    plugin: "graphs",
    mount: function (container, ctx) { this.S = mount(container, ctx); },
    onRunsChanged: function () {},
    onReload: function () {
      // Graphs rarely change; refresh the run and session-run lists, keep the view.
      const S = this.S;
      if (S && S.ready) S.ready.then(function () { return refreshInfo(S); });
    },
  };
  if (window.lens && window.lens.registerDashboard) window.lens.registerDashboard(dashboard);
  else (window.lensPendingDashboards = window.lensPendingDashboards || []).push(dashboard);
})();
