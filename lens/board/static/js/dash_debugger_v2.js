// Debugger V2 dashboard: tfdbg v2 DebugEvent dumps. Alert summary (inf/nan by op type, the
// first one pinned), the execution timeline, the graph-execution list with health values,
// op info (inputs, consumers, "show in graph"), the creation stack trace and its source with
// the line highlighted; health pills can be overlaid on the Graphs dashboard's nodes.
"use strict";

(function () {
  const ROUTE = "/data/plugin/debugger-v2";
  const PAGE = 100;
  const PILL_COLORS = ["#7b1fa2", "#e65100", "#d50000", "#1565c0", "#9e9e9e", "#2e7d32"];
  const PILL_NAMES = ["-inf", "+inf", "nan", "negative", "zero", "positive"];
  let ctx = null;
  let el = {};
  let run = null;
  let page = 0;
  let alertTraces = new Set();
  let alertExecutions = new Set();
  let pills = {};

  function h(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "on") Object.entries(v).forEach(([ev, fn]) => e.addEventListener(ev, fn));
      else if (v !== undefined && v !== null) e.setAttribute(k, v);
    }
    for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return e;
  }
  const get = (path, params) => ctx.fetchJSON(ROUTE + path, Object.assign({run}, params || {}));

  function installStyle() {
    if (document.getElementById("dbg2-style")) return;
    const style = h("style", {id: "dbg2-style"});
    style.textContent = `
      .dbg2 { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 12px; }
      .dbg2 section { border: 1px solid #ddd; border-radius: 6px; padding: 8px; min-width: 0; }
      .dbg2 h3 { margin: 0 0 6px; font-size: 14px; }
      .dbg2 table { border-collapse: collapse; width: 100%; font-size: 12px; }
      .dbg2 td, .dbg2 th { padding: 2px 6px; text-align: left; white-space: nowrap; }
      .dbg2 tr.dbg2-row { cursor: pointer; } .dbg2 tr.dbg2-row:hover { background: #eef; }
      .dbg2 tr.dbg2-alert { background: #fde7e7; } .dbg2 tr.dbg2-selected { outline: 2px solid #36c; }
      .dbg2-pill { display: inline-flex; width: 90px; height: 10px; vertical-align: middle;
        border: 1px solid #888; }
      .dbg2-pill span { height: 100%; }
      .dbg2-timeline { display: flex; flex-wrap: wrap; gap: 2px; max-height: 90px; overflow: auto; }
      .dbg2-timeline button { font-size: 11px; padding: 1px 4px; }
      .dbg2-timeline button.dbg2-bad { background: #fbb; }
      .dbg2-source { max-height: 360px; overflow: auto; font-family: monospace; font-size: 12px;
        white-space: pre; background: #fafafa; }
      .dbg2-source div.dbg2-hl { background: #ffe082; }
      .dbg2-frames li { cursor: pointer; } .dbg2-frames li:hover { text-decoration: underline; }
      .dbg2-damage { color: #b00; }
      .dbg2-links button { margin-right: 6px; }`;
    document.head.append(style);
  }

  // ---- health values -------------------------------------------------------------------------
  function counts(mode, v) {
    if (!v) return null;
    if (mode === 4) return v.slice(5, 11);  // FULL_HEALTH
    if (mode === 3) return [v[2], v[3], v[4], 0, 0, v[1] - v[2] - v[3] - v[4]];  // CONCISE
    return null;
  }
  function pill(c) {
    const total = c.reduce((a, b) => a + b, 0) || 1;
    const bar = h("span", {class: "dbg2-pill", title: PILL_NAMES.map((n, i) => n + ": " + c[i])
      .join(", ")});
    c.forEach((n, i) => { if (n) bar.append(h("span", {style: "width:" + (100 * n / total) +
      "%;background:" + PILL_COLORS[i]})); });
    return bar;
  }
  function describe(mode, v) {
    if (!v) return "";
    if (mode === 2) return v[1] ? "has inf/nan" : "healthy";
    if (mode === 5) return "dtype " + v[1] + ", shape [" + v.slice(4, 4 + v[2]).join(", ") + "]";
    const c = counts(mode, v);
    return c ? PILL_NAMES.map((n, i) => c[i] ? n + " " + c[i] : "").filter(Boolean).join(" · ") : "";
  }

  // ---- the page ------------------------------------------------------------------------------
  function mount(container, context) {
    ctx = context;
    installStyle();
    el.status = h("div", {class: "muted", role: "status"});
    el.run = h("select", {"aria-label": "Debugger run", on: {change: () => {
      ctx.setState("run", el.run.value); run = el.run.value; page = 0; load(); }}});
    el.graphRun = h("select", {"aria-label": "Graph run for show in graph", on: {change: () =>
      ctx.setState("graphRun", el.graphRun.value)}});
    el.overlay = h("input", {type: "checkbox", id: "dbg2-overlay", on: {change: () => {
      ctx.setState("overlay", el.overlay.checked ? "1" : undefined); loadPills(); }}});
    el.overlay.checked = ctx.getState("overlay") === "1";
    el.step = h("input", {type: "number", min: "0", id: "dbg2-pill-step", placeholder: "last",
      title: "Session.run (execution) whose health the pills show; empty: the latest of each op",
      style: "width:5em", on: {change: () => { ctx.setState("pillStep", el.step.value);
        loadPills(); }}});
    el.step.value = ctx.getState("pillStep") || "";
    el.damage = h("div", {class: "dbg2-damage", hidden: ""});
    el.alerts = h("section", {id: "dbg2-alerts"}, h("h3", {}, "Alerts"));
    el.timeline = h("section", {id: "dbg2-executions"}, h("h3", {}, "Execution timeline"));
    el.traces = h("section", {id: "dbg2-traces"}, h("h3", {}, "Graph executions"));
    el.op = h("section", {id: "dbg2-op"}, h("h3", {}, "Op info"), h("div", {class: "muted"},
      "Click an alert, a trace or an execution."));
    el.stack = h("section", {id: "dbg2-stack"}, h("h3", {}, "Stack trace"));
    el.source = h("section", {id: "dbg2-source"}, h("h3", {}, "Source"));
    container.append(h("div", {class: "dbg2-bar"}, "Run ", el.run, "  Graph run ", el.graphRun,
      "  ", el.overlay, h("label", {for: "dbg2-overlay"}, " health pills on the graph"),
      " at execution ", el.step),
    el.status, el.damage, h("div", {class: "dbg2"},
      h("div", {}, el.alerts, el.timeline, el.traces), h("div", {}, el.op, el.stack, el.source)));
    refresh();
  }

  async function refresh() {
    let runs;
    try { runs = await ctx.fetchJSON(ROUTE + "/runs"); } catch (e) {
      el.status.textContent = "Could not list the debugger runs: " + e.message; return;
    }
    const names = Object.keys(runs).sort();
    el.status.textContent = names.length ? "" : "No DebugEvent dump under the logdir: call " +
      "tf.debugging.experimental.enable_dump_debug_info(logdir + '/debug', 'FULL_HEALTH').";
    const wanted = ctx.getState("run");
    el.run.replaceChildren(...names.map((n) => h("option", {value: n}, n)));
    run = names.includes(wanted) ? wanted : names[0] || null;
    if (run) el.run.value = run;
    try {
      const info = await ctx.fetchJSON("/data/plugin/graphs/info");
      const graphRuns = Object.keys(info).sort();
      el.graphRun.replaceChildren(...graphRuns.map((n) => h("option", {value: n}, n)));
      const g = ctx.getState("graphRun");
      if (graphRuns.includes(g)) el.graphRun.value = g;
    } catch (e) { /* no graphs dashboard data: show in graph still switches tabs */ }
    if (run) await load();
  }

  async function load() {
    try {
      const [alerts, damage] = await Promise.all([get("/alerts"), get("/damage")]);
      showDamage(damage);
      showAlerts(alerts);
      await Promise.all([showTimeline(), showTraces()]);
      if (el.overlay.checked) loadPills();
    } catch (e) {
      el.status.textContent = "Could not load run " + run + ": " + e.message;
    }
  }

  function showDamage(damage) {
    const files = Object.keys(damage);
    el.damage.hidden = !files.length;
    el.damage.replaceChildren(...files.map((f) => h("div", {}, "Damaged file " + f + ": " +
      damage[f] + " (everything readable is shown)")));
  }

  function showAlerts(a) {
    alertTraces = new Set(a.alerts.map((x) => x.graph_execution_trace_index).filter((x) => x !== null));
    alertExecutions = new Set(a.alerts.map((x) => x.execution_index).filter((x) => x !== null));
    const byType = {};
    for (const x of a.alerts) byType[x.op_type] = (byType[x.op_type] || 0) + 1;
    const body = [h("h3", {}, "Alerts: " + a.num_alerts + " inf/nan")];
    if (a.alerts.length) {
      const first = a.alerts[0];
      const where = first.graph_execution_trace_index !== null ?
        "graph execution #" + first.graph_execution_trace_index : "execution #" + first.execution_index;
      body.push(h("div", {class: "dbg2-first", id: "dbg2-first-alert"}, "First: ",
        h("b", {}, first.op_type), " output " + first.output_slot + " at " + where +
        (first.size !== null ? " (" + first.num_neg_inf + " -inf, " + first.num_pos_inf +
          " +inf, " + first.num_nan + " nan of " + first.size + ")" : ""), " ",
        h("button", {type: "button", id: "dbg2-first-open", on: {click: () => openAlert(first)}},
          "inspect")));
      body.push(h("table", {}, h("tr", {}, h("th", {}, "op type"), h("th", {}, "alerts")),
        ...Object.entries(byType).map(([t, n]) => h("tr", {}, h("td", {}, t), h("td", {}, n)))));
    } else {
      body.push(h("div", {class: "muted"}, "No inf or nan seen."));
    }
    el.alerts.replaceChildren(...body);
  }

  async function openAlert(alert) {
    if (alert.graph_execution_trace_index !== null) {
      const i = alert.graph_execution_trace_index;
      page = Math.floor(i / PAGE);
      await showTraces(i);
    } else {
      await showExecution(alert.execution_index);
    }
  }

  async function showTimeline() {
    const d = await get("/execution/digests");
    const bad = alertExecutions;
    const buttons = d.execution_digests.map((x, i) => h("button", {type: "button",
      title: x.op_type + " at " + new Date(x.wall_time * 1000).toISOString(),
      class: bad.has(i) ? "dbg2-bad" : "", on: {click: () => showExecution(i)}}, i + ":" + x.op_type));
    el.timeline.replaceChildren(h("h3", {}, "Execution timeline (" + d.num_digests + ")"),
      h("div", {class: "dbg2-timeline"}, ...buttons));
  }

  async function showExecution(i) {
    const d = await get("/execution/data", {begin: String(i), end: String(i + 1)});
    const x = d.executions[0];
    const values = (x.debug_tensor_values || []).map((v, slot) => h("div", {}, "output " + slot +
      ": " + describe(x.tensor_debug_mode, v), " ", counts(x.tensor_debug_mode, v) ?
      pill(counts(x.tensor_debug_mode, v)) : ""));
    el.op.replaceChildren(h("h3", {}, "Execution #" + i + ": " + x.op_type),
      h("div", {}, "graph " + (x.graph_id || "(eager)") + ", inputs " +
        JSON.stringify(x.input_tensor_ids) + ", outputs " + JSON.stringify(x.output_tensor_ids)),
      ...values);
    await showStack(x.stack_frame_ids);
  }

  async function showTraces(selected) {
    const total = (await get("/graph_execution/digests", {begin: "0", end: "0"})).num_digests;
    const begin = Math.min(page * PAGE, Math.max(0, total - 1));
    const end = Math.min(total, begin + PAGE);
    const data = total ? (await get("/graph_execution/data", {begin: String(begin),
      end: String(end)})).graph_executions.slice(0, end - begin) : [];
    const rows = data.map((t, k) => {
      const i = begin + k;
      const c = counts(t.tensor_debug_mode, t.debug_tensor_value);
      const row = h("tr", {class: "dbg2-row" + (alertTraces.has(i) ? " dbg2-alert" : "") +
        (i === selected ? " dbg2-selected" : ""), "data-index": i, on: {click: () => {
          el.traces.querySelectorAll(".dbg2-selected").forEach((r) => r.classList.remove("dbg2-selected"));
          row.classList.add("dbg2-selected");
          showOp(t.graph_id, t.op_name);
        }}}, h("td", {}, i), h("td", {}, t.op_type || ""), h("td", {}, t.op_name + ":" +
          t.output_slot), h("td", {}, c ? pill(c) : ""), h("td", {}, describe(t.tensor_debug_mode,
          t.debug_tensor_value)));
      return row;
    });
    const pages = Math.max(1, Math.ceil(total / PAGE));
    const nav = h("div", {}, h("button", {type: "button", on: {click: () => { if (page > 0) {
      page--; showTraces(); } }}}, "‹ prev"), " page " + (page + 1) + " of " + pages + " ",
    h("button", {type: "button", on: {click: () => { if (page + 1 < pages) { page++;
      showTraces(); } }}}, "next ›"));
    const legend = h("div", {class: "muted dbg2-legend"}, "health: ", ...PILL_NAMES.flatMap((n, i) =>
      [h("span", {style: "display:inline-block;width:10px;height:10px;margin:0 3px 0 8px;" +
        "background:" + PILL_COLORS[i]}), n]));
    el.traces.replaceChildren(h("h3", {}, "Graph executions (" + total + ")"), legend, nav,
      h("table", {}, h("tr", {}, ...["#", "op type", "tensor", "health", "values"].map((t) =>
        h("th", {}, t))), ...rows));
    if (selected !== undefined) {
      const t = data[selected - begin];
      if (t) await showOp(t.graph_id, t.op_name);
      const row = el.traces.querySelector('tr[data-index="' + selected + '"]');
      if (row) row.scrollIntoView({block: "nearest"});
    }
  }

  function opLink(graphId, name) {
    return h("a", {href: "#", on: {click: (ev) => { ev.preventDefault(); showOp(graphId, name); }}},
      name);
  }

  async function showOp(graphId, opName) {
    let op;
    try { op = await get("/graphs/op_info", {graph_id: graphId, op_name: opName}); } catch (e) {
      el.op.replaceChildren(h("h3", {}, "Op info"), h("div", {class: "error"}, e.message)); return;
    }
    const inputs = op.inputs.map((x) => h("li", {}, opLink(graphId, x.op_name), ":" +
      x.output_slot + (x.data ? " (" + x.data.op_type + ")" : "")));
    const consumers = op.consumers.flatMap((list, slot) => list.map((x) => h("li", {},
      "output " + slot + " → ", opLink(graphId, x.op_name), " input " + x.input_slot +
      (x.data ? " (" + x.data.op_type + ")" : ""))));
    el.op.replaceChildren(h("h3", {}, "Op info"),
      h("div", {id: "dbg2-op-name"}, h("b", {}, op.op_type), " " + op.op_name),
      h("div", {class: "dbg2-links"}, h("button", {type: "button", id: "dbg2-show-in-graph",
        on: {click: () => showInGraph(op.op_name)}}, "show in graph")),
      h("div", {}, "host " + op.host_name + ", outputs " + op.num_outputs + ", tensor ids " +
        JSON.stringify(op.output_tensor_ids)),
      h("div", {}, "Inputs (" + inputs.length + ")"), h("ul", {}, ...inputs),
      h("div", {}, "Consumers (" + consumers.length + ")"), h("ul", {}, ...consumers));
    await showStack(op.stack_frame_ids);
  }

  async function showStack(ids) {
    if (!ids || !ids.length) {
      el.stack.replaceChildren(h("h3", {}, "Stack trace"), h("div", {class: "muted"}, "none recorded"));
      return;
    }
    const frames = (await get("/stack_frames/stack_frames", {stack_frame_ids: ids.join(",")}))
      .stack_frames;
    const items = frames.map(([host, file, line, func]) => h("li", {title: host, on: {click: () =>
      showSource(file, line)}}, file.split("/").pop() + ":" + line + " (" + func + ")"));
    el.stack.replaceChildren(h("h3", {}, "Stack trace (outermost first)"),
      h("ol", {class: "dbg2-frames"}, ...items));
    const last = frames[frames.length - 1];
    await showSource(last[1], last[2]);
  }

  async function showSource(file, line) {
    const list = await get("/source_files/list");
    const index = list.findIndex((x) => x[1] === file);
    const title = h("h3", {}, "Source: " + file + ":" + line);
    if (index < 0) { el.source.replaceChildren(title, h("div", {class: "muted"}, "not recorded"));
      return; }
    const src = await get("/source_files/file", {index: String(index)});
    if (!src.lines.length) {
      el.source.replaceChildren(title, h("div", {class: "muted", id: "dbg2-no-source"},
        "The dump holds no text for this file (not a .py file, or it no longer existed when " +
        "the program ran)."));
      return;
    }
    const box = h("div", {class: "dbg2-source", id: "dbg2-source-text"}, ...src.lines.map((text, i) =>
      h("div", {class: i + 1 === line ? "dbg2-hl" : "", "data-line": i + 1},
        String(i + 1).padStart(5) + "  " + text)));
    el.source.replaceChildren(title, box);
    const hl = box.querySelector(".dbg2-hl");
    if (hl) box.scrollTop = Math.max(0, hl.offsetTop - box.offsetTop - 120);
  }

  // ---- the Graphs dashboard: show a node, overlay health pills ---------------------------------
  function showInGraph(opName) {
    const graphRun = el.graphRun.value;
    const params = new URLSearchParams(window.location.hash.replace(/^#/, ""));
    params.set("tab", "graphs");
    params.set("graphs.graph.node", opName);
    if (graphRun) params.set("graphs.graph.run", graphRun);
    const d = window.lens._dashboards.find((x) => x.id === "graphs");
    window.location.hash = params.toString();  // hashchange: the shell switches tabs
    const S = d && d.S;
    if (!S || !S.ready) return;  // mounting reads graph.run and graph.node from the URL
    S.restoreNode = opName;
    S.ready.then(() => {
      if (graphRun && S.run !== graphRun && S.ui && S.ui.runSel) {
        S.ui.runSel.value = graphRun;
        S.ui.runSel.dispatchEvent(new Event("change"));  // loads it, then reveals restoreNode
        S.restoreNode = opName;
        return;
      }
      const G = window.lensGraph;
      S.restoreNode = null;
      // The Graphs page holds only the scopes it opened: select resolves the op name and
      // fetches the scopes around it.
      if (G && G.select) G.select(S, opName, true);
    });
  }

  async function loadPills() {
    pills = {};
    if (el.overlay.checked && run) {
      const step = el.step.value === "" ? {} : {execution: el.step.value};
      try { pills = (await get("/health_pills", step)).pills; } catch (e) { pills = {}; }
    }
    decorateGraph();
  }

  function decorateGraph() {
    const G = window.lensGraph;
    const S = G && G.current;
    const root = document.getElementById("dashboard-graphs");
    if (!root) return;
    observer.disconnect();
    if (!S) { observer.observe(root, {childList: true, subtree: true}); return; }
    root.querySelectorAll(".dbg2-graph-pill").forEach((n) => n.remove());
    for (const g of root.querySelectorAll(".lg-node.lg-op[data-path]")) {
      const path = g.getAttribute("data-path");
      // An op that is also a scope is drawn as "scope/(leaf)".
      const p = pills[path.replace(/\/\([^/]*\)$/, "") + ":0"];
      const shape = g.querySelector(".lg-shape");
      const c = p && p.counts;
      if (!c || !shape || c[3] === null) continue;
      const x = +shape.getAttribute("cx") - +shape.getAttribute("rx");
      const y = +shape.getAttribute("cy") - +shape.getAttribute("ry") - 8;
      const w = 2 * +shape.getAttribute("rx");
      const total = c.reduce((a, b) => a + b, 0) || 1;
      const bar = document.createElementNS("http://www.w3.org/2000/svg", "g");
      bar.setAttribute("class", "dbg2-graph-pill");
      let at = x;
      c.forEach((n, i) => {
        if (!n) return;
        const r = document.createElementNS("http://www.w3.org/2000/svg", "rect");
        Object.entries({x: at, y: y, width: w * n / total, height: 6, fill: PILL_COLORS[i]})
          .forEach(([k, v]) => r.setAttribute(k, v));
        at += w * n / total;
        bar.append(r);
      });
      const title = document.createElementNS("http://www.w3.org/2000/svg", "title");
      title.textContent = PILL_NAMES.map((n, i) => n + ": " + c[i]).join(", ");
      bar.append(title);
      g.append(bar);
    }
    observer.observe(root, {childList: true, subtree: true});
  }
  // The graph redraws its SVG on every expand or selection: decorate each new drawing.
  const observer = new MutationObserver(() => { if (Object.keys(pills).length) decorateGraph(); });

  const dashboard = {
    id: "debugger_v2", title: "Debugger V2", plugin: "debugger_v2", mount,
    onRunsChanged() {}, onReload() { if (ctx) refresh(); },
  };
  if (window.lens && window.lens.registerDashboard) window.lens.registerDashboard(dashboard);
})();
