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

  // Walk a line through the points: vertex(pen, x, y) per vertex, pen "M" where the line
  // starts again. Beyond ~3 points per pixel column only each column's first, min, max and
  // last survive, which looks the same and keeps huge series cheap.
  function walkLine(pts, px, py, width, vertex) {
    const dense = pts.length > 3 * width;
    let pen = "M";
    let column = null;
    const flush = () => {
      if (!column) return;
      const keep = [column.first, column.min, column.max, column.last]
        .filter((p, i, all) => all.indexOf(p) === i).sort((a, b) => a.i - b.i);
      for (const p of keep) { vertex(pen, p.x, p.y); pen = "L"; }
      column = null;
    };
    pts.forEach((p, i) => {
      if (!p) { flush(); pen = "M"; return; }
      const pt = {i, x: px(p[0]), y: py(p[1])};
      if (!dense) { vertex(pen, pt.x, pt.y); pen = "L"; return; }
      const col = Math.round(pt.x);
      if (column && column.col !== col) flush();
      if (!column) column = {col, first: pt, min: pt, max: pt, last: pt};
      if (pt.y < column.min.y) column.min = pt;
      if (pt.y > column.max.y) column.max = pt;
      column.last = pt;
    });
    flush();
  }
  function pathData(pts, px, py, width) {
    const parts = [];
    walkLine(pts, px, py, width, (pen, x, y) => parts.push(pen + x.toFixed(1) + "," + y.toFixed(1)));
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

  // Where the traces go on a chart of this width, as plotly lays them out: the plot area,
  // each trace's points, their extents and the data -> pixel mappings (px, py; null when
  // there is no finite point).
  function geometry(traces, layout, width) {
    const logY = layout.yaxis && layout.yaxis.type === "log";
    const dateX = layout.xaxis && layout.xaxis.type === "date";
    const m = layout.margin;
    const height = layout.height;
    const g = {logY, dateX, width, height, left: m.l, right: width - m.r, top: m.t,
      bottom: height - m.b, px: null, py: null};
    g.series = traces.map((t) => points(t, logY));
    [g.x0, g.x1] = extent(g.series, 0);
    [g.y0, g.y1] = extent(g.series, 1);
    if (Number.isFinite(g.x0)) {
      const {left, right, top, bottom, x0, x1, y0, y1} = g;
      // x spans the data exactly; y gets 5% headroom both ways, as plotly pads line charts.
      const pad = (y1 - y0) * 0.05 || Math.abs(y0) * 0.05 || 1;
      const lo = y0 - pad, hi = y1 + pad;
      g.px = (x) => x1 === x0 ? (left + right) / 2
        : left + (x - x0) / (x1 - x0) * (right - left);
      const flip = layout.yaxis && layout.yaxis.autorange === "reversed";
      g.py = (y) => flip ? top + (y - lo) / (hi - lo) * (bottom - top)
        : bottom - (y - lo) / (hi - lo) * (bottom - top);
    }
    return g;
  }

  // The axis labels at the data's extremes (a single value gets one label, not two on top):
  // [x, y, anchor, text, class] each.
  function labels(g) {
    const {x0, x1, y0, y1, px, py, right, bottom, left} = g;
    const xLabel = (v) => g.dateX ? formatDate(v) : formatNumber(v);
    const yLabel = (v) => formatNumber(g.logY ? Math.pow(10, v) : v);
    const out = [[px(x0), bottom + 14, x1 === x0 ? "middle" : "start", xLabel(x0), "tick x-min"]];
    if (x1 !== x0) out.push([right, bottom + 14, "end", xLabel(x1), "tick x-max"]);
    out.push([left - 4, py(y0) + 4, "end", yLabel(y0), "tick y-min"]);
    if (y1 !== y0) out.push([left - 4, py(y1) + 4, "end", yLabel(y1), "tick y-max"]);
    return out;
  }

  function chartWidth(container, knownWidth) {
    return Math.max(200, knownWidth || container.clientWidth || 400);
  }

  // Draw traces (plotly trace objects) into container as an SVG sized like plotly's chart;
  // width: the container's width when the caller knows it (saves a forced layout).
  function draw(container, traces, layout, label, knownWidth) {
    clear(container);
    const g = geometry(traces, layout, chartWidth(container, knownWidth));
    const {width, height, left, right, top, bottom, series, px, py} = g;
    const svg = node("svg", {class: "lens-preview", width, height, role: "img",
      viewBox: "0 0 " + width + " " + height});
    svg.setAttribute("aria-label", "chart of " + label + " (interactive chart loading)");
    const axes = "M" + left + "," + top + " V" + bottom + " H" + right;
    node("path", {class: "preview-axis", d: axes}, svg);
    if (px) {
      traces.forEach((t, i) => {
        if (t.fill === "toself" || t.fill === "tonexty") drawArea(svg, t, series, i, px, py);
        if (t.mode === "markers") {
          for (const p of series[i]) {
            if (p) node("circle", {class: "preview-marker", cx: px(p[0]), cy: py(p[1]), r: 3,
              fill: t.line.color, "fill-opacity": t.opacity ?? 1}, svg);
          }
        } else if (t.line.width !== 0) drawLine(svg, t, series[i], px, py, right - left);
      });
      for (const [x, y, anchor, content, cls] of labels(g)) text(svg, x, y, anchor, content, cls);
    }
    const title = layout.xaxis && layout.xaxis.title ? layout.xaxis.title.text : "";
    text(svg, (left + right) / 2, height - 6, "middle", title, "axis-title");
    container.append(svg);
    return svg;
  }

  // The same drawing on one <canvas>: a handful of 2D path calls, one element, no SVG
  // nodes to style, lay out and paint (what Time Series cards show while the grid scrolls).
  // colors: {text, axis} (a canvas cannot read CSS variables; the caller passes the theme's).
  function drawCanvas(container, traces, layout, label, knownWidth, colors) {
    clear(container);
    const g = geometry(traces, layout, chartWidth(container, knownWidth));
    const {width, height, left, right, top, bottom, series, px, py} = g;
    const ratio = window.devicePixelRatio || 1;
    const canvas = document.createElement("canvas");
    canvas.className = "lens-preview lens-preview-canvas";
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    canvas.style.width = width + "px";
    canvas.style.height = height + "px";
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", "chart of " + label + " (interactive chart loading)");
    const c = canvas.getContext("2d", {willReadFrequently: true});
    c.scale(ratio, ratio);
    c.strokeStyle = colors.axis;
    c.lineWidth = 1;
    c.beginPath();
    c.moveTo(left + 0.5, top);
    c.lineTo(left + 0.5, bottom + 0.5);
    c.lineTo(right, bottom + 0.5);
    c.stroke();
    let lines = 0;
    if (px) {
      c.lineJoin = "round";
      traces.forEach((t, i) => {
        if (t.fill === "toself" || t.fill === "tonexty") {
          let outline = series[i].filter(Boolean);
          if (t.fill === "tonexty" && i > 0) outline = outline.concat(series[i - 1].filter(Boolean).reverse());
          if (outline.length) {
            c.beginPath();
            outline.forEach((p, k) => c[k ? "lineTo" : "moveTo"](px(p[0]), py(p[1])));
            c.closePath();
            c.fillStyle = t.fillcolor || t.line.color;
            c.fill();
          }
        }
        c.globalAlpha = t.opacity ?? 1;
        if (t.mode === "markers") {
          c.fillStyle = t.line.color;
          for (const p of series[i]) {
            if (!p) continue;
            c.beginPath();
            c.arc(px(p[0]), py(p[1]), 3, 0, 2 * Math.PI);
            c.fill();
          }
        } else if (t.line.width !== 0) {
          c.beginPath();
          walkLine(series[i], px, py, right - left, (pen, x, y) => (pen === "M" ? c.moveTo(x, y) : c.lineTo(x, y)));
          c.strokeStyle = t.line.color;
          c.lineWidth = t.line.width ?? 2;
          c.stroke();
          lines += 1;
        }
        c.globalAlpha = 1;
      });
      c.fillStyle = colors.text;
      c.font = "11px system-ui, sans-serif";
      for (const [x, y, anchor, content] of labels(g)) {
        c.textAlign = anchor === "middle" ? "center" : anchor;
        c.fillText(content, x, y);
      }
    }
    const title = layout.xaxis && layout.xaxis.title ? layout.xaxis.title.text : "";
    c.fillStyle = colors.text;
    c.textAlign = "center";
    c.fillText(title, (left + right) / 2, height - 6);
    canvas.dataset.lines = String(lines);
    container.append(canvas);
    return canvas;
  }

  function clear(container) {
    for (const el of container.querySelectorAll(":scope > .lens-preview")) el.remove();
  }

  return {draw, drawCanvas, clear};
})();
