// Profile dashboard: for a run's tagged RunMetadata (a FULL_TRACE Session.run), a trace view
// (one row per device, each op a bar from its start for its duration; drag to zoom) and the
// top ops by time and by memory.
"use strict";

(function () {
  const C = window.lensCharts;
  const ROUTE = "/data/plugin/profile";
  let ctx = null;
  let el = {};
  let index = {};

  function option(value) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = value;
    return o;
  }

  async function render() {
    try {
      index = await ctx.fetchJSON(ROUTE + "/runs");
    } catch (e) {
      el.status.textContent = "Could not list the runs with run metadata: " + e.message;
      return;
    }
    const runs = ctx.selectedRuns().filter((r) => index[r]);
    el.status.textContent = runs.length ? "" : "No selected run has RunMetadata: run a step " +
      "with RunOptions(trace_level=FULL_TRACE) and FileWriter.add_run_metadata.";
    const wantedRun = ctx.getState("run");
    el.run.replaceChildren(...runs.map(option));
    if (runs.includes(wantedRun)) el.run.value = wantedRun;
    fillTags();
    if (runs.length) await load();
  }

  function fillTags() {
    const tags = index[el.run.value] || [];
    const wanted = ctx.getState("tag");
    el.tag.replaceChildren(...tags.map(option));
    el.tag.value = tags.includes(wanted) ? wanted : tags[tags.length - 1] || "";
  }

  async function load() {
    const run = el.run.value, tag = el.tag.value;
    if (!run || !tag) return;
    try {
      const [trace, byTime, byMemory] = await Promise.all([
        ctx.fetchJSON(ROUTE + "/trace", {run, tag}),
        ctx.fetchJSON(ROUTE + "/top_ops", {run, tag, by: "time", limit: "20"}),
        ctx.fetchJSON(ROUTE + "/top_ops", {run, tag, by: "memory", limit: "20"})]);
      el.status.textContent = "";
      drawTable(el.byTime, byTime, "time");
      drawTable(el.byMemory, byMemory, "memory");
      await drawTrace(trace);
    } catch (e) {
      el.status.textContent = "Could not load this step's profile: " + e.message;
    }
  }

  async function drawTrace(trace) {
    const names = trace.devices.map((d) => d.name);
    const data = trace.devices.map((dev, i) => ({
      type: "bar", orientation: "h", name: ctx.escapeHtml(dev.name),
      y: dev.ops.map(() => dev.name), base: dev.ops.map((op) => op.start_us),
      x: dev.ops.map((op) => Math.max(op.duration_us, 0.5)),
      customdata: dev.ops.map((op) => [op.name, op.type, op.duration_us, op.memory_bytes]),
      hovertemplate: "<b>%{customdata[0]}</b> %{customdata[1]}<br>start %{base:.1f} \u00b5s" +
        "<br>duration %{customdata[2]:.1f} \u00b5s<br>memory %{customdata[3]} B<extra></extra>",
      marker: {color: C.tint ? C.tint(["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728"][i % 4], 0.1)
        : undefined, line: {width: 0.5, color: "#333"}}}));
    const layout = C.baseLayout({height: 120 + 60 * names.length, barmode: "overlay",
      hovermode: "closest", margin: {l: 220, r: 10, t: 10, b: 40},
      xaxis: {title: {text: "time since the step's first op (\u00b5s)"}, range: [0, trace.end_us * 1.02]},
      yaxis: {type: "category", categoryarray: names, fixedrange: true, automargin: true},
      dragmode: "zoom", uirevision: el.run.value + "/" + el.tag.value});
    const Plotly = await C.plotlyReady();
    await Plotly.react(el.trace, data, layout, C.PLOT_CONFIG);
    el.trace.dataset.ops = String(trace.devices.reduce((n, d) => n + d.ops.length, 0));
  }

  function drawTable(box, rows, by) {
    const table = document.createElement("table");
    table.className = "profile-table profile-" + by;
    const head = table.createTHead().insertRow();
    for (const text of ["Op", "Type", "Device", "Calls", "Time (\u00b5s)", "Memory (bytes)"]) {
      const th = document.createElement("th");
      th.textContent = text;
      head.append(th);
    }
    const body = table.createTBody();
    for (const r of rows) {
      const row = body.insertRow();
      row.dataset.op = r.name;
      for (const v of [r.name, r.type, r.device, r.calls, r.time_us.toFixed(1), r.memory_bytes]) {
        row.insertCell().textContent = String(v);
      }
    }
    const title = document.createElement("h3");
    title.textContent = by === "time" ? "Top ops by time" : "Top ops by memory";
    box.replaceChildren(title, table);
  }

  window.lens.registerDashboard({
    id: "profile", title: "Profile", plugin: "profile",
    mount(container, context) {
      ctx = context;
      const bar = C.toolbar();
      el.run = document.createElement("select");
      el.run.className = "profile-run";
      el.tag = document.createElement("select");
      el.tag.className = "profile-tag";
      el.run.addEventListener("change", () => { ctx.setState("run", el.run.value); fillTags(); load(); });
      el.tag.addEventListener("change", () => { ctx.setState("tag", el.tag.value); load(); });
      bar.append(C.labelled("Run", el.run), C.labelled("Step", el.tag));
      el.status = document.createElement("div");
      el.status.className = "muted status";
      el.trace = document.createElement("div");
      el.trace.className = "profile-trace";
      const tables = document.createElement("div");
      tables.className = "profile-tables";
      el.byTime = document.createElement("div");
      el.byMemory = document.createElement("div");
      tables.append(el.byTime, el.byMemory);
      container.append(bar, el.status, el.trace, tables);
      render();
    },
    onRunsChanged() { if (ctx) render(); },
    onReload() { if (ctx) return render(); },
  });
})();
