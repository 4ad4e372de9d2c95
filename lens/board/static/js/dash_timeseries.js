// The Time Series dashboard (the default tab, as in TensorBoard): scalars, histograms and
// images of every tag in one grid of cards grouped by tag prefix; tag regex and type filters;
// pinned cards (URL + localStorage); card width; full-screen cards. Cards fetch and draw only
// once they scroll into view, all newly visible cards in one /timeSeries request.
"use strict";

(function () {
  const C = window.lensCharts;
  const S = window.lensSettings;
  const T = window.lensTsCards;
  const ROUTE = "/data/plugin/timeseries/timeSeries";
  const PIN_KEY = "lens.timeseries.pins";
  const KIND_ORDER = {scalars: 0, histograms: 1, images: 2};
  let ctx = null;
  let statusEl = null, pinnedEl = null, pinnedCards = null, cardsEl = null;
  let index = null, indexText = "";
  const cards = new Map();      // key ("pin:" + id for pinned copies) -> card
  const byElement = new Map();  // card element -> card
  const visible = new Set();    // cards in or near (200 px) the viewport: loaded and drawn
  const onScreen = new Set();   // cards in the viewport: redrawn at once on a setting change
  const openGroups = new Set();
  let observer = null, screenObserver = null;
  let queue = [];
  let flushing = null;
  const api = window.lensTimeSeries = {redrawn: Promise.resolve(), loaded: Promise.resolve()};

  // ---- state: filters and pins --------------------------------------------------------------
  const tagFilter = () => ctx.getState("tags") || "";
  const typeFilter = () => ctx.getState("type") || "all";
  // Pins are kept as a JSON list of card ids ([kind, tag(, run, sample)]); the URL wins.
  function pins() {
    const text = ctx.getState("pins") ?? localStorage.getItem(PIN_KEY);
    try {
      const list = JSON.parse(text || "[]");
      return Array.isArray(list) ? list.filter(Array.isArray).map((id) => JSON.stringify(id)) : [];
    } catch (e) { return []; }
  }
  function savePins(list) {
    const text = list.length ? JSON.stringify(list.map((id) => JSON.parse(id))) : undefined;
    ctx.setState("pins", text);
    try { if (text) localStorage.setItem(PIN_KEY, text); else localStorage.removeItem(PIN_KEY); }
    catch (e) { /* storage unavailable: the URL still has them */ }
  }
  function togglePin(id) {
    const list = pins();
    const at = list.indexOf(id);
    if (at >= 0) list.splice(at, 1); else list.push(id);
    savePins(list);
    layout();
  }

  // ---- what cards exist -----------------------------------------------------------------------
  function descriptors() {
    const runs = ctx.selectedRuns();
    const out = [];
    const scalarTags = new Set();
    for (const run of runs) for (const tag of index.scalars.runTagInfo[run] || []) scalarTags.add(tag);
    for (const tag of scalarTags) out.push({kind: "scalars", tag});
    for (const run of runs) {
      for (const tag of index.histograms.runTagInfo[run] || []) out.push({kind: "histograms", tag, run});
    }
    for (const [tag, byRun] of Object.entries(index.images.tagRunSampledInfo)) {
      for (const run of runs) {
        if (!byRun[run]) continue;
        for (let s = 0; s < Math.max(1, byRun[run].maxSamplesPerStep); s++) {
          out.push({kind: "images", tag, run, sample: s});
        }
      }
    }
    for (const d of out) {
      d.id = JSON.stringify(d.run === undefined ? [d.kind, d.tag] : [d.kind, d.tag, d.run, d.sample ?? 0]);
    }
    out.sort((a, b) => (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0) ||
      KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || String(a.run).localeCompare(String(b.run)) ||
      (a.sample || 0) - (b.sample || 0));
    return out;
  }

  function filtered(all) {
    const re = C.tagRegex(tagFilter());
    statusEl.textContent = re instanceof Error ? "Invalid tag regex: " + re.message : "";
    const type = typeFilter();
    return all.filter((d) => (type === "all" || d.kind === type) &&
      !(re instanceof RegExp && !re.test(d.tag)));
  }

  // ---- layout ---------------------------------------------------------------------------------
  const env = {
    runs: () => ctx.selectedRuns(),
    runColor: (run) => ctx.runColor(run),
    escapeHtml: (s) => ctx.escapeHtml(s),
  };

  function chrome(card) {
    const box = document.createElement("span");
    box.className = "ts-card-buttons";
    const pin = document.createElement("button");
    pin.type = "button";
    pin.className = "ts-pin";
    pin.title = "Pin this card";
    pin.textContent = "pin";
    pin.addEventListener("click", () => togglePin(card.id));
    const full = document.createElement("button");
    full.type = "button";
    full.className = "ts-fullscreen-btn";
    full.title = "Full screen (Esc leaves)";
    full.textContent = "expand";
    full.addEventListener("click", () => fullscreen(card, !card.el.classList.contains("ts-fullscreen")));
    box.append(pin, full);
    return box;
  }

  function cardFor(desc, pinned) {
    const key = (pinned ? "pin:" : "") + desc.id;
    let card = cards.get(key);
    if (!card) {
      card = T.create(desc, env, chrome);
      card.key = key;
      if (pinned) card.el.classList.add("ts-pinned-card");
      cards.set(key, card);
      byElement.set(card.el, card);
      observer.observe(card.el);
      screenObserver.observe(card.el);
    }
    const pinnedNow = pins().includes(desc.id);
    const button = card.el.querySelector(".ts-pin");
    button.setAttribute("aria-pressed", String(pinnedNow));
    button.title = pinnedNow ? "Unpin this card" : "Pin this card";
    button.textContent = pinnedNow ? "unpin" : "pin";
    return card;
  }

  function layout() {
    const all = descriptors();
    const shown = filtered(all);
    const pinnedIds = pins();
    const pinnedDescs = pinnedIds.map((id) => all.find((d) => d.id === id)).filter(Boolean);
    const wanted = new Set([...shown.map((d) => d.id), ...pinnedDescs.map((d) => "pin:" + d.id)]);
    for (const [key, card] of cards) {
      if (wanted.has(key)) continue;
      observer.unobserve(card.el);
      screenObserver.unobserve(card.el);
      onScreen.delete(card);
      C.purge(card.plot || document.createElement("div"));
      T.unwatch(card);
      card.dispose();
      cards.delete(key);
      byElement.delete(card.el);
      visible.delete(card);
    }
    pinnedCards.replaceChildren(...pinnedDescs.map((d) => cardFor(d, true).el));
    pinnedEl.querySelector(".ts-pinned-empty").hidden = pinnedDescs.length > 0;
    pinnedCards.dataset.count = String(pinnedDescs.length);
    cardsEl.replaceChildren();
    const groups = new Map();
    for (const d of shown) {
      const cut = d.tag.indexOf("/");
      const name = cut > 0 ? d.tag.slice(0, cut) : d.tag;
      if (!groups.has(name)) groups.set(name, []);
      groups.get(name).push(d);
    }
    for (const [name, list] of [...groups].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const {details, grid} = C.groupSection(name, list.length, openGroups);
      for (const d of list) grid.append(cardFor(d, false).el);
      cardsEl.append(details);
    }
    C.packGroups(cardsEl);
    if (!shown.length) {
      statusEl.textContent = statusEl.textContent ||
        (ctx.selectedRuns().length ? "No cards match the filters." : "No runs selected.");
      C.startPlotly();
    }
  }

  // ---- loading and drawing ----------------------------------------------------------------------
  function enqueue(card) {
    if (!queue.includes(card)) queue.push(card);
    if (!flushing) flushing = Promise.resolve().then(flush);
    return flushing;
  }
  async function flush() {
    const batch = queue;
    queue = [];
    flushing = null;
    if (!batch.length) return;
    let answers;
    try { answers = await load(JSON.stringify(batch.map((c) => c.request()))); }
    catch (e) { statusEl.textContent = "Could not load cards: " + e.message; return; }
    const draws = [];
    for (let i = 0; i < batch.length; i++) {
      const card = batch[i];
      if (answers[i].error) { card.body.textContent = answers[i].error; continue; }
      // A reload that brought nothing new for a drawn card leaves it alone (no redraw).
      const text = signature(answers[i].runToSeries) + "|" + JSON.stringify(card.request());
      if (card.loaded && !card.dirty && text === card.answerText) { card.stale = false; continue; }
      card.answerText = text;
      card.receive(answers[i]);
      card.loaded = true;
      card.el.dataset.loaded = "";
      card.stale = false;
      card.dirty = false;
      // While the grid scrolls, cards draw in idle time (placeholders until then).
      if (T.scrolling()) T.drawWhenIdle(card);
      else draws.push(card.draw());
    }
    await Promise.all(draws);
    C.startPlotly();  // the first row shows its previews now; plotly takes over after
  }

  // Batches are fetched and parsed by a Worker (ts_loader.js): a batch that arrives while
  // the grid scrolls then costs the page's main thread no parsing. Without one (it failed to
  // start), the page fetches them itself.
  let worker = null, nextId = 0;
  const pending = new Map();  // id -> {requests, resolve, reject}
  try {
    worker = new Worker("/static/js/ts_loader.js");
    worker.onmessage = (event) => {
      const job = pending.get(event.data.id);
      if (!job) return;
      pending.delete(event.data.id);
      if (event.data.error) job.reject(new Error(event.data.error));
      else job.resolve(event.data.answers);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker = null;
      const jobs = [...pending.values()];
      pending.clear();
      for (const job of jobs) load(job.requests).then(job.resolve, job.reject);
    };
  } catch (e) { worker = null; }
  function load(requests) {
    if (!worker) {
      return ctx.fetchJSON(ROUTE, null, {method: "POST", body: new URLSearchParams({requests})});
    }
    return new Promise((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, {requests, resolve, reject});
      worker.postMessage({id, url: ROUTE, requests});
    });
  }

  // What identifies a series' content cheaply: its runs, lengths and last points (series only
  // grow at the end; a downsampled one changes length when it changes at all). A scalar
  // series comes as columns ({wallTime, step, value}), the others as lists of points.
  function signature(runToSeries) {
    return Object.entries(runToSeries || {}).map(([run, s]) => {
      if (Array.isArray(s)) return run + ":" + s.length + ":" + JSON.stringify(s[s.length - 1] || null);
      const n = s.step.length;
      return run + ":" + n + ":" + (n ? [s.wallTime[n - 1], s.step[n - 1], s.value[n - 1]].join() : "");
    }).join("|");
  }

  function onIntersect(entries) {
    const loads = [];
    for (const entry of entries) {
      const card = byElement.get(entry.target);
      if (!card) continue;
      if (!entry.isIntersecting) { visible.delete(card); continue; }
      visible.add(card);
      if (card.stale && T.flying()) T.whenSlow(() => { if (visible.has(card) && card.stale) enqueue(card); });
      else if (card.stale) loads.push(enqueue(card));
      else if (card.dirty) { card.dirty = false; drawSoon(card); }
    }
    if (loads.length) api.loaded = Promise.all(loads);
  }

  function drawSoon(card) {
    if (T.scrolling()) T.drawWhenIdle(card); else card.draw();
  }

  // A setting changed: redraw what is on screen now, the rest when it scrolls in. Changes
  // within one frame are drawn once (a reset or a full redraw asked by any of them wins).
  const redrawSoon = C.perFrame((reset, reason) => redrawAll(reset, reason),
    (a, b) => [a[0] || b[0], a[1] === b[1] ? a[1] : "all"]);
  function redrawAll(reset, reason) {
    const draws = [];
    for (const card of cards.values()) {
      if (reset) card.resetView = true;
      if (!card.loaded) continue;
      if (onScreen.has(card)) draws.push(card.draw(reason));
      else card.dirty = true;
    }
    api.redrawn = Promise.all(draws);
    return api.redrawn;
  }

  function refreshVisible() {
    for (const card of cards.values()) card.stale = true;
    const loads = [...visible].map(enqueue);
    api.loaded = Promise.all(loads);
    return api.loaded;
  }

  function fullscreen(card, on) {
    for (const other of cards.values()) {
      if (other !== card && other.el.classList.contains("ts-fullscreen")) fullscreen(other, false);
    }
    card.el.classList.toggle("ts-fullscreen", on);
    card.el.querySelector(".ts-fullscreen-btn").textContent = on ? "close" : "expand";
    document.body.classList.toggle("ts-has-fullscreen", on);
    if (card.loaded) card.draw();
  }

  // The default tab's tag index is asked for while the page's shell is still starting, so
  // the first cards wait for one round trip less (only when this tab will open first).
  const wanted = new URLSearchParams(window.location.hash.replace(/^#/, "")).get("tab");
  let prefetched = !wanted || wanted === "timeseries" ? fetch("/data/plugin/timeseries/tags") : null;
  if (prefetched) prefetched.catch(() => {});

  // Fetch the tag index; lay the cards out again only when it changed. Returns whether it did.
  async function render() {
    let text;
    try {
      const response = await (prefetched || fetch("/data/plugin/timeseries/tags"));
      prefetched = null;
      text = await response.text();
      if (!response.ok) throw new Error(response.status + " " + response.statusText);
      index = JSON.parse(text);
    } catch (e) {
      statusEl.textContent = "Could not load the tags: " + e.message;
      return false;
    }
    if (text === indexText) return false;
    indexText = text;
    layout();
    return true;
  }

  function buildToolbar(container) {
    const bar = C.toolbar();
    const filter = document.createElement("input");
    filter.type = "text";
    filter.className = "tag-filter ts-tag-filter";
    filter.placeholder = "Filter tags (regex)";
    filter.value = tagFilter();
    filter.addEventListener("input", () => { ctx.setState("tags", filter.value); if (index) layout(); });
    const type = C.select([["all", "All"], ["scalars", "Scalars"], ["histograms", "Histograms"],
      ["images", "Images"]], typeFilter());
    type.className = "ts-type";
    type.addEventListener("change", () => {
      ctx.setState("type", type.value === "all" ? undefined : type.value);
      if (index) layout();
    });
    const width = document.createElement("input");
    width.type = "range"; width.min = "240"; width.max = "1600"; width.step = "20";
    width.className = "ts-card-width";
    width.value = String(S.get("cardWidth"));
    width.addEventListener("input", () => S.set("cardWidth", width.value));
    S.onChange((name, value) => {
      if (name === "cardWidth") width.value = String(value);
      if (["smoothing", "ignoreOutliers", "histogramMode", "histogramAxis", "theme"].includes(name)) {
        api.redrawn = redrawSoon(false, name);
      }
      if (name === "xAxis") api.redrawn = redrawSoon(true, "all");
    });
    bar.append(filter, C.labelled("Type", type), C.labelled("Card width", width));
    container.append(bar);
  }

  window.lens.registerDashboard({
    id: "timeseries", title: "Time Series", plugin: "timeseries",
    mount(container, context) {
      ctx = context;
      buildToolbar(container);
      statusEl = document.createElement("div");
      statusEl.className = "muted status";
      pinnedEl = document.createElement("section");
      pinnedEl.className = "ts-pinned";
      const head = document.createElement("h3");
      head.textContent = "Pinned";
      const empty = document.createElement("div");
      empty.className = "ts-pinned-empty muted";
      empty.textContent = "Pin a card (its \"pin\" button) to keep it here; pins are kept in " +
        "the URL and in this browser.";
      pinnedCards = document.createElement("div");
      pinnedCards.className = "card-grid ts-pinned-cards";
      pinnedEl.append(head, empty, pinnedCards);
      cardsEl = document.createElement("div");
      cardsEl.className = "cards";
      container.append(statusEl, pinnedEl, cardsEl);
      const scroller = document.getElementById("dashboards");
      if (scroller) T.watchScroll(scroller);
      observer = new IntersectionObserver(onIntersect, {rootMargin: "200px"});
      screenObserver = new IntersectionObserver((entries) => {
        for (const entry of entries) {
          const card = byElement.get(entry.target);
          if (!card) continue;
          card.onScreen = entry.isIntersecting;
          if (!entry.isIntersecting) { onScreen.delete(card); continue; }
          onScreen.add(card);
          if (card.dirty && card.loaded) { card.dirty = false; drawSoon(card); }
        }
      });
      document.addEventListener("keydown", (ev) => {
        if (ev.key !== "Escape") return;
        for (const card of cards.values()) if (card.el.classList.contains("ts-fullscreen")) fullscreen(card, false);
      });
      render();
    },
    onRunsChanged() {
      if (!ctx || !index) return;
      layout();
      refreshVisible();
    },
    async onReload() {
      if (!ctx) return;
      await render();
      await refreshVisible();
    },
  });
})();
