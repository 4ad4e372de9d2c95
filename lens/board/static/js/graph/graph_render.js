// SVG drawing of the laid-out hierarchy, colouring, zoom/pan/fit and SVG/PNG download.
(function () {
  "use strict";
  const G = window.lensGraph;
  const NS = "http://www.w3.org/2000/svg";

  function svgEl(tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  G.svgEl = svgEl;

  G.initSvg = function (S) {
    const svg = svgEl("svg", { xmlns: NS, class: "lg-svg", "font-family": "sans-serif" });
    const defs = svgEl("defs");
    [["lg-arrow", "#777"], ["lg-arrow-hi", "#e8710a"]].forEach(function (m) {
      const marker = svgEl("marker", { id: m[0], viewBox: "0 0 10 10", refX: "9", refY: "5",
        markerWidth: "6", markerHeight: "6", orient: "auto", markerUnits: "userSpaceOnUse" });
      marker.appendChild(svgEl("path", { d: "M0,0 L10,5 L0,10 z", fill: m[1] }));
      defs.appendChild(marker);
    });
    svg.appendChild(defs);
    S.svg = svg;
    S.defs = defs;
    S.viewport = svgEl("g", { class: "lg-viewport" });
    svg.appendChild(S.viewport);
    S.ui.canvas.appendChild(svg);
    wirePanZoom(S);
  };

  G.clearSvg = function (S) { S.viewport.textContent = ""; };

  function applyView(S) {
    const v = S.view;
    S.viewport.setAttribute("transform", "translate(" + v.x + "," + v.y + ") scale(" + v.k + ")");
    if (G.updateMinimap) G.updateMinimap(S);  // graph_minimap.js follows every pan and zoom
  }
  G.applyView = applyView;

  function wirePanZoom(S) {
    let drag = null;
    S.svg.addEventListener("wheel", function (ev) {
      ev.preventDefault();
      const r = S.svg.getBoundingClientRect();
      const mx = ev.clientX - r.left, my = ev.clientY - r.top;
      const f = Math.exp(-ev.deltaY * 0.0015);
      const k = Math.max(0.02, Math.min(8, S.view.k * f));
      S.view.x = mx - (mx - S.view.x) * (k / S.view.k);
      S.view.y = my - (my - S.view.y) * (k / S.view.k);
      S.view.k = k;
      applyView(S);
    }, { passive: false });
    S.svg.addEventListener("mousedown", function (ev) {
      if (ev.target.closest(".lg-node")) return;
      drag = { x: ev.clientX, y: ev.clientY, vx: S.view.x, vy: S.view.y };
    });
    window.addEventListener("mousemove", function (ev) {
      if (!drag) return;
      S.view.x = drag.vx + ev.clientX - drag.x;
      S.view.y = drag.vy + ev.clientY - drag.y;
      applyView(S);
    });
    window.addEventListener("mouseup", function () { drag = null; });
    S.svg.addEventListener("click", function (ev) {
      const toggle = ev.target.closest(".lg-toggle");
      const node = ev.target.closest(".lg-node");
      if (toggle) {
        toggleInPlace(S, toggle.getAttribute("data-path"));
      } else if (node) {
        G.select(S, node.getAttribute("data-path"), false);
      }
    });
    S.svg.addEventListener("dblclick", function (ev) {
      const node = ev.target.closest(".lg-node");
      if (node && G.isGroup(S.nodes[node.getAttribute("data-path")])) {
        toggleInPlace(S, node.getAttribute("data-path"));
      }
    });
  }

  // Expand or collapse a scope keeping its top-left corner where it was on screen, so the
  // user's eye (and mouse) stay on what they clicked while the layout around it changes.
  // A scope expanded for the first time fetches its children first (graph_scopes.js).
  function toggleInPlace(S, path) {
    if (S.expanded.has(path) || S.loaded.has(path)) { toggleNow(S, path); return; }
    if (S.pendingScope === path) return;    // a double-click's first click is already asking
    S.pendingScope = path;
    G.loadScope(S, path).then(function (ok) {
      S.pendingScope = null;
      if (ok && !S.expanded.has(path)) toggleNow(S, path);
    }).catch(function (err) {
      S.pendingScope = null;
      G.setStatus(S, "Could not expand " + path + ": " + err.message);
    });
  }

  function toggleNow(S, path) {
    const before = S.pos[path];
    G.toggle(S, path);
    G.redraw(S);
    const after = S.pos[path];
    if (!before || !after) return;
    S.view.x += (before.x - after.x) * S.view.k;
    S.view.y += (before.y - after.y) * S.view.k;
    applyView(S);
  }

  G.fit = function (S) {
    if (!S.h) return;
    const L = G.layoutScope(S, "");
    const r = S.svg.getBoundingClientRect();
    const W = r.width || 800, H = r.height || 600;
    const k = Math.min(2, (W - 40) / Math.max(1, L.width), (H - 40) / Math.max(1, L.height));
    S.view = { k: k, x: (W - L.width * k) / 2, y: Math.max(20, (H - L.height * k) / 2) };
    applyView(S);
  };

  // Pan so that a drawn node sits in the middle of the canvas.
  G.centerOn = function (S, path) {
    const p = S.pos[path];
    if (!p) return;
    const r = S.svg.getBoundingClientRect();
    S.view.x = (r.width || 800) / 2 - (p.x + p.w / 2) * S.view.k;
    S.view.y = (r.height || 600) / 2 - (p.y + p.h / 2) * S.view.k;
    applyView(S);
  };

  // ---- colours -------------------------------------------------------------------------

  let gradientId = 0;
  function deviceGradient(S, devices) {
    const total = Object.keys(devices).reduce(function (a, d) { return a + devices[d]; }, 0) || 1;
    const id = "lg-dev-" + (++gradientId);
    const grad = svgEl("linearGradient", { id: id, x1: "0", x2: "1", y1: "0", y2: "0" });
    let acc = 0;
    G.deviceList(S).forEach(function (d) {
      if (!devices[d]) return;
      const color = G.deviceColor(S, d);
      grad.appendChild(svgEl("stop", { offset: String(acc / total), "stop-color": color }));
      acc += devices[d];
      grad.appendChild(svgEl("stop", { offset: String(acc / total), "stop-color": color }));
    });
    S.defs.appendChild(grad);
    return "url(#" + id + ")";
  }

  function statValue(S, path) {
    if (!S.stats) return null;
    const st = S.stats.nodes[path];
    if (!st) return null;
    return S.colorBy === "compute" ? st.compute_us : st.memory_bytes;
  }

  function fillFor(S, path, maxStat) {
    const node = S.nodes[path];
    const mode = S.colorBy;
    if (mode === "device") {
      // A session run's measured placement wins over the GraphDef's requested devices.
      const measured = S.stats && S.stats.nodes[path];
      if (node.kind === "op") return G.deviceColor(S, (measured && measured.device) || node.device);
      const counts = measured && measured.devices;
      return deviceGradient(S, counts && Object.keys(counts).length ? counts : node.devices);
    }
    if (mode === "compute" || mode === "memory") {
      const v = statValue(S, path);
      return v === null ? "#ffffff" : G.scaleColor(maxStat > 0 ? v / maxStat : 0);
    }
    if (mode === "structure") {
      if (node.kind === "op") return G.OP_FILL;
      if (node.template !== undefined) return G.templateColor(node.template);
      if (node.kind === "series" && node.children.length) {
        const first = S.nodes[node.children[0]];
        if (first && first.template !== undefined) return G.templateColor(first.template);
      }
      return G.UNIQUE_FILL;
    }
    return node.kind === "op" ? G.OP_FILL : "#eef1f8";
  }

  // ---- drawing -------------------------------------------------------------------------

  function drawEdges(S, L, ox, oy, layer) {
    L.edges.forEach(function (r) {
      if (r.points.length < 2) return;
      const e = r.e;
      const d = r.points.map(function (p, i) {
        return (i ? "L" : "M") + (p.x + ox).toFixed(1) + "," + (p.y + oy).toFixed(1);
      }).join(" ");
      const hi = S.traceSet && S.traceSet.has(e[0]) && S.traceSet.has(e[1]);
      // An end inside an expanded scope continues as a bridge drawn with that scope.
      const into = G.bridgeEnds(S, e[1], e[7]);
      const outOf = G.bridgeEnds(S, e[0], e[6]);
      const attrs = { d: d, fill: "none", stroke: hi ? "#e8710a" : "#888",
        "stroke-width": G.edgeWidth(e).toFixed(2), class: "lg-edge " + (e[2] ? "lg-data" : "lg-control"),
        "data-src": e[0], "data-dst": e[1] };
      if (!into) attrs["marker-end"] = hi ? "url(#lg-arrow-hi)" : "url(#lg-arrow)";
      if (!e[2]) attrs["stroke-dasharray"] = "2,3";    // control dependencies are dotted
      if (S.traceSet && !hi) attrs.opacity = "0.25";
      layer.appendChild(svgEl("path", attrs));
      const last = r.points[r.points.length - 1], first = r.points[0];
      if (into) G.queueBridge(S, e[1], { e: e, ops: into, incoming: true, x: last.x + ox, y: last.y + oy });
      if (outOf) G.queueBridge(S, e[0], { e: e, ops: outOf, incoming: false, x: first.x + ox, y: first.y + oy });
      if (e[4]) {
        const mid = r.points[Math.floor(r.points.length / 2)];
        layer.appendChild(svgEl("text", { x: (mid.x + ox + 4).toFixed(1), y: (mid.y + oy).toFixed(1),
          "font-size": "9", fill: "#555", class: "lg-edge-label" }, e[4]));
      }
    });
  }

  function drawEmbeddings(S, node, x, y, w, h, g) {
    (node.embed_in || []).forEach(function (p, i) {
      const c = svgEl("circle", { cx: x + 6 + i * 8, cy: y + h / 2, r: 3, fill: "#fff", stroke: "#777",
        class: "lg-embed lg-embed-in" });
      c.appendChild(svgEl("title", {}, S.nodes[p].op + ": " + (S.nodes[p].name || p)));
      g.appendChild(c);
    });
    (node.embed_out || []).forEach(function (p, i) {
      const c = svgEl("rect", { x: x + w - 10 - i * 8, y: y + h / 2 - 3, width: 6, height: 6,
        fill: "#fff", stroke: "#777", class: "lg-embed lg-embed-out" });
      c.appendChild(svgEl("title", {}, S.nodes[p].op + ": " + (S.nodes[p].name || p)));
      g.appendChild(c);
    });
  }

  function outline(S, path) {
    const node = S.nodes[path];
    const selected = S.selected === path;
    return { stroke: selected ? "#e8710a" : (node.extract ? "#999" : "#555"),
      width: selected ? "2.5" : "1" };
  }

  // Move the selection outline without rebuilding the drawing.
  G.restyleSelection = function (S, previous) {
    [previous, S.selected].forEach(function (p) {
      if (p === null || p === undefined) return;
      const shape = S.viewport.querySelector('.lg-node[data-path="' + CSS.escape(p) + '"] > .lg-shape');
      if (!shape) return;
      const o = outline(S, p);
      shape.setAttribute("stroke", o.stroke);
      shape.setAttribute("stroke-width", o.width);
    });
  };

  function drawNode(S, path, box, ox, oy, layer, maxStat) {
    const node = S.nodes[path];
    const x = box.x + ox, y = box.y + oy, w = box.w, h = box.h;
    S.pos[path] = { x: x, y: y, w: w, h: h };
    const expanded = G.isGroup(node) && S.expanded.has(path);
    const g = svgEl("g", { class: "lg-node lg-" + node.kind + (expanded ? " lg-expanded" : "") +
      (node.extract ? " lg-extracted" : ""), "data-path": path });
    const o = outline(S, path);
    const stroke = o.stroke, sw = o.width;
    if (S.traceSet && !S.traceSet.has(path) && S.selected !== path) g.setAttribute("opacity", "0.35");
    const fill = expanded ? "#ffffff" : fillFor(S, path, maxStat);
    if (node.kind === "op") {
      g.appendChild(svgEl("ellipse", { cx: x + w / 2, cy: y + h / 2, rx: w / 2, ry: h / 2,
        fill: fill, stroke: stroke, "stroke-width": sw, class: "lg-shape" }));
      g.appendChild(svgEl("text", { x: x + w / 2, y: y + h / 2 + 4, "text-anchor": "middle",
        "font-size": "11", fill: "#222", "pointer-events": "none" }, node.label));
      drawEmbeddings(S, node, x, y, w, h, g);
    } else {
      if (node.kind === "series" && !expanded) {
        // Series look like a stack of cards.
        g.appendChild(svgEl("rect", { x: x + 4, y: y - 4, width: w, height: h, rx: 6,
          fill: fill, stroke: "#888", "stroke-width": "1" }));
      }
      g.appendChild(svgEl("rect", { x: x, y: y, width: w, height: h, rx: 6, fill: fill,
        stroke: stroke, "stroke-width": sw, class: "lg-shape",
        "stroke-dasharray": node.extract ? "4,2" : "none" }));
      const ty = expanded ? y + 17 : y + h / 2 + 4;
      g.appendChild(svgEl("text", { x: x + 24, y: ty, "font-size": "12", fill: "#222",
        "font-weight": expanded ? "bold" : "normal", "pointer-events": "none" }, node.label));
      const tg = svgEl("g", { class: "lg-toggle", "data-path": path });
      tg.appendChild(svgEl("circle", { cx: x + 12, cy: expanded ? y + 13 : y + h / 2, r: 7,
        fill: "#fff", stroke: "#555" }));
      tg.appendChild(svgEl("text", { x: x + 12, y: (expanded ? y + 13 : y + h / 2) + 4,
        "text-anchor": "middle", "font-size": "12", fill: "#222", "pointer-events": "none" },
        expanded ? "−" : "+"));
      g.appendChild(tg);
    }
    layer.appendChild(g);
    if (expanded) drawScope(S, path, x + G.PAD, y + G.HEADER, layer, maxStat);
  }

  function drawScope(S, path, ox, oy, layer, maxStat) {
    const L = G.layoutScope(S, path);
    const edgeLayer = svgEl("g", { class: "lg-edges" });
    layer.appendChild(edgeLayer);
    drawEdges(S, L, ox, oy, edgeLayer);
    if (L.asideX !== null) {
      layer.appendChild(svgEl("line", { x1: ox + L.asideX, x2: ox + L.asideX, y1: oy, y2: oy + L.innerH,
        stroke: "#bbb", "stroke-dasharray": "4,4" }));
    }
    Object.keys(L.nodes).forEach(function (c) { drawNode(S, c, L.nodes[c], ox, oy, layer, maxStat); });
    G.drawBridges(S, path, edgeLayer);
  }

  function visibleStatMax(S) {
    if (!S.stats || (S.colorBy !== "compute" && S.colorBy !== "memory")) return 0;
    let max = 0;
    const stack = [""];
    while (stack.length) {
      const p = stack.pop();
      S.nodes[p].children.forEach(function (c) {
        const v = statValue(S, c);
        if (v !== null && v > max) max = v;
        if (S.expanded.has(c)) stack.push(c);
      });
    }
    return max;
  }

  G.redraw = function (S) {
    if (!S.h) return;
    S.viewport.textContent = "";
    S.defs.querySelectorAll("linearGradient").forEach(function (n) { n.remove(); });
    S.pos = {};
    S.bridges = {};
    const maxStat = visibleStatMax(S);
    S.statMax = maxStat;
    drawScope(S, "", 0, 0, S.viewport, maxStat);
    applyView(S);
    G.updateLegend(S);
    S.svg.setAttribute("data-drawn", String(Date.now()));
    setTimeout(function () { G.prefetchDrawn(S); }, 0);  // after this drawing is painted
  };

  // ---- export --------------------------------------------------------------------------

  function exportSvgText(S) {
    const L = G.layoutScope(S, "");
    const clone = S.svg.cloneNode(true);
    clone.setAttribute("width", String(Math.ceil(L.width + 40)));
    clone.setAttribute("height", String(Math.ceil(L.height + 40)));
    clone.setAttribute("viewBox", "0 0 " + Math.ceil(L.width + 40) + " " + Math.ceil(L.height + 40));
    clone.querySelector(".lg-viewport").setAttribute("transform", "translate(20,20)");
    clone.insertBefore(svgEl("rect", { width: "100%", height: "100%", fill: "#ffffff" }), clone.firstChild);
    return new XMLSerializer().serializeToString(clone);
  }
  G.exportSvgText = exportSvgText;

  function download(blob, name) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  }

  G.downloadSvg = function (S) {
    if (!S.h) return;
    download(new Blob([exportSvgText(S)], { type: "image/svg+xml" }), (S.run || "graph").replace(/[^\w.-]+/g, "_") + ".svg");
  };

  G.downloadPng = function (S) {
    if (!S.h) return;
    const text = exportSvgText(S);
    const img = new Image();
    const url = URL.createObjectURL(new Blob([text], { type: "image/svg+xml" }));
    img.onload = function () {
      const canvas = document.createElement("canvas");
      const scale = Math.min(2, 16000 / Math.max(img.width, img.height));
      canvas.width = Math.ceil(img.width * scale);
      canvas.height = Math.ceil(img.height * scale);
      const c2d = canvas.getContext("2d");
      c2d.scale(scale, scale);
      c2d.drawImage(img, 0, 0);
      URL.revokeObjectURL(url);
      canvas.toBlob(function (blob) {
        download(blob, (S.run || "graph").replace(/[^\w.-]+/g, "_") + ".png");
      }, "image/png");
    };
    img.onerror = function () { G.setStatus(S, "PNG export failed: the SVG could not be rendered"); };
    img.src = url;
  };
})();
