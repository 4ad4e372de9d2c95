// Text dashboard: per tag x run, each step's Markdown as rendered (and sanitized) by the server.
// The server's HTML is rebuilt here node by node from an allow-list, never assigned as
// innerHTML, so even a server bug cannot put a script or event handler on the page.
"use strict";

(function () {
  const C = window.lensCharts;
  const ALLOWED = new Set(["P", "BR", "STRONG", "EM", "CODE", "PRE", "H1", "H2", "H3", "H4",
    "H5", "H6", "UL", "OL", "LI", "BLOCKQUOTE", "HR", "TABLE", "THEAD", "TBODY", "TR", "TH",
    "TD", "A"]);
  let ctx = null;
  let cardsEl = null;
  let statusEl = null;
  const openGroups = new Set();

  function safeHref(href) {
    return /^(https?:|mailto:|[^:]*$)/i.test(href.trim()) ? href : null;
  }

  // Copy allowed elements and text from a parsed tree into real DOM nodes.
  function copySafe(source, target) {
    for (const node of source.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) { target.append(document.createTextNode(node.data)); continue; }
      if (node.nodeType !== Node.ELEMENT_NODE) continue;
      if (!ALLOWED.has(node.tagName)) { copySafe(node, target); continue; }
      const el = document.createElement(node.tagName.toLowerCase());
      if (node.tagName === "A") {
        const href = safeHref(node.getAttribute("href") || "");
        if (href) { el.href = href; el.rel = "noopener noreferrer"; el.target = "_blank"; }
      }
      copySafe(node, el);
      target.append(el);
    }
  }

  function renderHtml(html, target) {
    // DOMParser builds an inert document: nothing in it runs or loads.
    const doc = new DOMParser().parseFromString(html, "text/html");
    copySafe(doc.body, target);
  }

  async function render() {
    let index;
    try { index = await ctx.fetchJSON("/data/plugin/text/tags"); }
    catch (e) { statusEl.textContent = "Could not load text tags: " + e.message; return; }
    const pairs = [];
    for (const run of ctx.selectedRuns()) for (const tag of index[run] || []) pairs.push([tag, run]);
    statusEl.textContent = pairs.length ? "" : "No text for the selected runs.";
    const fetched = await Promise.all(pairs.map(async ([tag, run]) => {
      try { return [tag, run, await ctx.fetchJSON("/data/plugin/text/text", {run, tag})]; }
      catch (e) { return [tag, run, e]; }
    }));
    cardsEl.replaceChildren();
    for (const [group, tags] of C.groupTags(new Set(pairs.map(([t]) => t)))) {
      const items = fetched.filter(([t]) => tags.includes(t));
      const {details, grid} = C.groupSection(group, items.length, openGroups);
      for (const [tag, run, rows] of items) grid.append(textCard(tag, run, rows));
      cardsEl.append(details);
    }
    C.packGroups(cardsEl);
  }

  function textCard(tag, run, rows) {
    const el = C.card(tag, run);
    el.classList.add("text-card");
    el.dataset.tag = tag;
    el.dataset.run = run;
    if (rows instanceof Error) { el.append(document.createTextNode(rows.message)); return el; }
    // Newest first, as TensorBoard lists them.
    for (const row of [...rows].reverse()) {
      const entry = document.createElement("div");
      entry.className = "text-entry";
      const head = document.createElement("div");
      head.className = "muted";
      head.textContent = "step " + row.step;
      const body = document.createElement("div");
      body.className = "text-body";
      renderHtml(row.text, body);
      entry.append(head, body);
      el.append(entry);
    }
    return el;
  }

  window.lens.registerDashboard({
    id: "text", title: "Text", plugin: "text",
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
