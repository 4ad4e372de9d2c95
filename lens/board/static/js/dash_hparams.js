// HParams dashboard: every session group in a table (sort by a column header, filter by hparam
// values and metric ranges, all done by the server's session_groups route), a parallel
// coordinates view and a scatter matrix (plotly); clicking a group shows its metric curves.
"use strict";

(function () {
  const C = window.lensCharts;
  const ROUTE = "/data/plugin/hparams";
  const STATUSES = ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"];
  let ctx = null;
  let experiment = null;
  let groups = [];
  let columns = [];            // [{key, label, hparam?|metric?, info}]
  let el = {};                 // the page's parts
  const filters = {};          // column key -> {values: Set} | {min, max} | {regex}
  let selected = null;         // name of the group whose curves are shown

  function post(route, body) {
    return ctx.fetchJSON(ROUTE + route, null, {method: "POST", body: JSON.stringify(body),
      headers: {"Content-Type": "application/json"}});
  }

  // Filters live in the URL too (hparams.filters), so a filtered view can be shared.
  function saveFilters() {
    const plain = {};
    for (const [key, f] of Object.entries(filters)) plain[key] = f.values ? {values: [...f.values]} : f;
    ctx.setState("filters", Object.keys(plain).length ? JSON.stringify(plain) : undefined);
  }
  function loadFilters() {
    let plain = {};
    try { plain = JSON.parse(ctx.getState("filters") || "{}"); } catch (e) { plain = {}; }
    for (const [key, f] of Object.entries(plain)) filters[key] = f.values ? {values: new Set(f.values)} : f;
  }

  function metricKey(name) { return "m:" + (name.group || "") + "/" + name.tag; }
  function sortState() {
    try { return JSON.parse(ctx.getState("sort") || "null"); } catch (e) { return null; }
  }

  function buildColumns() {
    columns = [];
    for (const h of experiment.hparamInfos || []) {
      columns.push({key: "h:" + h.name, label: h.displayName || h.name, hparam: h.name, info: h});
    }
    for (const m of experiment.metricInfos || []) {
      const label = m.displayName || (m.name.group ? m.name.group + "/" : "") + m.name.tag;
      columns.push({key: metricKey(m.name), label, metric: m.name, info: m});
    }
  }

  function colParam(col) {
    const out = col.hparam !== undefined ? {hparam: col.hparam} : {metric: col.metric};
    const sort = sortState();
    if (sort && sort.key === col.key) out.order = sort.desc ? "ORDER_DESC" : "ORDER_ASC";
    const f = filters[col.key];
    if (f && f.values) out.filterDiscrete = [...f.values];
    else if (f && f.regex) out.filterRegexp = f.regex;
    else if (f && (f.min !== undefined || f.max !== undefined)) {
      out.filterInterval = {minValue: f.min ?? -1e308, maxValue: f.max ?? 1e308};
    }
    return out;
  }

  async function render() {
    try {
      experiment = await post("/experiment", {experimentName: ""});
      buildColumns();
      renderFilters();
      const response = await post("/session_groups", {experimentName: "",
        allowedStatuses: STATUSES, colParams: columns.map(colParam), startIndex: 0,
        sliceSize: 1000000});
      groups = response.sessionGroups || [];
      const notes = (experiment.lensErrors || []).concat(response.lensErrors || []);
      el.status.textContent = (columns.length ? groups.length + " of " + response.totalSize +
        " session groups" : "No hparams were written.") + (notes.length ? " " + notes.join(" ") : "");
    } catch (e) {
      el.status.textContent = "Could not load the hparams: " + e.message;
      groups = [];
    }
    drawView();
  }

  // ---- filters --------------------------------------------------------------------------------
  function renderFilters() {
    el.filters.replaceChildren();
    for (const col of columns) {
      const box = document.createElement("fieldset");
      box.className = "hp-filter";
      box.dataset.key = col.key;
      const legend = document.createElement("legend");
      legend.textContent = col.label;
      box.append(legend);
      const info = col.info;
      if (col.hparam !== undefined && info.domainDiscrete) {
        const current = filters[col.key] && filters[col.key].values;
        for (const value of info.domainDiscrete) {
          const label = document.createElement("label");
          const check = document.createElement("input");
          check.type = "checkbox";
          check.checked = !current || current.has(value);
          check.dataset.value = JSON.stringify(value);
          check.addEventListener("change", () => {
            const values = new Set([...box.querySelectorAll("input[type=checkbox]")]
              .filter((c) => c.checked).map((c) => JSON.parse(c.dataset.value)));
            if (values.size === info.domainDiscrete.length) delete filters[col.key];
            else filters[col.key] = {values};
            saveFilters();
            render();
          });
          label.append(check, document.createTextNode(" " + String(value)));
          box.append(label);
        }
      } else if (col.hparam !== undefined && info.type === "DATA_TYPE_STRING") {
        box.append(textInput(col, "regex", "regex"));
      } else {
        box.append(numberInput(col, "min"), numberInput(col, "max"));
      }
      el.filters.append(box);
    }
  }
  function numberInput(col, side) {
    const input = document.createElement("input");
    input.type = "number";
    input.step = "any";
    input.placeholder = side;
    input.className = "hp-" + side;
    const f = filters[col.key];
    if (f && f[side] !== undefined) input.value = String(f[side]);
    input.addEventListener("change", () => {
      const f2 = filters[col.key] || {};
      if (input.value === "") delete f2[side]; else f2[side] = Number(input.value);
      if (f2.min === undefined && f2.max === undefined) delete filters[col.key];
      else filters[col.key] = f2;
      saveFilters();
      render();
    });
    return input;
  }
  function textInput(col, key, placeholder) {
    const input = document.createElement("input");
    input.type = "text";
    input.placeholder = placeholder;
    input.className = "hp-regex";
    if (filters[col.key]) input.value = filters[col.key][key];
    input.addEventListener("change", () => {
      if (input.value) filters[col.key] = {[key]: input.value}; else delete filters[col.key];
      saveFilters();
      render();
    });
    return input;
  }

  // ---- values -----------------------------------------------------------------------------------
  function value(group, col) {
    if (col.hparam !== undefined) return group.hparams ? group.hparams[col.hparam] : undefined;
    const mv = (group.metricValues || []).find((m) => (m.name.group || "") === (col.metric.group || "")
      && m.name.tag === col.metric.tag);
    return mv ? mv.value : undefined;
  }
  function format(v) {
    if (v === undefined || v === null) return "";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(5)));
    return String(v);
  }

  // ---- views ------------------------------------------------------------------------------------
  function drawView() {
    const view = ctx.getState("view") || "table";
    for (const b of el.viewButtons) b.classList.toggle("active", b.dataset.view === view);
    el.table.hidden = view !== "table";
    el.plot.hidden = view === "table";
    if (view === "table") drawTable();
    else drawPlot(view);
    drawCurves();
  }

  function drawTable() {
    const sort = sortState();
    const table = document.createElement("table");
    table.className = "hp-table";
    const head = table.createTHead().insertRow();
    const nameCell = document.createElement("th");
    nameCell.textContent = "Session group";
    head.append(nameCell);
    for (const col of columns) {
      const th = document.createElement("th");
      th.dataset.key = col.key;
      th.className = "hp-sortable";
      const mark = sort && sort.key === col.key ? (sort.desc ? " \u25bc" : " \u25b2") : "";
      th.textContent = col.label + mark;
      th.title = "Sort by " + col.label;
      th.addEventListener("click", () => {
        const now = sortState();
        let next = {key: col.key, desc: false};
        if (now && now.key === col.key) next = now.desc ? null : {key: col.key, desc: true};
        ctx.setState("sort", next ? JSON.stringify(next) : undefined);
        render();
      });
      head.append(th);
    }
    const body = table.createTBody();
    for (const group of groups) {
      const row = body.insertRow();
      row.className = "hp-row" + (group.name === selected ? " selected" : "");
      row.dataset.group = group.name;
      const name = row.insertCell();
      name.textContent = group.name.length > 24 ? group.name.slice(0, 10) + "\u2026" : group.name;
      name.title = group.name + " (" + group.sessions.length + " session(s))";
      for (const col of columns) row.insertCell().textContent = format(value(group, col));
      row.addEventListener("click", () => { selected = group.name; drawView(); });
    }
    el.table.replaceChildren(table);
  }

  // A plotly dimension for a column: numbers as they are, other values as category indices.
  function dimension(col) {
    const raw = groups.map((g) => value(g, col));
    if (raw.every((v) => v === undefined || typeof v === "number")) {
      return {label: col.label, values: raw.map((v) => (v === undefined ? NaN : v))};
    }
    const cats = [...new Set(raw.map(String))].sort();
    return {label: col.label, values: raw.map((v) => cats.indexOf(String(v))),
      tickvals: cats.map((_, i) => i), ticktext: cats, categorical: true};
  }

  async function drawPlot(view) {
    const dims = columns.map(dimension);
    const firstMetric = columns.findIndex((c) => c.metric);
    const color = firstMetric >= 0 ? dims[firstMetric].values : groups.map(() => 0);
    let data;
    let layout = C.baseLayout({height: 420, margin: {l: 60, r: 40, t: 40, b: 30},
      hovermode: "closest"});
    if (view === "parcoords") {
      data = [{type: "parcoords", line: {color, colorscale: "Viridis", showscale: firstMetric >= 0},
        dimensions: dims.map((d) => Object.assign({label: d.label, values: d.values},
          d.tickvals ? {tickvals: d.tickvals, ticktext: d.ticktext} : {}))}];
    } else {
      const numeric = dims.filter((d) => !d.categorical);
      data = [{type: "splom", dimensions: numeric.map((d) => ({label: d.label, values: d.values})),
        text: groups.map((g) => g.name), marker: {color, colorscale: "Viridis", size: 7},
        diagonal: {visible: false}, hovertemplate: "%{text}<extra></extra>"}];
      layout = Object.assign(layout, {height: Math.max(420, 140 * numeric.length), dragmode: "select"});
    }
    try {
      const Plotly = await C.plotlyReady();
      await Plotly.react(el.plot, data, layout, C.PLOT_CONFIG);
      el.plot.dataset.view = view;
      if (!el.plot.dataset.clicks) {
        el.plot.dataset.clicks = "1";
        el.plot.on("plotly_click", (ev) => {
          const point = ev.points && ev.points[0];
          if (point && groups[point.pointIndex]) { selected = groups[point.pointIndex].name; drawCurves(); }
        });
      }
    } catch (e) {
      el.status.textContent = e.message;
    }
  }

  // ---- the selected group's metric curves --------------------------------------------------
  async function drawCurves() {
    const group = groups.find((g) => g.name === selected);
    el.curves.replaceChildren();
    if (!group) return;
    const title = document.createElement("h3");
    title.textContent = "Session group " + group.name;
    el.curves.append(title);
    for (const col of columns.filter((c) => c.metric)) {
      const card = C.card(col.label);
      card.classList.add("hp-curve-card");
      card.dataset.key = col.key;
      const plot = document.createElement("div");
      plot.className = "plot";
      card.append(plot);
      el.curves.append(card);
      const data = [];
      for (const session of group.sessions) {
        try {
          const rows = await post("/metric_evals", {experimentName: "", sessionName: session.name,
            metricName: col.metric});
          data.push({type: "scatter", mode: "lines+markers", x: rows.map((r) => r[1]),
            y: rows.map((r) => C.toNumber(r[2])), name: ctx.escapeHtml(session.name),
            line: {color: ctx.runColor(session.name)}});
        } catch (e) { /* this session did not record the metric */ }
      }
      const Plotly = await C.plotlyReady();
      await Plotly.react(plot, data, C.baseLayout({xaxis: {title: {text: "step"}}}), C.PLOT_CONFIG);
      card.dataset.traces = String(data.length);
    }
  }

  function mountPage(container) {
    const bar = C.toolbar();
    el.viewButtons = [["table", "Table"], ["parcoords", "Parallel coordinates"],
      ["splom", "Scatter matrix"]].map(([view, text]) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "hp-view";
      b.dataset.view = view;
      b.textContent = text;
      b.addEventListener("click", () => { ctx.setState("view", view === "table" ? undefined : view); drawView(); });
      return b;
    });
    bar.append(...el.viewButtons);
    el.status = document.createElement("div");
    el.status.className = "muted status hp-status";
    const body = document.createElement("div");
    body.className = "hp-body";
    el.filters = document.createElement("div");
    el.filters.className = "hp-filters";
    const main = document.createElement("div");
    main.className = "hp-main";
    el.table = document.createElement("div");
    el.table.className = "hp-table-wrap";
    el.plot = document.createElement("div");
    el.plot.className = "hp-plot";
    el.curves = document.createElement("div");
    el.curves.className = "hp-curves";
    main.append(el.table, el.plot, el.curves);
    body.append(el.filters, main);
    container.append(bar, el.status, body);
  }

  window.lens.registerDashboard({
    id: "hparams", title: "HParams", plugin: "hparams",
    mount(container, context) {
      ctx = context;
      loadFilters();
      mountPage(container);
      render();
    },
    onReload() { if (ctx) return render(); },
  });
})();
