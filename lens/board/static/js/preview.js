// A light SVG drawing of a card's traces (lines and filled areas), shown until plotly has
// started: plotly's own start-up costs ~0.8 s of main-thread time, this costs milliseconds.
// It draws the very trace objects later handed to Plotly.react (same x, y, colours, opacity,
// axis types and height).
"use strict";

window.lensPreview = (function () {
  const SVG = "http://www.w3.org/2000/svg";

  // An SVG element with attributes; DOM APIs only, so names from logs stay text.
  function node(name, attrs, parent) {
    const el = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
    if (parent) parent.append(el);
    return el;
  }

  function text(parent, x, y, anchor, content, cls) {
    const el = node("text", {x, y, "text-anchor": anchor, class: cls}, parent);
    el.textContent = content;
    return el;
  }

  // [x, y] per point (Dates as epoch ms, y as log10 on a log axis); null where plotly draws
  // nothing (non-finite values, and non-positive ones on a log axis), which breaks the line.
  function points(trace, logY) {
    const out = new Array(trace.y.length);
    for (let i = 0; i < trace.y.length; i++) {
      const x = trace.x[i] instanceof Date ? trace.x[i].getTime() : trace.x[i];
      const y = trace.y[i];
      const ok = Number.isFinite(x) && Number.isFinite(y) && (!logY || y > 0);
      out[i] = ok ? [x, logY ? Math.log10(y) : y] : null;
    }
    return out;
  }

  function extent(series, k) {
    let lo = Infinity, hi = -Infinity;
    for (const pts of series) for (const p of pts) {
      if (p) { lo = Math.min(lo, p[k]); hi = Math.max(hi, p[k]); }
    }
    return [lo, hi];
  }

  function formatNumber(v) {
    if (Number.isInteger(v) && Math.abs(v) < 1e7) return String(v);
    return String(Number(v.toPrecision(4)));
  }
  function formatDate(ms) {
    const d = new Date(ms);
    const two = (n) => String(n).padStart(2, "0");
    return d.getFullYear() + "-" + two(d.getMonth() + 1) + "-" + two(d.getDate()) + " " +
      two(d.getHours()) + ":" + two(d.getMinutes()) + ":" + two(d.getSeconds());
  }

  // Path data through the points; beyond ~3 points per pixel column only each column's
  // first, min, max and last survive, which looks the same and keeps huge series cheap.
  function pathData(pts, px, py, width) {
    const dense = pts.length > 3 * width;
    const parts = [];
    let pen = "M";
    let column = null;
    const flush = () => {
      if (!column) return;
      const keep = [column.first, column.min, column.max, column.last]
        .filter((p, i, all) => all.indexOf(p) === i).sort((a, b) => a.i - b.i);
      for (const p of keep) { parts.push(pen + p.x.toFixed(1) + "," + p.y.toFixed(1)); pen = "L"; }
      column = null;
    };
    pts.forEach((p, i) => {
      if (!p) { flush(); pen = "M"; return; }
      const pt = {i, x: px(p[0]), y: py(p[1])};
      if (!dense) { parts.push(pen + pt.x.toFixed(1) + "," + pt.y.toFixed(1)); pen = "L"; return; }
      const col = Math.round(pt.x);
      if (column && column.col !== col) flush();
      if (!column) column = {col, first: pt, min: pt, max: pt, last: pt};
      if (pt.y < column.min.y) column.min = pt;
      if (pt.y > column.max.y) column.max = pt;
      column.last = pt;
    });
    flush();
    return parts.join(" ");
  }

  function drawLine(svg, t, pts, px, py, width) {
    const path = node("path", {
      class: "preview-line" + (t.meta && t.meta.raw ? " preview-raw" : ""),
      d: pathData(pts, px, py, width), fill: "none", stroke: t.line.color,
      "stroke-width": t.line.width ?? 2, "stroke-opacity": t.opacity ?? 1,
      "stroke-linejoin": "round", "data-points": pts.filter(Boolean).length}, svg);
    if (t.meta && t.meta.run !== undefined) {
      path.dataset.run = t.meta.run;
      node("title", {}, path).textContent = t.meta.run;
    }
  }

  // A filled area as plotly fills it: the trace's own outline ("toself"), or the band
  // between it and the trace before it ("tonexty").
  function drawArea(svg, t, series, i, px, py) {
    let outline = series[i].filter(Boolean);
    if (t.fill === "tonexty" && i > 0) {
      outline = outline.concat(series[i - 1].filter(Boolean).reverse());
    }
    if (!outline.length) return;
    const d = outline.map((p, k) =>
      (k ? "L" : "M") + px(p[0]).toFixed(1) + "," + py(p[1]).toFixed(1));
    node("path", {class: "preview-area", d: d.join(" ") + " Z", stroke: "none",
      fill: t.fillcolor || t.line.color}, svg);
  }

  // Draw traces (plotly trace objects) into container as an SVG sized like plotly's chart;
  // width: the container's width when the caller knows it (saves a forced layout).
  function draw(container, traces, layout, label, knownWidth) {
    clear(container);
    const logY = layout.yaxis && layout.yaxis.type === "log";
    const dateX = layout.xaxis && layout.xaxis.type === "date";
    const m = layout.margin;
    const width = Math.max(200, knownWidth || container.clientWidth || 400);
    const height = layout.height;
    const svg = node("svg", {class: "lens-preview", width, height, role: "img",
      viewBox: "0 0 " + width + " " + height});
    svg.setAttribute("aria-label", "chart of " + label + " (interactive chart loading)");
    const left = m.l, right = width - m.r, top = m.t, bottom = height - m.b;
    const axes = "M" + left + "," + top + " V" + bottom + " H" + right;
    node("path", {class: "preview-axis", d: axes}, svg);
    const series = traces.map((t) => points(t, logY));
    const [x0, x1] = extent(series, 0);
    const [y0, y1] = extent(series, 1);
    if (Number.isFinite(x0)) {
      // x spans the data exactly; y gets 5% headroom both ways, as plotly pads line charts.
      const pad = (y1 - y0) * 0.05 || Math.abs(y0) * 0.05 || 1;
      const lo = y0 - pad, hi = y1 + pad;
      const px = (x) => x1 === x0 ? (left + right) / 2
        : left + (x - x0) / (x1 - x0) * (right - left);
      const flip = layout.yaxis && layout.yaxis.autorange === "reversed";
      const py = (y) => flip ? top + (y - lo) / (hi - lo) * (bottom - top)
        : bottom - (y - lo) / (hi - lo) * (bottom - top);
      traces.forEach((t, i) => {
        if (t.fill === "toself" || t.fill === "tonexty") drawArea(svg, t, series, i, px, py);
        if (t.mode === "markers") {
          for (const p of series[i]) {
            if (p) node("circle", {class: "preview-marker", cx: px(p[0]), cy: py(p[1]), r: 3,
              fill: t.line.color, "fill-opacity": t.opacity ?? 1}, svg);
          }
        } else if (t.line.width !== 0) drawLine(svg, t, series[i], px, py, right - left);
      });
      const xLabel = (v) => dateX ? formatDate(v) : formatNumber(v);
      const yLabel = (v) => formatNumber(logY ? Math.pow(10, v) : v);
      // Labels at the data's extremes; a single value gets one label, not two on top.
      text(svg, px(x0), bottom + 14, x1 === x0 ? "middle" : "start", xLabel(x0), "tick x-min");
      if (x1 !== x0) text(svg, right, bottom + 14, "end", xLabel(x1), "tick x-max");
      text(svg, left - 4, py(y0) + 4, "end", yLabel(y0), "tick y-min");
      if (y1 !== y0) text(svg, left - 4, py(y1) + 4, "end", yLabel(y1), "tick y-max");
    }
    const title = layout.xaxis && layout.xaxis.title ? layout.xaxis.title.text : "";
    text(svg, (left + right) / 2, height - 6, "middle", title, "axis-title");
    container.append(svg);
    return svg;
  }

  function clear(container) {
    for (const svg of container.querySelectorAll(":scope > svg.lens-preview")) svg.remove();
  }

  return {draw, clear};
})();
