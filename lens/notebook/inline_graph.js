// The inline graph view's stand-in for the board: answers the graph dashboard's fetchJSON
// calls from the data embedded in the page, and serves its part scripts (already inlined
// below) when the dashboard asks to load them, so the board's own scripts run unchanged.
(function () {
  "use strict";
  let DATA = null;
  const state = {};

  // The graph's data travels gzipped and base64-encoded (a tenth of the JSON).
  function loadData() {
    const text = atob(document.getElementById("lens-graph-data").textContent.trim());
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot unpack the graph (no DecompressionStream)"));
    }
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(JSON.parse);
  }

  // The dashboard loads its parts with <script src>; they are inlined in this page already.
  const append = document.head.appendChild.bind(document.head);
  document.head.appendChild = function (node) {
    const src = node && node.tagName === "SCRIPT" ? node.getAttribute("src") || "" : "";
    if (src.indexOf("/static/") === 0) {
      setTimeout(function () { if (node.onload) node.onload(); }, 0);
      return node;
    }
    return append(node);
  };

  function trace(name) {
    const T = DATA.trace;
    const start = T.under[name] || (T.inputs[name] ? [name] : null);
    if (!start) throw new Error("no node " + name + " in this graph");
    const seen = new Set(start), stack = start.slice();
    while (stack.length) {
      (T.inputs[stack.pop()] || []).forEach(function (src) {
        if (!seen.has(src)) { seen.add(src); stack.push(src); }
      });
    }
    start.forEach(function (p) { seen.delete(p); });
    return { node: name, inputs: Array.from(seen).sort() };
  }

  function answer(path, params) {
    const route = path.replace("/data/plugin/graphs/", "");
    if (route === "info") {
      const info = {};
      info[DATA.run] = { run: DATA.run, run_graph: true, tags: {} };
      return info;
    }
    if (route === "hierarchy") return DATA.hierarchy;
    if (route === "node") {
      const info = DATA.nodes[params.name];
      if (!info) throw new Error("no node " + params.name + " in this graph");
      return info;
    }
    if (route === "trace") return trace(params.name);
    throw new Error(route + " is not available in the inline graph view");
  }

  const ctx = {
    fetchJSON: function (path, params) {
      try { return Promise.resolve(answer(path, params || {})); }
      catch (err) { return Promise.reject(err); }
    },
    getState: function (key) { return state[key]; },
    setState: function (key, value) { state[key] = value; },
  };

  window.lensInline = {
    boot: function () {
      const pending = window.lensPendingDashboards || [];
      const dash = pending.filter(function (d) { return d.id === "graphs"; })[0];
      const box = document.getElementById("lens-graph");
      window.lensInline.ready = loadData().then(function (data) {
        DATA = data;
        dash.mount(box, ctx);
        return dash.S.ready;
      }).catch(function (err) {
        box.textContent = "The graph could not be drawn: " + err.message;
      });
    },
  };
})();
