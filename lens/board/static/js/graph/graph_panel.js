// Side panel: colour legend, regex search, node info card and trace-inputs highlighting.
(function () {
  "use strict";
  const G = window.lensGraph;
  const el = G.el;
  const MAX_HITS = 42;

  G.initPanel = function (S) {
    const side = S.ui.side;
    S.ui.hits = el("ul", { class: "lg-hits" });
    S.ui.searchError = el("div", { class: "lg-error lg-search-error" });
    S.ui.legend = el("div", { class: "lg-legend" });
    S.ui.info = el("div", { class: "lg-info" });
    [S.ui.searchError, S.ui.hits, S.ui.legend, S.ui.info].forEach(function (x) { side.appendChild(x); });
  };

  G.clearPanel = function (S) {
    if (!S.ui.info) return;
    S.ui.info.textContent = "";
    S.ui.hits.textContent = "";
  };

  // ---- legend --------------------------------------------------------------------------

  function legendRow(color, text, cls) {
    const row = el("div", { class: "lg-legend-row " + (cls || "") });
    const sw = el("span", { class: "lg-swatch" });
    sw.style.background = color;
    row.appendChild(sw);
    row.appendChild(el("span", {}, text));
    return row;
  }

  G.updateLegend = function (S) {
    const box = S.ui.legend;
    box.textContent = "";
    const mode = S.colorBy;
    box.setAttribute("data-mode", mode);
    if (mode === "device") {
      box.appendChild(el("h3", {}, "Devices"));
      if (S.stats) box.appendChild(el("div", { class: "lg-measured" }, "Placement measured in " + S.statsTag));
      G.deviceList(S).forEach(function (d) {
        box.appendChild(legendRow(G.deviceColor(S, d), d || "(no device)", "lg-device"));
      });
    } else if (mode === "structure") {
      box.appendChild(el("h3", {}, "Structure"));
      box.appendChild(el("div", {}, S.h.templates + " shared structures: metanodes with the same colour have the same inside"));
      box.appendChild(legendRow(G.UNIQUE_FILL, "unique structure"));
    } else if (mode === "compute" || mode === "memory") {
      box.appendChild(el("h3", {}, mode === "compute" ? "Compute time" : "Memory"));
      if (!S.stats) {
        box.appendChild(el("div", { class: "lg-error" }, "Pick a run under 'Session runs' to colour by " +
          (mode === "compute" ? "compute time" : "memory") + "."));
        return;
      }
      box.appendChild(el("div", { class: "lg-gradient" }));
      const fmt = mode === "compute" ? G.formatMicros : G.formatBytes;
      box.appendChild(el("div", {}, "0 … " + fmt(S.statMax || 0)));
    }
  };

  // ---- search --------------------------------------------------------------------------

  G.wireSearch = function (S) {
    let timer = null;
    S.ui.search.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(function () { runSearch(S); }, 150);
    });
    S.ui.search.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") {
        clearTimeout(timer);
        runSearch(S).then(function (first) { if (first) G.select(S, first, true); });
      }
    });
  };

  // Node paths matching rx among the held nodes (all of them in the notebook's inline view).
  function searchHeld(S, rx) {
    const hits = [];
    const paths = Object.keys(S.nodes);
    for (let i = 0; i < paths.length && hits.length < MAX_HITS; i++) {
      const p = paths[i];
      if (p && !S.nodes[p].empty && rx.test(p)) hits.push(p);
    }
    return { hits: hits };
  }

  // The server searches every node when the page holds only the scopes opened so far;
  // resolves to the first hit, or null.
  function runSearch(S) {
    const q = S.ui.search.value;
    S.ui.hits.textContent = "";
    S.ui.searchError.textContent = "";
    if (!q || !S.h) return Promise.resolve(null);
    let rx;
    try { rx = new RegExp(q); } catch (err) {
      S.ui.searchError.textContent = "Bad regex: " + err.message;
      return Promise.resolve(null);
    }
    const h = S.h;
    const asked = S.whole ? Promise.resolve(searchHeld(S, rx)) :
      S.ctx.fetchJSON("/data/plugin/graphs/search", G.graphQuery(S, { regex: q, limit: MAX_HITS }));
    return asked.then(function (res) {
      if (S.h !== h || S.ui.search.value !== q) return null;  // a newer search or graph
      const hits = res.hits;
      if (!hits.length) S.ui.searchError.textContent = "No node matches " + q;
      hits.forEach(function (p) {
        const li = el("li", { class: "lg-link", "data-path": p }, p);
        li.addEventListener("click", function () { G.select(S, p, true); });
        S.ui.hits.appendChild(li);
      });
      return hits[0] || null;
    }).catch(function (err) {
      S.ui.searchError.textContent = "Search failed: " + err.message;
      return null;
    });
  }

  // ---- selection and info card ---------------------------------------------------------

  // Select a node; with reveal, expand down to it first (fetching the scopes it is in).
  G.select = function (S, path, reveal) {
    if (reveal && !G.revealable(S, path)) {
      const h = S.h;
      return G.fetchReveal(S, path).then(function (p) {
        if (p !== null && S.h === h) selectHeld(S, p, true);
      }).catch(function (err) { G.setStatus(S, "Cannot show " + path + ": " + err.message); });
    }
    selectHeld(S, path, reveal);
    return Promise.resolve();
  };

  function selectHeld(S, path, reveal) {
    let target = path;
    if (reveal) {
      target = G.reveal(S, path);
    } else {
      while (S.nodes[target] && S.nodes[target].embedded_in) target = S.nodes[target].embedded_in;
    }
    const previous = S.selected;
    S.selected = target;
    S.ctx.setState("graph.node", target);
    if (S.ui.trace.checked) G.updateTrace(S);
    else if (reveal) G.redraw(S);
    else G.restyleSelection(S, previous);  // keep the DOM so a double-click still lands
    if (reveal) G.centerOn(S, target);
    G.showInfo(S, path);
  }

  function section(title, items, render) {
    const box = el("div", { class: "lg-section" });
    box.appendChild(el("h3", {}, title + " (" + items.length + ")"));
    const ul = el("ul");
    items.forEach(function (it) { ul.appendChild(render(it)); });
    box.appendChild(ul);
    return box;
  }

  function edgeItem(S, e) {
    const li = el("li", { class: "lg-edge-item" + (e.control ? " lg-control-item" : "") });
    const link = el("span", { class: e.path ? "lg-link" : "" }, (e.control ? "^" : "") + e.name +
      (e.slot > 0 ? ":" + e.slot : ""));
    if (e.path) link.addEventListener("click", function () { G.select(S, e.path, true); });
    li.appendChild(link);
    if (e.shape) li.appendChild(el("span", { class: "lg-shape-text" }, "  " + e.shape));
    if (e.control) li.appendChild(el("span", {}, "  (control)"));
    return li;
  }

  G.showInfo = function (S, path) {
    const box = S.ui.info;
    const run = S.run;
    return S.ctx.fetchJSON("/data/plugin/graphs/node", G.graphQuery(S, { name: path })).then(function (info) {
      if (S.run !== run) return;
      box.textContent = "";
      box.setAttribute("data-path", info.path);
      box.appendChild(el("h3", { class: "lg-info-name" }, info.name));
      const node = S.nodes[info.path];
      if (node && !node.embedded_in && info.path !== "") {
        // TensorBoard's per-node override of the automatic high-degree extraction.
        const move = el("button", { class: "lg-extract-toggle", type: "button" },
          node.extract ? "Add to main graph" : "Remove from main graph");
        move.addEventListener("click", function () { G.toggleExtract(S, info.path); });
        box.appendChild(move);
      }
      if (info.kind === "op") {
        box.appendChild(el("div", { class: "lg-info-op" }, "Operation: " + info.op));
        box.appendChild(el("div", { class: "lg-info-device" }, "Device: " + (info.device || "(none)")));
        if (info.embedded_in) box.appendChild(el("div", {}, "Drawn on: " + info.embedded_in));
        box.appendChild(section("Attributes", info.attributes, function (a) {
          return el("li", {}, a.key + ": " + a.value);
        }));
        box.appendChild(el("div", {}, "Output shapes: " + (info.output_shapes.join(", ") || "(unknown)")));
      } else {
        box.appendChild(el("div", { class: "lg-info-op" }, "Subgraph: " + info.count + " nodes"));
        box.appendChild(section("Devices", Object.keys(info.devices), function (d) {
          return el("li", {}, (d || "(no device)") + ": " + info.devices[d]);
        }));
      }
      addStats(S, box, info.path);
      const ins = section("Inputs", info.inputs, function (e) { return edgeItem(S, e); });
      ins.classList.add("lg-inputs");
      box.appendChild(ins);
      const outs = section("Outputs", info.outputs, function (e) { return edgeItem(S, e); });
      outs.classList.add("lg-outputs");
      box.appendChild(outs);
    }).catch(function (err) {
      box.textContent = "";
      box.appendChild(el("div", { class: "lg-error" }, "Could not load node info: " + err.message));
    });
  };

  // Move a node beside its scope's main graph (or back); every layout is redone since sizes
  // of enclosing scopes change with it.
  G.toggleExtract = function (S, path) {
    const node = S.nodes[path];
    if (node.extract) delete node.extract; else node.extract = "manual";
    S.layouts = new Map();
    G.redraw(S);
    return G.showInfo(S, path);
  };

  function addStats(S, box, path) {
    if (!S.stats) return;
    const st = S.stats.nodes[path];
    const div = el("div", { class: "lg-stats" });
    if (!st) {
      div.textContent = "No stats for this node in " + S.statsTag;
    } else {
      div.appendChild(el("div", { class: "lg-compute" }, "Compute time: " + G.formatMicros(st.compute_us)));
      div.appendChild(el("div", { class: "lg-memory" }, "Memory: " + G.formatBytes(st.memory_bytes)));
      if (st.device) div.appendChild(el("div", {}, "Device (measured): " + st.device));
    }
    box.appendChild(div);
  }

  // ---- trace inputs --------------------------------------------------------------------

  // Highlight every drawn node containing an op the selection depends on.
  G.updateTrace = function (S) {
    if (!S.ui.trace.checked || !S.selected) {
      S.traceSet = null;
      G.redraw(S);
      return Promise.resolve();
    }
    const run = S.run, sel = S.selected;
    return S.ctx.fetchJSON("/data/plugin/graphs/trace", G.graphQuery(S, { name: sel })).then(function (res) {
      if (S.run !== run || S.selected !== sel) return;
      const set = new Set();
      const mark = function (path) {
        // An embedded op is drawn on its host; a node not held yet stands for its held scope.
        const p0 = (res.hosts && res.hosts[path]) || path;
        let p = G.heldAncestor(S, p0);
        while (p !== undefined && !set.has(p)) {
          set.add(p);
          const n = S.nodes[p];
          p = n.embedded_in || (p === "" ? undefined : n.parent);
        }
      };
      res.inputs.forEach(mark);
      mark(sel);
      S.traceSet = set;
      G.redraw(S);
    }).catch(function (err) { G.setStatus(S, "Trace inputs failed: " + err.message); });
  };
})();
