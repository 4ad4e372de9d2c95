// The page holds only the scopes it has opened: the root's children at load, a scope's children
// when it is first expanded, the scopes enclosing a node when search, a link or the URL reveals
// it (hierarchy?scope= / ?reveal=, see graph_scopes.py). S.loaded names the scopes whose
// children are in S.nodes; every node in S.nodes has its enclosing nodes there too.
(function () {
  "use strict";
  const G = window.lensGraph;
  const ROUTE = "/data/plugin/graphs/hierarchy";
  const PREFETCH_SCOPES = 200;      // scopes asked for in one prefetch request, at most
  const PREFETCH_CHILDREN = 5000;   // and their children, at most
  const PREFETCH_URL = 16000;       // characters of scope names in its URL, at most

  // Add a response's nodes, filling in what the route leaves out of op nodes. Nodes already
  // held stay the same objects (the user may have moved one out of the main graph); a scope
  // held without its edges (sent as a child, drawn collapsed) gets them with its own scope.
  // A whole hierarchy (no "scopes": the notebook's inline view answers so) holds every scope.
  G.mergeNodes = function (S, h) {
    const nodes = h.nodes;
    Object.keys(nodes).forEach(function (path) {
      const n = nodes[path];
      const held = S.nodes[path];
      if (held) {
        if (held.edges === undefined && n.edges !== undefined) held.edges = n.edges;
        return;
      }
      if (n.label === undefined) n.label = path.slice(path.lastIndexOf("/") + 1);
      if (n.kind === "op") {
        if (n.count === undefined) n.count = 1;
        if (n.device === undefined) n.device = "";
      }
      S.nodes[path] = n;
    });
    if (!h.scopes) S.whole = true;
    const scopes = h.scopes || Object.keys(nodes).filter(function (p) { return nodes[p].kind !== "op"; });
    scopes.forEach(function (p) { S.loaded.add(p); });
  };

  // The nearest held node standing for path: path itself, its closest held name scope, or a
  // series of that scope's (series paths are no name prefix, but list their members).
  G.heldAncestor = function (S, path) {
    let p = path;
    while (p && !S.nodes[p]) {
      const cut = p.lastIndexOf("/");
      p = cut < 0 ? "" : p.slice(0, cut);
    }
    if (p === path || !S.loaded.has(p)) return p;
    const inside = function (m) { return path === m || path.startsWith(m + "/"); };
    const series = S.nodes[p].children.find(function (c) {
      const n = S.nodes[c];
      return n.kind === "series" && n.children.some(inside);
    });
    return series || p;
  };

  // Ask for the children of several scopes in one request; resolves true once they are held
  // (false when another graph was opened meanwhile).
  function fetchScopes(S, paths) {
    const h = S.h;
    const query = new URLSearchParams(G.graphQuery(S));
    paths.forEach(function (p) { query.append("scope", p); });
    const asked = S.ctx.fetchJSON(ROUTE, query).then(function (res) {
      if (S.h !== h) return false;
      G.mergeNodes(S, res);
      return true;
    });
    const inflight = S.inflight;  // this graph's (opening another one starts a new map)
    paths.forEach(function (p) { inflight.set(p, asked); });
    const done = function () { paths.forEach(function (p) { inflight.delete(p); }); };
    asked.then(done, done);
    return asked;
  }

  // Fetch a scope's children once; resolves when they are in S.nodes.
  G.loadScope = function (S, path) {
    if (S.loaded.has(path)) return Promise.resolve(true);
    return S.inflight.get(path) || fetchScopes(S, [path]);
  };

  // After a drawing, fetch the children of the collapsed scopes it shows (a bounded number),
  // so that expanding one draws at once instead of waiting for the server.
  G.prefetchDrawn = function (S) {
    if (S.whole || !S.h) return;
    const want = [];
    let children = 0, chars = 0;
    Object.keys(S.pos).forEach(function (p) {
      const n = S.nodes[p];
      if (!n || !G.isGroup(n) || S.loaded.has(p) || S.inflight.has(p)) return;
      const size = encodeURIComponent(p).length + 7;   // "&scope=" and the name
      if (want.length >= PREFETCH_SCOPES || children + n.children.length > PREFETCH_CHILDREN ||
          chars + size > PREFETCH_URL) return;
      children += n.children.length;
      chars += size;
      want.push(p);
    });
    if (want.length) fetchScopes(S, want).catch(function () {});  // expanding asks again
  };

  // True when every scope enclosing path has its children held, so it can be drawn.
  G.revealable = function (S, path) {
    let n = S.nodes[path];
    if (!n) return false;
    if (n.embedded_in) n = S.nodes[n.embedded_in];
    while (n && n.parent !== undefined) {
      if (!S.loaded.has(n.parent)) return false;
      n = S.nodes[n.parent];
    }
    return !!n;
  };

  // Resolves to the node's path (for an op name too) once it can be revealed; rejects with the
  // route's message when the graph has no such node.
  G.fetchReveal = function (S, name) {
    if (G.revealable(S, name)) return Promise.resolve(name);
    const h = S.h;
    return S.ctx.fetchJSON(ROUTE, G.graphQuery(S, { reveal: name })).then(function (res) {
      if (S.h !== h) return null;
      G.mergeNodes(S, res);
      return res.path;
    });
  };
})();
