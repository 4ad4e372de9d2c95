// Bridges: an edge whose end lies inside an expanded scope stops on that scope's border (dagre
// lays out each scope alone); a bridge continues it up to the inner node it really reaches.
// Scope-level edges queue bridges while drawing; each scope draws its own once its content
// is placed, so the inner positions are known.
(function () {
  "use strict";
  const G = window.lensGraph;

  // The ops an edge end stands for when that end is an expanded scope, else null.
  G.bridgeEnds = function (S, path, ops) {
    const node = S.nodes[path];
    return ops && ops.length && G.isGroup(node) && S.expanded.has(path) ? ops : null;
  };

  G.queueBridge = function (S, scope, bridge) {
    (S.bridges[scope] = S.bridges[scope] || []).push(bridge);
  };

  // The drawn node standing for an op: the op itself, or its nearest collapsed ancestor.
  function drawnFor(S, scope, op) {
    let p = G.heldAncestor(S, op);  // ops deep inside collapsed scopes are not held by the page
    while (p !== undefined && p !== scope && !S.pos[p]) {
      const n = S.nodes[p];
      p = n ? n.parent : undefined;
    }
    return p === undefined || p === scope ? null : p;
  }

  // Called once a scope's content is drawn, so every inner position is known.
  G.drawBridges = function (S, scope, layer) {
    const queued = S.bridges[scope];
    if (!queued) return;
    delete S.bridges[scope];
    queued.forEach(function (b) {
      const seen = new Set();
      b.ops.forEach(function (op) {
        const inner = drawnFor(S, scope, op);
        if (inner === null || seen.has(inner)) return;
        seen.add(inner);
        const p = S.pos[inner];
        const e = b.e;
        // Incoming bridges end on the inner node's top, outgoing ones leave from its bottom.
        const end = b.incoming ? { x: p.x + p.w / 2, y: p.y } : { x: b.x, y: b.y };
        const start = b.incoming ? { x: b.x, y: b.y } : { x: p.x + p.w / 2, y: p.y + p.h };
        const dy = Math.max(12, Math.abs(end.y - start.y) / 2);
        const d = "M" + start.x.toFixed(1) + "," + start.y.toFixed(1) + " C" + start.x.toFixed(1) + "," +
          (start.y + dy).toFixed(1) + " " + end.x.toFixed(1) + "," + (end.y - dy).toFixed(1) + " " +
          end.x.toFixed(1) + "," + end.y.toFixed(1);
        const src = b.incoming ? e[0] : inner, dst = b.incoming ? inner : e[1];
        const hi = S.traceSet && S.traceSet.has(src) && S.traceSet.has(dst);
        const attrs = { d: d, fill: "none", stroke: hi ? "#e8710a" : "#888",
          "stroke-width": G.edgeWidth(e).toFixed(2),
          class: "lg-edge lg-bridge " + (e[2] ? "lg-data" : "lg-control"),
          "data-src": src, "data-dst": dst };
        // An outgoing bridge joins the scope-level edge, which carries the arrow on.
        if (b.incoming) attrs["marker-end"] = hi ? "url(#lg-arrow-hi)" : "url(#lg-arrow)";
        if (!e[2]) attrs["stroke-dasharray"] = "2,3";
        if (S.traceSet && !hi) attrs.opacity = "0.25";
        layer.appendChild(G.svgEl("path", attrs));
      });
    });
  };

})();
