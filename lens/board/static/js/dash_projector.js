// Embedding projector: a run's embeddings projected to 2D/3D (PCA on the server in NumPy, t-SNE
// or UMAP when installed), coloured and labelled by a metadata column, searched by regex; a
// clicked point lists its nearest neighbours (cosine, over the full tensor) and its sprite image;
// 2D views draw the sprites as the points (proj_sprites.js); bookmarks save and restore named
// views (proj_bookmarks.js).
"use strict";

(function () {
  const C = window.lensCharts;
  const B = window.lensProjBookmarks;
  const SP = window.lensProjSprites;
  const ROUTE = "/data/plugin/projector";
  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f", "#bcbd22", "#17becf"];
  const NEIGHBOURS = 10;
  let ctx = null;
  let el = {};
  let state = {runs: [], info: null, tensor: null, dims: 0, meta: null, points: null, selected: -1};

  function option(value, text) {
    const o = document.createElement("option");
    o.value = value;
    o.textContent = text;
    return o;
  }

  function fillSelect(select, values, wanted) {
    select.replaceChildren(...values.map(([v, t]) => option(v, t)));
    if (values.some(([v]) => v === wanted)) select.value = wanted;
  }

  async function fetchBytes(path) {
    const response = await fetch(path);
    if (!response.ok) {
      let message = response.status + " " + response.statusText;
      try { message = (await response.json()).error || message; } catch (e) { /* not JSON */ }
      throw new Error(message);
    }
    return response;
  }

  // Metadata TSV: one column without a header, or a header row and several columns.
  function parseMetadata(text) {
    const lines = text.split("\n");
    if (lines.length && lines[lines.length - 1] === "") lines.pop();
    if (!lines.length) return {columns: [], rows: []};
    if (lines[0].includes("\t")) {
      return {columns: lines[0].split("\t"), rows: lines.slice(1).map((l) => l.split("\t"))};
    }
    return {columns: ["label"], rows: lines.map((l) => [l])};
  }

  async function render() {
    let problems = {runs: {}, embeddings: {}};
    try {
      [state.runs, problems] = await Promise.all([ctx.fetchJSON(ROUTE + "/runs"),
        ctx.fetchJSON(ROUTE + "/problems")]);
    } catch (e) {
      el.status.textContent = "Could not load the projector's runs: " + e.message;
      return;
    }
    showProblems(problems);
    el.status.textContent = state.runs.length ? "" : "No embeddings: write a projector_config.pbtxt " +
      "(lens.plugins.projector.visualize_embeddings) beside a checkpoint.";
    fillSelect(el.run, state.runs.map((r) => [r, r]), ctx.getState("run"));
    if (state.runs.length) await loadRun();
  }

  function showProblems(problems) {
    const items = [];
    for (const [run, message] of Object.entries(problems.runs || {})) items.push(run + ": " + message);
    for (const [run, list] of Object.entries(problems.embeddings || {})) {
      for (const p of list) items.push(run + " / " + p.tensor + ": " + p.error);
    }
    el.problems.replaceChildren(...items.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    }));
    el.problems.hidden = !items.length;
  }

  async function loadRun() {
    ctx.setState("run", el.run.value);
    try {
      state.info = await ctx.fetchJSON(ROUTE + "/info", {run: el.run.value});
    } catch (e) {
      el.status.textContent = e.message;
      return;
    }
    const names = (state.info.embeddings || []).map((e) => [e.tensorName,
      e.tensorName + (e.tensorShape ? " [" + e.tensorShape.join(" x ") + "]" : "")]);
    fillSelect(el.tensor, names, ctx.getState("tensor"));
    await loadTensor();
  }

  function embedding() {
    return (state.info.embeddings || []).find((e) => e.tensorName === el.tensor.value) || {};
  }

  async function loadTensor() {
    ctx.setState("tensor", el.tensor.value);
    const info = embedding();
    const q = new URLSearchParams({run: el.run.value, name: el.tensor.value}).toString();
    state.tensor = null; state.meta = null; state.points = null; state.selected = -1;
    el.note.textContent = "";
    el.neighbours.replaceChildren();
    el.sprite.hidden = true;
    try {
      const buffer = await (await fetchBytes(ROUTE + "/tensor?" + q)).arrayBuffer();
      state.tensor = new Float32Array(buffer);
      state.dims = (info.tensorShape && info.tensorShape[1]) || 1;
    } catch (e) {
      el.status.textContent = "Could not load tensor " + el.tensor.value + ": " + e.message;
      C.purge(el.plot);
      el.root.dataset.points = "0";
      return;
    }
    el.status.textContent = "";
    const n = state.tensor.length / state.dims;
    if (info.metadataPath) {
      try {
        const meta = parseMetadata(await (await fetchBytes(ROUTE + "/metadata?" + q)).text());
        if (meta.rows.length !== n) {
          el.note.textContent = "Metadata " + info.metadataPath + " has " + meta.rows.length +
            " rows but the tensor has " + n + " points: labels and colours are off for this embedding.";
        } else {
          state.meta = meta;
        }
      } catch (e) {
        el.note.textContent = "Could not load metadata: " + e.message;
      }
    }
    const columns = state.meta ? state.meta.columns.map((c, i) => [String(i), c]) : [];
    fillSelect(el.colorBy, [["", "(none)"]].concat(columns), ctx.getState("color"));
    fillSelect(el.labelBy, [["", "(index)"]].concat(columns), ctx.getState("label") || (columns.length ? "0" : ""));
    state.spriteImage = null;
    el.spritesBox.hidden = true;
    if (info.sprite && info.sprite.imagePath) loadSprite(q, info.sprite);
    el.bookmarks.reload();
    await project();
  }

  function loadSprite(q, sprite) {
    const img = new Image();
    img.onload = () => {
      if (state.spriteSrc !== img.src) return;  // another tensor was chosen meanwhile
      state.spriteImage = img;
      state.spriteDim = sprite.singleImageDim || [0, 0];
      el.spritesBox.hidden = false;
      drawSprites();
    };
    img.src = ROUTE + "/sprite_image?" + q;
    state.spriteSrc = img.src;
  }

  // The sprites over a 2D chart when asked for (and the sheet is loaded), else nothing.
  function drawSprites() {
    const two = state.points && state.points.length && state.points[0].length === 2;
    if (two && el.sprites.checked && state.spriteImage && el.plot._fullLayout) {
      SP.draw(el.plot, state.points, state.spriteImage, state.spriteDim);
    } else {
      SP.clear(el.plot);
    }
  }

  async function project() {
    ctx.setState("method", el.method.value);
    ctx.setState("dims", el.dimsSel.value);
    if (!state.tensor) return;
    try {
      const q = new URLSearchParams({run: el.run.value, name: el.tensor.value, method: el.method.value,
        dims: el.dimsSel.value});
      const response = await fetchBytes(ROUTE + "/projection?" + q.toString());
      const dims = Number(response.headers.get("X-Lens-Dims"));
      const flat = new Float32Array(await response.arrayBuffer());
      state.points = Array.from({length: flat.length / dims}, (_, i) => Array.from(flat.subarray(i * dims, (i + 1) * dims)));
      const variance = response.headers.get("X-Lens-Variance");
      el.variance.textContent = variance ? "variance explained: " +
        variance.split(",").map((v) => (100 * Number(v)).toFixed(1) + "%").join(", ") : "";
    } catch (e) {
      el.status.textContent = e.message;
      return;
    }
    el.status.textContent = "";
    await draw();
  }

  function labelOf(i) {
    const col = el.labelBy.value;
    return state.meta && col !== "" ? state.meta.rows[i][Number(col)] : String(i);
  }

  function colours(n) {
    const col = el.colorBy.value;
    if (!state.meta || col === "") return {color: ctx.runColor(el.run.value)};
    const values = state.meta.rows.map((r) => r[Number(col)]);
    const numbers = values.map(Number);
    if (numbers.every((v) => Number.isFinite(v)) && new Set(values).size > PALETTE.length) {
      return {color: numbers, colorscale: "Viridis", showscale: true};
    }
    const keys = [...new Set(values)];
    return {color: values.map((v) => PALETTE[keys.indexOf(v) % PALETTE.length])};
  }

  function searchMatches() {
    const text = el.search.value;
    if (!text) return null;
    let re;
    try { re = new RegExp(text, "i"); } catch (e) { el.searchInfo.textContent = "bad regex"; return null; }
    const out = new Set();
    const n = state.points.length;
    for (let i = 0; i < n; i++) if (re.test(labelOf(i))) out.add(i);
    el.searchInfo.textContent = out.size + " match" + (out.size === 1 ? "" : "es");
    return out;
  }

  function draw() {
    const pts = state.points;
    const three = pts.length && pts[0].length === 3;
    const n = pts.length;
    const labels = Array.from({length: n}, (_, i) => labelOf(i));
    const marker = Object.assign({size: three ? 3 : 6, opacity: 0.85}, colours(n));
    const base = {mode: "markers", text: labels, hovertemplate: "%{text}<extra></extra>", marker,
      name: "points"};
    const coords = (idx) => ({x: idx.map((i) => pts[i][0]), y: idx.map((i) => pts[i][1]),
      z: three ? idx.map((i) => pts[i][2]) : undefined});
    const all = Array.from({length: n}, (_, i) => i);
    const data = [Object.assign({type: three ? "scatter3d" : "scattergl"}, base, coords(all))];
    const matches = searchMatches();
    if (!el.search.value) el.searchInfo.textContent = "";
    const highlight = matches ? [...matches] : [];
    if (state.selected >= 0) highlight.push(state.selected, ...state.neighbourIdx);
    if (highlight.length) {
      data.push(Object.assign({type: three ? "scatter3d" : "scattergl", mode: "markers+text",
        text: highlight.map(labelOf), textposition: "top center", hoverinfo: "skip", name: "highlight",
        marker: {size: three ? 6 : 11, color: "rgba(0,0,0,0)", line: {color: "#d62728", width: 2}}},
      coords(highlight)));
    }
    const layout = C.baseLayout({height: 520, hovermode: "closest", uirevision: el.run.value + el.tensor.value,
      margin: {l: 30, r: 10, t: 10, b: 30}});
    return C.plotlyReady().then((Plotly) => Plotly.react(el.plot, data, layout, C.PLOT_CONFIG)).then(() => {
      el.root.dataset.points = String(n);
      el.root.dataset.dims = three ? "3" : "2";
      if (!el.plot.dataset.bound) {
        el.plot.dataset.bound = "1";
        el.plot.on("plotly_click", (ev) => {
          const p = ev.points && ev.points[0];
          if (p && p.curveNumber === 0) select(p.pointNumber);
        });
        // Zoom, pan and resizes move the points: the sprites follow.
        el.plot.on("plotly_afterplot", drawSprites);
        el.plot.on("plotly_relayouting", () => SP.hide(el.plot));
      }
      drawSprites();
    }).catch((e) => { el.status.textContent = e.message; });
  }

  // Cosine distance from point i to every other point of the full-dimensional tensor.
  function nearest(i) {
    const d = state.dims;
    const t = state.tensor;
    const n = t.length / d;
    const norm = (k) => { let s = 0; for (let j = 0; j < d; j++) s += t[k * d + j] * t[k * d + j]; return Math.sqrt(s) || 1; };
    const ni = norm(i);
    const out = [];
    for (let k = 0; k < n; k++) {
      if (k === i) continue;
      let dot = 0;
      for (let j = 0; j < d; j++) dot += t[i * d + j] * t[k * d + j];
      out.push([1 - dot / (ni * norm(k)), k]);
    }
    out.sort((a, b) => a[0] - b[0]);
    return out.slice(0, NEIGHBOURS);
  }

  function select(i) {
    state.selected = i;
    const near = nearest(i);
    state.neighbourIdx = near.map(([, k]) => k);
    el.selected.textContent = "Selected: " + labelOf(i) + " (point " + i + ")";
    el.neighbours.replaceChildren(...near.map(([dist, k]) => {
      const li = document.createElement("li");
      li.className = "proj-neighbour";
      li.dataset.index = String(k);
      const thumb = spriteCanvas(k, 24);
      if (thumb) li.append(thumb);
      li.append(document.createTextNode(labelOf(k) + "  (cosine distance " + dist.toFixed(3) + ")"));
      li.addEventListener("click", () => select(k));
      return li;
    }));
    el.root.dataset.selected = String(i);
    drawSprite(i);
    return draw();
  }

  // Point i's image from the sprite sheet (row-major tiles of single_image_dim) into canvas.
  function paintSprite(canvas, i, size) {
    const img = state.spriteImage;
    const [w, h] = state.spriteDim || [0, 0];
    if (!img || !w || !h) return false;
    const perRow = Math.floor(img.naturalWidth / w);
    canvas.width = w; canvas.height = h;
    canvas.style.width = size + "px";
    canvas.getContext("2d").drawImage(img, (i % perRow) * w, Math.floor(i / perRow) * h, w, h, 0, 0, w, h);
    return true;
  }

  function spriteCanvas(i, size) {
    const canvas = document.createElement("canvas");
    canvas.className = "proj-thumb";
    return paintSprite(canvas, i, size) ? canvas : null;
  }

  function drawSprite(i) {
    el.sprite.hidden = !paintSprite(el.sprite, i, Math.max(64, (state.spriteDim || [0])[0]));
  }

  // ---- bookmarks: the view as TensorBoard's State, plus what plotly needs ------------------
  function bookmarkKey() {
    return el.run.value && el.tensor.value ? el.run.value + "\t" + el.tensor.value : null;
  }
  function columnName(select) {
    return state.meta && select.value !== "" ? state.meta.columns[Number(select.value)] : "";
  }
  function camera() {
    const L = el.plot._fullLayout;
    if (!L) return {};
    if (el.root.dataset.dims === "3" && L.scene && L.scene.camera) {
      return {camera: JSON.parse(JSON.stringify(L.scene.camera))};
    }
    return L.xaxis ? {xRange: L.xaxis.range.slice(), yRange: L.yaxis.range.slice()} : {};
  }
  function captureView(label) {
    const view = Object.assign({run: el.run.value, tensor: el.tensor.value,
      dims: el.dimsSel.value, search: el.search.value}, camera());
    const cam = view.camera;
    return {
      label, isSelected: false, selectedProjection: el.method.value,
      selectedColorOptionName: columnName(el.colorBy),
      selectedLabelOption: columnName(el.labelBy),
      selectedPoints: state.selected >= 0 ? [state.selected] : [],
      cameraDef: {orthographic: el.dimsSel.value === "2",
        position: cam ? [cam.eye.x, cam.eye.y, cam.eye.z] : [0, 0, 1],
        target: cam ? [cam.center.x, cam.center.y, cam.center.z] : [0, 0, 0], zoom: 1},
      lens: view,
    };
  }
  function pickColumn(select, name) {
    if (typeof name !== "string") return;
    const at = state.meta ? state.meta.columns.indexOf(name) : -1;
    if (at >= 0) select.value = String(at);
    else if (name === "") select.value = "";
  }
  function usable(select, value) {
    return [...select.options].some((o) => o.value === value && !o.disabled);
  }
  async function applyView(b) {
    const v = b.lens || {};
    if (v.run && v.run !== el.run.value && usable(el.run, v.run)) {
      el.run.value = v.run;
      await loadRun();
    }
    if (v.tensor && v.tensor !== el.tensor.value && usable(el.tensor, v.tensor)) {
      el.tensor.value = v.tensor;
      await loadTensor();
    }
    if (usable(el.method, b.selectedProjection)) el.method.value = b.selectedProjection;
    const dims = v.dims || (b.cameraDef ? (b.cameraDef.orthographic ? "2" : "3") : el.dimsSel.value);
    if (usable(el.dimsSel, dims)) el.dimsSel.value = dims;
    pickColumn(el.colorBy, b.selectedColorOptionName);
    pickColumn(el.labelBy, b.selectedLabelOption);
    ctx.setState("color", el.colorBy.value);
    ctx.setState("label", el.labelBy.value);
    el.search.value = typeof v.search === "string" ? v.search : "";
    state.selected = -1;
    await project();
    const n = state.points ? state.points.length : 0;
    const picked = (b.selectedPoints || []).find((i) => Number.isInteger(i) && i >= 0 && i < n);
    if (picked !== undefined) await select(picked);
    const Plotly = window.Plotly;
    if (Plotly && v.camera && el.root.dataset.dims === "3") {
      await Plotly.relayout(el.plot, {"scene.camera": v.camera});
    } else if (Plotly && v.xRange && v.yRange && el.root.dataset.dims === "2") {
      await Plotly.relayout(el.plot, {"xaxis.range": v.xRange, "yaxis.range": v.yRange});
    }
    el.root.dataset.bookmark = b.label || "";
  }
  async function serverBookmarks() {
    if (!embedding().bookmarksPath) return [];
    const q = new URLSearchParams({run: el.run.value, name: el.tensor.value});
    return (await fetchBytes(ROUTE + "/bookmarks?" + q)).json();
  }

  function build(container) {
    const bar = C.toolbar();
    el.run = document.createElement("select");
    el.run.className = "proj-run";
    el.tensor = document.createElement("select");
    el.tensor.className = "proj-tensor";
    el.method = C.select([["pca", "PCA"], ["tsne", "t-SNE"], ["umap", "UMAP"]], ctx.getState("method") || "pca");
    el.method.className = "proj-method";
    el.dimsSel = C.select([["3", "3D"], ["2", "2D"]], ctx.getState("dims") || "3");
    el.dimsSel.className = "proj-dims";
    el.colorBy = document.createElement("select");
    el.colorBy.className = "proj-color";
    el.labelBy = document.createElement("select");
    el.labelBy.className = "proj-label";
    el.search = document.createElement("input");
    el.search.type = "search";
    el.search.className = "proj-search";
    el.search.placeholder = "search labels (regex)";
    el.searchInfo = document.createElement("span");
    el.searchInfo.className = "muted proj-search-info";
    bar.append(C.labelled("Run", el.run), C.labelled("Tensor", el.tensor), C.labelled("Projection", el.method),
      el.dimsSel, C.labelled("Colour by", el.colorBy), C.labelled("Label by", el.labelBy), el.search,
      el.searchInfo);
    el.status = document.createElement("div");
    el.status.className = "muted status";
    el.problems = document.createElement("ul");
    el.problems.className = "error proj-problems";
    el.problems.hidden = true;
    el.note = document.createElement("div");
    el.note.className = "error proj-note";
    el.variance = document.createElement("div");
    el.variance.className = "muted proj-variance";
    const body = document.createElement("div");
    body.className = "proj-body";
    el.plot = document.createElement("div");
    el.plot.className = "plot proj-plot";
    const side = document.createElement("div");
    side.className = "proj-side";
    el.selected = document.createElement("div");
    el.selected.className = "proj-selected";
    el.selected.textContent = "Click a point to see its nearest neighbours.";
    el.sprite = document.createElement("canvas");
    el.sprite.className = "proj-sprite";
    el.sprite.hidden = true;
    el.neighbours = document.createElement("ol");
    el.neighbours.className = "proj-neighbours";
    el.sprites = document.createElement("input");
    el.sprites.type = "checkbox";
    el.sprites.className = "proj-sprites";
    el.sprites.checked = ctx.getState("sprites") !== "0";
    el.spritesBox = C.labelled("Sprites as points (2D)", el.sprites);
    el.spritesBox.hidden = true;
    el.sprites.addEventListener("change", () => {
      ctx.setState("sprites", el.sprites.checked ? undefined : "0");
      drawSprites();
    });
    el.bookmarks = B.panel({key: bookmarkKey, capture: captureView, apply: applyView,
      serverList: serverBookmarks});
    side.append(el.spritesBox, el.bookmarks.root, el.selected, el.sprite, el.neighbours);
    body.append(el.plot, side);
    el.root = document.createElement("div");
    el.root.className = "proj-root";
    el.root.append(bar, el.status, el.problems, el.note, el.variance, body);
    container.append(el.root);
    el.run.addEventListener("change", loadRun);
    el.tensor.addEventListener("change", loadTensor);
    el.method.addEventListener("change", project);
    el.dimsSel.addEventListener("change", project);
    el.colorBy.addEventListener("change", () => { ctx.setState("color", el.colorBy.value); draw(); });
    el.labelBy.addEventListener("change", () => { ctx.setState("label", el.labelBy.value); draw(); });
    el.search.addEventListener("input", () => { if (state.points) draw(); });
    ctx.fetchJSON(ROUTE + "/methods").then((m) => {
      for (const o of el.method.options) {
        if (!m[o.value]) { o.disabled = true; o.textContent += " (pip install lens[projector])"; }
      }
    }).catch(() => {});
  }

  window.lens.registerDashboard({
    id: "projector", title: "Projector", plugin: "projector",
    mount(container, context) {
      ctx = context;
      build(container);
      render();
    },
    onReload() { /* embeddings come from checkpoints: reloading would reset the view */ },
  });
})();
