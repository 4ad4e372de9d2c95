// Custom scalars dashboard: the layout's categories of multiline charts (every scalar tag a
// chart's regexes match, one line per run and tag) and margin charts (a value line inside its
// lower/upper band). Beyond TensorBoard: multiline charts defined here by regex, kept in the URL.
"use strict";

(function () {
  const C = window.lensCharts;
  const ROUTE = "/data/plugin/custom_scalars";
  let ctx = null;
  let statusEl = null;
  let sectionsEl = null;
  let regexInput = null;
  const openCategories = new Map();  // title -> open?

  function pageCharts() {
    try { return JSON.parse(ctx.getState("charts") || "[]"); } catch (e) { return []; }
  }
  function setPageCharts(list) {
    ctx.setState("charts", list.length ? JSON.stringify(list) : undefined);
    render();
  }

  function buildToolbar(container) {
    const bar = C.toolbar();
    regexInput = document.createElement("input");
    regexInput.type = "text";
    regexInput.className = "cs-regex";
    regexInput.placeholder = "Tag regex for a new chart, e.g. loss/.*";
    const add = document.createElement("button");
    add.type = "button";
    add.className = "cs-add";
    add.textContent = "Add chart";
    const error = document.createElement("span");
    error.className = "error cs-regex-error";
    const submit = () => {
      const text = regexInput.value.trim();
      if (!text) return;
      try { new RegExp(text); } catch (e) { error.textContent = "Invalid regex: " + e.message; return; }
      error.textContent = "";
      regexInput.value = "";
      setPageCharts(pageCharts().concat([text]));
    };
    add.addEventListener("click", submit);
    regexInput.addEventListener("keydown", (ev) => { if (ev.key === "Enter") submit(); });
    bar.append(regexInput, add, error);
    statusEl = document.createElement("div");
    statusEl.className = "muted status";
    container.append(bar, statusEl);
  }

  async function render() {
    let layout;
    try {
      layout = await ctx.fetchJSON(ROUTE + "/layout");
    } catch (e) {
      statusEl.textContent = "Could not load the custom scalars layout: " + e.message;
      layout = {};
    }
    const notes = (layout.lensErrors || []).slice();
    const categories = (layout.category || []).slice();
    const mine = pageCharts();
    if (mine.length) {
      categories.unshift({title: "Charts defined here", closed: false, own: true,
        chart: mine.map((regex) => ({title: regex, multiline: {tag: [regex]}, own: true}))});
    }
    if (!categories.length) notes.push("No layout was written (lens.plugins.custom_scalar.pb); " +
      "define charts by tag regex above.");
    statusEl.textContent = notes.join(" ");
    sectionsEl.replaceChildren();
    const runs = ctx.selectedRuns();
    const draws = [];
    for (const category of categories) {
      const details = document.createElement("details");
      details.className = "group cs-category";
      details.dataset.title = category.title;
      const open = openCategories.has(category.title) ? openCategories.get(category.title)
        : !category.closed;
      details.open = open;
      details.addEventListener("toggle", () => openCategories.set(category.title, details.open));
      const summary = document.createElement("summary");
      summary.textContent = category.title || "(untitled)";
      const grid = document.createElement("div");
      grid.className = "cards";
      details.append(summary, grid);
      for (const chart of category.chart || []) {
        const card = makeCard(chart);
        grid.append(card.el);
        draws.push(drawCard(card, runs));
      }
      sectionsEl.append(details);
    }
    await Promise.all(draws);
  }

  function makeCard(chart) {
    const kind = chart.margin ? "margin" : "multiline";
    const el = C.card(chart.title || (chart.multiline ? chart.multiline.tag.join(", ") : ""));
    el.classList.add("cs-card", "cs-" + kind);
    el.dataset.title = chart.title || "";
    if (chart.own) {
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "cs-remove";
      remove.textContent = "\u00d7";
      remove.title = "Remove this chart";
      remove.addEventListener("click", () => setPageCharts(pageCharts().filter((r) => r !== chart.title)));
      el.querySelector(".card-title").append(" ", remove);
    }
    const plot = document.createElement("div");
    plot.className = "plot";
    const note = document.createElement("div");
    note.className = "card-note muted";
    el.append(plot, note);
    return {el, plot, note, chart, kind};
  }

  async function fetchMatching(run, regex) {
    const body = await ctx.fetchJSON(ROUTE + "/scalars", {run, tag: regex});
    if (!body.regex_valid) throw new Error("invalid regex " + regex);
    return body.tag_to_events;
  }

  function escapeRegex(text) {
    return "^" + text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "$";
  }

  async function multilineTraces(card, runs) {
    const out = [];
    for (const run of runs) {
      const seen = new Map();
      for (const regex of card.chart.multiline.tag || []) {
        const events = await fetchMatching(run, regex);
        for (const [tag, rows] of Object.entries(events)) seen.set(tag, rows);
      }
      const tags = [...seen.keys()].sort();
      tags.forEach((tag, i) => {
        const rows = seen.get(tag);
        out.push({type: "scatter", mode: "lines", x: rows.map((r) => r[1]),
          y: rows.map((r) => C.toNumber(r[2])), name: ctx.escapeHtml(run + ": " + tag),
          meta: {run, tag}, line: {color: ctx.runColor(run), width: 1.5,
            dash: ["solid", "dash", "dot", "dashdot", "longdash"][i % 5]}});
      });
    }
    return out;
  }

  async function marginTraces(card, runs) {
    const out = [];
    for (const run of runs) {
      for (const series of card.chart.margin.series || []) {
        const [value, lower, upper] = await Promise.all([series.value, series.lower,
          series.upper].map((tag) => fetchMatching(run, escapeRegex(tag)).then((e) => e[tag] || [])));
        if (!value.length) continue;
        const color = ctx.runColor(run);
        const band = C.tint ? C.tint(color, 0.7) : color;
        const xs = (rows) => rows.map((r) => r[1]);
        const ys = (rows) => rows.map((r) => C.toNumber(r[2]));
        out.push({type: "scatter", mode: "lines", x: xs(lower), y: ys(lower), hoverinfo: "skip",
          line: {width: 0, color: band}, showlegend: false, meta: {run, role: "lower"}});
        out.push({type: "scatter", mode: "lines", x: xs(upper), y: ys(upper), fill: "tonexty",
          fillcolor: band, opacity: 0.4, hoverinfo: "skip", line: {width: 0, color: band},
          showlegend: false, meta: {run, role: "upper"}});
        out.push({type: "scatter", mode: "lines", x: xs(value), y: ys(value),
          name: ctx.escapeHtml(run + ": " + series.value), line: {color, width: 1.5},
          customdata: value.map((r, i) => [lower[i] ? lower[i][2] : null, upper[i] ? upper[i][2] : null]),
          hovertemplate: "%{y:.4g} [%{customdata[0]:.4g}, %{customdata[1]:.4g}] step %{x}",
          meta: {run, role: "value", tag: series.value}});
      }
    }
    return out;
  }

  async function drawCard(card, runs) {
    let data = [];
    try {
      data = card.kind === "margin" ? await marginTraces(card, runs) : await multilineTraces(card, runs);
      card.note.textContent = data.length ? "" : "No scalar tags of the selected runs match.";
    } catch (e) {
      card.note.textContent = "Could not load this chart: " + e.message;
    }
    const layout = C.baseLayout({xaxis: {title: {text: "step"}}, hovermode: "x unified"});
    try {
      const Plotly = await C.plotlyReady();
      await Plotly.react(card.plot, data, layout, C.PLOT_CONFIG);
      card.el.dataset.traces = String(data.length);
    } catch (e) {
      card.note.textContent = e.message;
    }
  }

  window.lens.registerDashboard({
    id: "custom_scalars", title: "Custom Scalars", plugin: "custom_scalars",
    mount(container, context) {
      ctx = context;
      buildToolbar(container);
      sectionsEl = document.createElement("div");
      sectionsEl.className = "cs-sections";
      container.append(sectionsEl);
      render();
    },
    onRunsChanged() { if (ctx) render(); },
    onReload() { if (ctx) return render(); },
  });
})();
