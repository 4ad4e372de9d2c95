// Mesh dashboard: a card per run and mesh, drawn with plotly's mesh3d (vertex colours) or, for
// a point cloud without faces, scatter3d; a step slider picks the step. A mesh whose faces name
// vertices that do not exist says so on its card instead of drawing.
"use strict";

(function () {
  const C = window.lensCharts;
  const ROUTE = "/data/plugin/mesh";
  const VERTEX = 1, FACE = 2, COLOR = 3;
  let ctx = null;
  let statusEl = null;
  let cardsEl = null;
  const cards = new Map();  // "run\u0000tag" -> card

  async function render() {
    let index;
    try {
      index = await ctx.fetchJSON(ROUTE + "/tags");
    } catch (e) {
      statusEl.textContent = "Could not load meshes: " + e.message;
      return;
    }
    const wanted = [];
    for (const run of ctx.selectedRuns()) {
      for (const tag of Object.keys(index[run] || {}).sort()) wanted.push([run, tag]);
    }
    statusEl.textContent = wanted.length ? "" : "No meshes in the selected runs.";
    cardsEl.replaceChildren();
    for (const [run, tag] of wanted) {
      const key = run + "\u0000" + tag;
      const card = cards.get(key) || makeCard(run, tag);
      cards.set(key, card);
      cardsEl.append(card.el);
    }
    await Promise.all(wanted.map(([run, tag]) => load(cards.get(run + "\u0000" + tag))));
  }

  function makeCard(run, tag) {
    const el = C.card(tag, run);
    el.classList.add("mesh-card");
    el.dataset.run = run;
    el.dataset.tag = tag;
    const controls = document.createElement("div");
    controls.className = "pr-controls";
    const slider = document.createElement("input");
    slider.type = "range";
    slider.className = "mesh-step-slider";
    slider.min = "0";
    const label = document.createElement("span");
    label.className = "mesh-step-label muted";
    controls.append(document.createTextNode("Step "), slider, label);
    const note = document.createElement("div");
    note.className = "card-note error mesh-note";
    const plot = document.createElement("div");
    plot.className = "plot mesh-plot";
    el.append(controls, note, plot);
    const card = {run, tag, el, plot, note, slider, label, steps: [], problems: {}, meta: []};
    slider.addEventListener("input", () => {
      ctx.setState("step." + run + "." + tag, card.steps[Number(slider.value)]);
      draw(card);
    });
    return card;
  }

  async function load(card) {
    const q = {run: card.run, tag: card.tag};
    try {
      [card.meta, card.problems] = await Promise.all([ctx.fetchJSON(ROUTE + "/meshes", q),
        ctx.fetchJSON(ROUTE + "/problems", q)]);
    } catch (e) {
      card.note.textContent = "Could not load this mesh: " + e.message;
      return;
    }
    card.steps = [...new Set(card.meta.map((m) => m.step))].sort((a, b) => a - b);
    card.slider.max = String(Math.max(0, card.steps.length - 1));
    const at = card.steps.indexOf(Number(ctx.getState("step." + card.run + "." + card.tag)));
    card.slider.value = String(at >= 0 ? at : card.steps.length - 1);
    card.slider.disabled = card.steps.length < 2;
    await draw(card);
  }

  async function part(card, step, kind, Type) {
    const q = new URLSearchParams({run: card.run, tag: card.tag, content_type: kind, sample: "0",
      step: String(step)});
    const response = await fetch(ROUTE + "/data?" + q.toString());
    if (!response.ok) throw new Error(kind + ": " + response.status);
    return new Type(await response.arrayBuffer());
  }

  async function draw(card) {
    const step = card.steps[Number(card.slider.value)];
    card.label.textContent = step === undefined ? "" : String(step);
    card.el.dataset.step = step === undefined ? "" : String(step);
    if (step === undefined) return;
    const problem = card.problems[String(step)];
    card.note.textContent = problem ? "Not drawn: " + problem : "";
    card.el.dataset.error = problem ? "1" : "";
    if (problem) { C.purge(card.plot); card.el.dataset.drawn = "0"; return; }
    const components = (card.meta[0] || {}).components || 0;
    const has = (kind) => (components & (1 << kind)) !== 0;
    let vertices, faces = null, colors = null;
    try {
      vertices = await part(card, step, "VERTEX", Float32Array);
      if (has(FACE)) faces = await part(card, step, "FACE", Int32Array);
      if (has(COLOR)) colors = await part(card, step, "COLOR", Uint8Array);
    } catch (e) {
      card.note.textContent = "Could not load this mesh: " + e.message;
      return;
    }
    const n = vertices.length / 3;
    const pick = (arr, off, stride) => Array.from({length: arr.length / stride}, (_, i) => arr[i * stride + off]);
    const xyz = {x: pick(vertices, 0, 3), y: pick(vertices, 1, 3), z: pick(vertices, 2, 3)};
    const rgb = colors && colors.length === 3 * n ?
      Array.from({length: n}, (_, i) => "rgb(" + colors[3 * i] + "," + colors[3 * i + 1] + "," + colors[3 * i + 2] + ")")
      : null;
    let trace;
    if (faces && faces.length) {
      trace = Object.assign({type: "mesh3d", i: pick(faces, 0, 3), j: pick(faces, 1, 3), k: pick(faces, 2, 3),
        flatshading: true, hoverinfo: "x+y+z"}, xyz);
      if (rgb) trace.vertexcolor = rgb; else trace.color = ctx.runColor(card.run);
    } else {
      trace = Object.assign({type: "scatter3d", mode: "markers",
        marker: {size: 3, color: rgb || ctx.runColor(card.run)}}, xyz);
    }
    const layout = C.baseLayout({height: 360, hovermode: "closest", margin: {l: 0, r: 0, t: 0, b: 0},
      uirevision: card.run + card.tag, scene: {aspectmode: "data"}});
    try {
      const Plotly = await C.plotlyReady();
      await Plotly.react(card.plot, [trace], layout, C.PLOT_CONFIG);
      card.el.dataset.drawn = "1";
      card.el.dataset.trace = trace.type;
    } catch (e) {
      card.note.textContent = e.message;
    }
  }

  window.lens.registerDashboard({
    id: "mesh", title: "Mesh", plugin: "mesh",
    mount(container, context) {
      ctx = context;
      [statusEl, cardsEl] = C.statusAndCards();
      container.append(statusEl, cardsEl);
      render();
    },
    onRunsChanged() { if (ctx) render(); },
    onReload() { if (ctx) return render(); },
  });
})();
