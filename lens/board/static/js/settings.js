// Settings shared by every dashboard, remembered across reloads (localStorage) and, for the
// ones a shared link should carry, kept in the URL hash too (the hash wins when present).
// window.lensSettings: get(name), set(name, value), onChange(fn), isDark(), themeLayout(layout).
"use strict";

window.lensSettings = (function () {
  const STORAGE_KEY = "lens.settings";
  const clamp = (lo, hi, fallback) => (v) => {
    const n = parseFloat(v);
    return Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : fallback;
  };
  const oneOf = (values) => (v) => (values.includes(v) ? v : values[0]);
  const bool = (fallback) => (v) => (v === true || v === "1" || v === "true") ? true :
    (v === false || v === "0" || v === "false") ? false : fallback;
  // name -> [default, parse, URL hash key or null]. Defaults are TensorBoard's.
  const SPEC = {
    xAxis: ["step", oneOf(["step", "relative", "wall"]), "scalars.x"],
    smoothing: [0.6, clamp(0, 0.999, 0.6), "scalars.smoothing"],
    tooltipSort: ["default", oneOf(["default", "ascending", "descending", "nearest"]), null],
    ignoreOutliers: [true, bool(true), null],
    histogramMode: ["offset", oneOf(["offset", "overlay"]), "histograms.mode"],
    histogramAxis: ["step", oneOf(["step", "relative", "wall"]), null],
    imageBrightness: [1, clamp(0, 5, 1), null],
    imageContrast: [1, clamp(0, 5, 1), null],
    imageActualSize: [false, bool(false), null],
    theme: ["auto", oneOf(["auto", "light", "dark"]), null],
    cardWidth: [420, clamp(240, 1600, 420), null],
  };
  const listeners = [];
  let stored = {};
  try { stored = JSON.parse(localStorage.getItem(STORAGE_KEY) || "{}") || {}; } catch (e) { stored = {}; }

  function hashParams() {
    return new URLSearchParams(window.location.hash.replace(/^#/, ""));
  }
  function get(name) {
    const [fallback, parse, urlKey] = SPEC[name];
    if (urlKey) {
      const fromUrl = hashParams().get(urlKey);
      if (fromUrl !== null) return parse(fromUrl);
    }
    return name in stored ? parse(stored[name]) : fallback;
  }
  function set(name, value) {
    const [fallback, parse, urlKey] = SPEC[name];
    const parsed = parse(value);
    const before = get(name);
    stored[name] = parsed;
    try { localStorage.setItem(STORAGE_KEY, JSON.stringify(stored)); } catch (e) { /* private mode */ }
    if (urlKey) {
      const params = hashParams();
      if (parsed === fallback) params.delete(urlKey); else params.set(urlKey, String(parsed));
      const hash = params.toString();
      history.replaceState(null, "", hash ? "#" + hash : window.location.pathname);
    }
    if (parsed !== before) emit(name, parsed);
    return parsed;
  }
  function onChange(fn) { listeners.push(fn); }
  const seen = {};  // the value listeners last heard of, per setting
  function emit(name, value) {
    seen[name] = value;
    applyPage(name);
    syncPanel();
    for (const fn of listeners) {
      try { fn(name, value); } catch (e) { console.error(e); }
    }
  }

  // ---- what the page itself shows: theme, image filters, card width ------------------------
  const darkQuery = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function isDark() {
    const theme = get("theme");
    return theme === "dark" || (theme === "auto" && !!(darkQuery && darkQuery.matches));
  }
  // Chart colours of the theme, set as plain layout attributes: a plotly template would do
  // the same but costs ~2x per redraw (it is re-applied on every Plotly.react).
  function themeColors() {
    const dark = isDark();
    return {paper: dark ? "#2b2c30" : "#ffffff", text: dark ? "#e8eaed" : "#212121",
      grid: dark ? "#3c4043" : "#e5e5e5", line: dark ? "#5f6368" : "#bdbdbd",
      hover: dark ? "#3c4043" : "#ffffff"};
  }
  // A plotly layout with the theme's colours filled in (the layout's own colours win).
  function themeLayout(layout) {
    const c = themeColors();
    layout.paper_bgcolor = layout.paper_bgcolor || c.paper;
    layout.plot_bgcolor = layout.plot_bgcolor || c.paper;
    layout.font = Object.assign({color: c.text}, layout.font || {});
    for (const key of ["xaxis", "yaxis"]) {
      layout[key] = Object.assign({gridcolor: c.grid, zerolinecolor: c.line, linecolor: c.line},
        layout[key] || {});
    }
    layout.hoverlabel = Object.assign({bgcolor: c.hover, font: {color: c.text}}, layout.hoverlabel || {});
    return layout;
  }
  // The same colours as a Plotly.relayout update, for charts already drawn.
  function themeUpdate() {
    const c = themeColors();
    return {paper_bgcolor: c.paper, plot_bgcolor: c.paper, "font.color": c.text,
      "xaxis.gridcolor": c.grid, "yaxis.gridcolor": c.grid, "xaxis.zerolinecolor": c.line,
      "yaxis.zerolinecolor": c.line, "xaxis.linecolor": c.line, "yaxis.linecolor": c.line,
      "hoverlabel.bgcolor": c.hover, "hoverlabel.font.color": c.text};
  }
  function applyPage(name) {
    const root = document.documentElement;
    if (!name || name === "theme") root.dataset.theme = isDark() ? "dark" : "light";
    if (!name || name.startsWith("image")) {
      root.style.setProperty("--image-filter",
        "brightness(" + get("imageBrightness") + ") contrast(" + get("imageContrast") + ")");
      root.classList.toggle("image-actual-size", get("imageActualSize"));
    }
    if (!name || name === "cardWidth") root.style.setProperty("--card-min", get("cardWidth") + "px");
    if (name === "theme" && window.Plotly) {
      // Recolour every chart on the page at once; later redraws carry the colours themselves.
      const update = themeUpdate();
      for (const el of document.querySelectorAll(".js-plotly-plot")) window.Plotly.relayout(el, update);
    }
  }
  if (darkQuery && darkQuery.addEventListener) {
    darkQuery.addEventListener("change", () => { if (get("theme") === "auto") emit("theme", "auto"); });
  }
  applyPage();
  for (const name of Object.keys(SPEC)) seen[name] = get(name);

  // ---- the panel --------------------------------------------------------------------------
  const controls = {};  // name -> {read(), write(value)}
  function field(label, control, name) {
    const row = document.createElement("label");
    row.className = "setting-row";
    const text = document.createElement("span");
    text.textContent = label;
    row.append(text, control);
    control.classList.add("setting-" + name);
    return row;
  }
  function selectControl(name, options) {
    const el = document.createElement("select");
    for (const [value, text] of options) {
      const o = document.createElement("option");
      o.value = value; o.textContent = text;
      el.append(o);
    }
    el.addEventListener("change", () => set(name, el.value));
    controls[name] = {write: (v) => { el.value = v; }};
    return el;
  }
  function checkControl(name) {
    const el = document.createElement("input");
    el.type = "checkbox";
    el.addEventListener("change", () => set(name, el.checked));
    controls[name] = {write: (v) => { el.checked = v; }};
    return el;
  }
  function rangeControl(name, min, max, step, format) {
    const box = document.createElement("span");
    box.className = "setting-range";
    const el = document.createElement("input");
    el.type = "range"; el.min = min; el.max = max; el.step = step;
    const out = document.createElement("output");
    el.addEventListener("input", () => set(name, el.value));
    controls[name] = {write: (v) => { el.value = String(v); out.textContent = format(v); }};
    box.append(el, out);
    return box;
  }
  function buildPanel(panel) {
    const title = document.createElement("h2");
    title.textContent = "Settings";
    const pct = (v) => Math.round(v * 100) + "%";
    panel.append(title,
      heading("Scalars"),
      field("Horizontal axis", selectControl("xAxis",
        [["step", "Step"], ["relative", "Relative"], ["wall", "Wall"]]), "xAxis"),
      field("Smoothing", rangeControl("smoothing", 0, 0.999, 0.001, (v) => String(v)), "smoothing"),
      field("Tooltip sorting", selectControl("tooltipSort", [["default", "Default"],
        ["ascending", "Ascending"], ["descending", "Descending"], ["nearest", "Nearest"]]), "tooltipSort"),
      field("Ignore outliers in chart scaling", checkControl("ignoreOutliers"), "ignoreOutliers"),
      heading("Histograms"),
      field("Mode", selectControl("histogramMode", [["offset", "Offset"], ["overlay", "Overlay"]]),
        "histogramMode"),
      field("Offset time axis", selectControl("histogramAxis",
        [["step", "Step"], ["relative", "Relative"], ["wall", "Wall"]]), "histogramAxis"),
      heading("Images"),
      field("Brightness", rangeControl("imageBrightness", 0, 5, 0.05, pct), "imageBrightness"),
      field("Contrast", rangeControl("imageContrast", 0, 5, 0.05, pct), "imageContrast"),
      field("Show actual image size", checkControl("imageActualSize"), "imageActualSize"),
      heading("Layout"),
      field("Card width", rangeControl("cardWidth", 240, 1600, 20, (v) => v + " px"), "cardWidth"),
      field("Theme", selectControl("theme", [["auto", "System"], ["light", "Light"], ["dark", "Dark"]]),
        "theme"));
    const reset = document.createElement("button");
    reset.type = "button";
    reset.className = "settings-reset";
    reset.textContent = "Reset to defaults";
    reset.addEventListener("click", () => {
      for (const name of Object.keys(SPEC)) set(name, SPEC[name][0]);
    });
    panel.append(reset);
    syncPanel();
  }
  function heading(text) {
    const h = document.createElement("h3");
    h.textContent = text;
    return h;
  }
  function syncPanel() {
    for (const [name, c] of Object.entries(controls)) c.write(get(name));
  }
  document.addEventListener("DOMContentLoaded", () => {
    const panel = document.getElementById("settings-panel");
    const toggle = document.getElementById("settings-toggle");
    if (!panel || !toggle) return;
    buildPanel(panel);
    toggle.addEventListener("click", () => {
      panel.hidden = !panel.hidden;
      toggle.setAttribute("aria-expanded", String(!panel.hidden));
      window.dispatchEvent(new Event("resize"));  // charts refit the narrower/wider page
    });
    // A hand-edited URL (a shared link pasted in) may change hash-backed settings.
    window.addEventListener("hashchange", () => {
      for (const name of Object.keys(SPEC)) {
        if (SPEC[name][2] && get(name) !== seen[name]) emit(name, get(name));
      }
    });
  });

  return {get, set, onChange, isDark, themeLayout, themeUpdate, names: () => Object.keys(SPEC)};
})();
