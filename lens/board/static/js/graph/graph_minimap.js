// The minimap: the whole drawing in a small box at the canvas's corner with the visible part
// outlined; click or drag in it to move the view there. It shows the live drawing through an
// SVG <use> of the main viewport (no second copy of the nodes), undoing its pan and zoom.
(function () {
  "use strict";
  const G = window.lensGraph;
  const W = 180, H = 120, PAD = 4;

  G.initMinimap = function (S) {
    S.viewport.setAttribute("id", "lg-viewport-main");
    const box = G.el("div", { class: "lg-minimap", title: "Minimap: click or drag to move the view" });
    const svg = G.svgEl("svg", { width: W, height: H, class: "lg-minimap-svg" });
    const world = G.svgEl("g", { class: "lg-minimap-world" });
    const use = G.svgEl("use", { href: "#lg-viewport-main" });
    world.appendChild(use);
    const frame = G.svgEl("rect", { class: "lg-minimap-view", fill: "rgba(245,124,0,0.12)",
      stroke: "#f57c00", "stroke-width": "1.5" });
    svg.appendChild(world);
    svg.appendChild(frame);
    box.appendChild(svg);
    S.ui.canvas.appendChild(box);
    S.minimap = { box: box, svg: svg, world: world, frame: frame, scale: 1 };
    let dragging = false;
    const moveTo = function (ev) {
      const r = svg.getBoundingClientRect();
      const m = S.minimap;
      // The graph point under the pointer goes to the middle of the canvas.
      const gx = (ev.clientX - r.left - PAD) / m.scale, gy = (ev.clientY - r.top - PAD) / m.scale;
      const c = S.svg.getBoundingClientRect();
      S.view.x = (c.width || 800) / 2 - gx * S.view.k;
      S.view.y = (c.height || 600) / 2 - gy * S.view.k;
      G.applyView(S);
    };
    svg.addEventListener("mousedown", function (ev) { dragging = true; moveTo(ev); ev.preventDefault(); });
    window.addEventListener("mousemove", function (ev) { if (dragging) moveTo(ev); });
    window.addEventListener("mouseup", function () { dragging = false; });
  };

  G.updateMinimap = function (S) {
    const m = S.minimap;
    if (!m) return;
    m.box.hidden = !S.h;
    if (!S.h) return;
    const L = G.layoutScope(S, "");
    const gw = Math.max(1, L.width), gh = Math.max(1, L.height);
    m.scale = Math.min((W - 2 * PAD) / gw, (H - 2 * PAD) / gh);
    const v = S.view;
    // <use> draws the viewport with its pan/zoom: undo it, then scale the graph to the box.
    m.world.setAttribute("transform", "translate(" + PAD + "," + PAD + ") scale(" + m.scale +
      ") scale(" + (1 / v.k) + ") translate(" + (-v.x) + "," + (-v.y) + ")");
    const c = S.svg.getBoundingClientRect();
    const x0 = -v.x / v.k, y0 = -v.y / v.k;
    const vw = (c.width || 800) / v.k, vh = (c.height || 600) / v.k;
    m.frame.setAttribute("x", (PAD + x0 * m.scale).toFixed(1));
    m.frame.setAttribute("y", (PAD + y0 * m.scale).toFixed(1));
    m.frame.setAttribute("width", Math.max(2, vw * m.scale).toFixed(1));
    m.frame.setAttribute("height", Math.max(2, vh * m.scale).toFixed(1));
    m.svg.setAttribute("data-scale", m.scale.toFixed(6));
  };
})();
