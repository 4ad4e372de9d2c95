// The board's shell: tabs, the shared run selector, URL-hash state, reload and progress.
// Dashboards register with window.lens.registerDashboard({...}) before DOMContentLoaded.
"use strict";

window.lens = (function () {
  // Colour-blind-friendly palette; runs keep the colour of the order they were first seen in.
  const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#7b4173"];
  const dashboards = [];
  const colors = new Map();
  let allRuns = [];
  let listing = {};
  let active = null;
  let reloadTimer = null;
  let reloadSeconds = 5;
  let loadingDone = false;
  let runsEvents = -1;  // events the server had read when it last listed the runs
  let runErrors = {};  // run -> {count, skipped, first}: errors met while loading that run
  let runProgress = {};  // run -> {bytes_read, bytes_total, events} while the first load runs

  function escapeHtml(s) {
    return String(s).replace(/[&<>"']/g, (c) => ({
      "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
  }

  // ---- URL hash state: a view can be shared by copying the address --------------------------
  function readHash() {
    return new URLSearchParams(window.location.hash.replace(/^#/, ""));
  }
  function getState(key) {
    const value = readHash().get(key);
    return value === null ? undefined : value;
  }
  function setState(key, value) {
    const params = readHash();
    if (value === undefined || value === null || value === "") params.delete(key);
    else params.set(key, String(value));
    const hash = params.toString();
    // replaceState: state changes must not flood the back button or fire hashchange.
    history.replaceState(null, "", hash ? "#" + hash : window.location.pathname);
  }

  // ---- fetching -------------------------------------------------------------------------------
  async function fetchJSON(path, params, options) {
    const query = params ? "?" + new URLSearchParams(params).toString() : "";
    const response = await fetch(path + query, options);
    let body;
    try { body = await response.json(); } catch (e) { body = null; }
    if (!response.ok) {
      const message = body && body.error ? body.error : response.status + " " + response.statusText;
      const err = new Error(message);
      err.status = response.status;
      throw err;
    }
    if (options && options.withResponse) return {body, response};
    return body;
  }

  function showError(message) {
    const box = document.getElementById("global-error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  // ---- runs -----------------------------------------------------------------------------------
  function runColor(run) {
    if (!colors.has(run)) colors.set(run, PALETTE[colors.size % PALETTE.length]);
    return colors.get(run);
  }
  function runFilter() {
    const text = document.getElementById("run-filter").value;
    const errorBox = document.getElementById("run-filter-error");
    if (!text) { errorBox.hidden = true; return null; }
    try {
      const re = new RegExp(text);
      errorBox.hidden = true;
      return re;
    } catch (e) {
      errorBox.textContent = "Invalid regex: " + e.message;
      errorBox.hidden = false;
      return null;
    }
  }
  function checkedRuns() {
    const stored = getState("runs");
    if (stored === undefined) return new Set(allRuns);
    try { return new Set(JSON.parse(stored)); } catch (e) { return new Set(allRuns); }
  }
  function selectedRuns() {
    const re = runFilter();
    const checked = checkedRuns();
    return allRuns.filter((r) => checked.has(r) && (!re || re.test(r)));
  }
  function setChecked(set) {
    const everything = allRuns.every((r) => set.has(r));
    setState("runs", everything ? undefined : JSON.stringify(allRuns.filter((r) => set.has(r))));
    renderRunList();
    notifyRunsChanged();
  }
  function renderRunList() {
    const list = document.getElementById("run-list");
    const re = runFilter();
    const checked = checkedRuns();
    list.replaceChildren();
    for (const run of allRuns) {
      if (re && !re.test(run)) continue;
      const item = document.createElement("li");
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.checked = checked.has(run);
      box.dataset.run = run;
      box.addEventListener("change", () => {
        const now = checkedRuns();
        if (box.checked) now.add(run); else now.delete(run);
        setChecked(now);
      });
      const swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = runColor(run);
      const name = document.createElement("span");
      name.className = "run-name";
      name.textContent = run;
      label.append(box, swatch, name);
      if (runErrors[run]) label.append(errorMark(runErrors[run]));
      label.append(progressMark(run));
      item.append(label);
      list.append(item);
    }
  }
  // A warning sign whose tooltip says what went wrong; the server's message stays plain text.
  function errorMark(err) {
    const mark = document.createElement("span");
    mark.className = "run-warning";
    mark.textContent = "\u26a0";
    const lost = err.skipped ? err.skipped + " record(s) or value(s) could not be read. " :
      "Nothing was lost. ";
    mark.title = err.count + " error(s) while loading this run. " + lost + "First: " + err.first;
    mark.setAttribute("aria-label", mark.title);
    mark.setAttribute("role", "img");
    return mark;
  }
  // "42%" beside a run still being read (empty once it is read, or when loading is done).
  function progressMark(run) {
    const mark = document.createElement("span");
    mark.className = "run-progress muted";
    mark.dataset.run = run;
    const p = runProgress[run];
    if (p && p.bytes_total > 0 && p.bytes_read < p.bytes_total) {
      const pct = Math.floor(100 * p.bytes_read / p.bytes_total);
      mark.textContent = pct + "%";
      mark.title = "Loading: " + (p.bytes_read / 1e6).toFixed(1) + " of " +
        (p.bytes_total / 1e6).toFixed(1) + " MB, " + p.events + " events so far";
    }
    return mark;
  }
  function noteProgress(perRun) {
    runProgress = perRun || {};
    for (const old of document.querySelectorAll("#run-list .run-progress")) {
      old.replaceWith(progressMark(old.dataset.run));  // in place: checkboxes keep focus
    }
  }
  // A cache dir that cannot be written (read-only, full, blocked): said once, dismissed by a click.
  let cacheNoted = false;
  function noteCache(cache) {
    if (cacheNoted || !cache || cache.ok !== false || !cache.dir) return;
    cacheNoted = true;
    const notice = document.getElementById("cache-notice");
    notice.textContent = "\u26a0 Cache unavailable: serving from memory";
    notice.title = cache.error + " (click to dismiss)";
    notice.addEventListener("click", () => { notice.hidden = true; }, {once: true});
    notice.hidden = false;
  }
  function noteErrors(errors) {
    errors = errors || {};
    if (JSON.stringify(errors) === JSON.stringify(runErrors)) return;
    runErrors = errors;
    renderRunList();
  }
  function notifyRunsChanged() {
    for (const d of dashboards) d.stale = true;
    if (active && active.mounted) { active.stale = false; active.onRunsChanged(selectedRuns()); }
  }

  // ---- tabs -----------------------------------------------------------------------------------
  function isEnabled(d) {
    return !listing[d.plugin] || listing[d.plugin].enabled;
  }
  function renderTabs() {
    const nav = document.getElementById("tabs");
    const inactive = document.getElementById("inactive-tabs");
    nav.replaceChildren();
    inactive.replaceChildren();
    const placeholder = document.createElement("option");
    placeholder.textContent = "Inactive";
    placeholder.value = "";
    inactive.append(placeholder);
    for (const d of dashboards) {
      if (isEnabled(d) || d === active) {
        const tab = document.createElement("button");
        tab.type = "button";
        tab.className = "tab" + (d === active ? " active" : "");
        tab.dataset.dashboard = d.id;
        tab.textContent = d.title;
        tab.addEventListener("click", () => activate(d));
        nav.append(tab);
      } else {
        const option = document.createElement("option");
        option.value = d.id;
        option.textContent = d.title;
        inactive.append(option);
      }
    }
    inactive.hidden = inactive.options.length <= 1;
    const current = nav.querySelector(".tab.active");
    if (current) current.scrollIntoView({block: "nearest", inline: "nearest"});
    updateTabArrows();
    const anyEnabled = dashboards.some((d) => listing[d.plugin] && listing[d.plugin].enabled);
    document.getElementById("empty-state").hidden = anyEnabled || !loadingDone;
  }
  // Tabs that do not fit scroll sideways; the arrows say more are there and page through them.
  function updateTabArrows() {
    const nav = document.getElementById("tabs");
    const overflow = nav.scrollWidth > nav.clientWidth + 1;
    document.getElementById("tabs-left").hidden = !overflow || nav.scrollLeft <= 0;
    document.getElementById("tabs-right").hidden =
      !overflow || nav.scrollLeft + nav.clientWidth >= nav.scrollWidth - 1;
  }
  function initTabArrows() {
    const nav = document.getElementById("tabs");
    const page = (sign) => nav.scrollBy({left: sign * nav.clientWidth * 0.8, behavior: "smooth"});
    document.getElementById("tabs-left").addEventListener("click", () => page(-1));
    document.getElementById("tabs-right").addEventListener("click", () => page(1));
    nav.addEventListener("scroll", updateTabArrows, {passive: true});
    new ResizeObserver(updateTabArrows).observe(nav);
  }
  function activate(d) {
    if (!d) return;
    if (active && active !== d) active.container.hidden = true;
    active = d;
    setState("tab", d.id);
    d.container.hidden = false;
    if (!d.mounted) {
      d.mounted = true;
      d.stale = false;
      try { d.mount(d.container, d.ctx); } catch (e) { showError(d.title + ": " + e.message); }
    } else if (d.stale) {
      d.stale = false;
      d.onRunsChanged(selectedRuns());
    }
    renderTabs();
  }
  function defaultDashboard() {
    const wanted = getState("tab");
    return dashboards.find((d) => d.id === wanted) ||
      dashboards.find((d) => listing[d.plugin] && listing[d.plugin].enabled) || dashboards[0];
  }

  function registerDashboard(spec) {
    const d = Object.assign({onRunsChanged() {}, onReload() {}}, spec);
    const container = document.createElement("section");
    container.className = "dashboard";
    container.id = "dashboard-" + d.id;
    container.hidden = true;
    d.container = container;
    d.ctx = makeContext(d);
    dashboards.push(d);
    if (document.readyState !== "loading") start.attach(d);
    return d;
  }
  function makeContext(d) {
    const prefix = d.id + ".";
    return {
      selectedRuns, runColor, fetchJSON, escapeHtml,
      allRuns: () => allRuns.slice(),
      getState: (key) => getState(prefix + key),
      setState: (key, value) => setState(prefix + key, value),
    };
  }

  // ---- reload and progress --------------------------------------------------------------------
  async function refreshRuns() {
    const {body: runs, response} = await fetchJSON("/data/runs", null, {withResponse: true});
    runsEvents = Number(response.headers.get("X-Lens-Events") || -1);
    const changed = runs.length !== allRuns.length || runs.some((r, i) => r !== allRuns[i]);
    allRuns = runs;
    runs.forEach(runColor);
    if (changed) renderRunList();
    return changed;
  }
  async function reload() {
    try {
      // Both at once: each round trip delays the first chart.
      const [changed, plugins, progress] = await Promise.all([refreshRuns(),
        fetchJSON("/data/plugins_listing"), fetchJSON("/data/lens/progress").catch(() => null)]);
      listing = plugins;
      if (progress) { noteErrors(progress.errors); noteCache(progress.cache); }
      renderTabs();
      const justMounted = !active;
      if (!active) activate(defaultDashboard());
      for (const d of dashboards) if (d !== active) d.stale = true;
      if (active && active.mounted && !justMounted) {
        if (changed) active.onRunsChanged(selectedRuns());
        else await active.onReload();
      }
      showError("");
    } catch (e) {
      showError("Could not reach the lens board server: " + e.message);
    }
  }
  // `first`: the page's first reload, started alongside the first poll (one round trip less
  // before the first chart); polls neither repeat it nor, once loading is done, redo it when its
  // run listing already counted every event read.
  async function pollProgress(first) {
    let p;
    try { p = await fetchJSON("/data/lens/progress"); } catch (e) { return; }
    reloadSeconds = Math.max(2, p.reload_interval || 5);
    noteErrors(p.errors);
    noteCache(p.cache);
    const box = document.getElementById("progress");
    const wasDone = loadingDone;
    loadingDone = !!p.done;
    noteProgress(loadingDone ? {} : p.per_run);
    box.hidden = loadingDone;
    if (!loadingDone) {
      const total = p.bytes_total || 0;
      document.getElementById("progress-bar").value = total ? p.bytes_read / total : 0;
      document.getElementById("progress-text").textContent =
        "Loading " + p.runs + " runs: " + (p.bytes_read / 1e6).toFixed(1) + " of " +
        (total / 1e6).toFixed(1) + " MB, " + p.events + " events";
      await (first || reload());  // show whatever was read so far
      setTimeout(pollProgress, 1000);
    } else if (!wasDone) {
      if (first) await first;
      if (!first || runsEvents < p.events) await reload();
    }
  }
  function scheduleReload() {
    clearTimeout(reloadTimer);
    if (!document.getElementById("auto-reload").checked) return;
    reloadTimer = setTimeout(async () => { await reload(); scheduleReload(); }, reloadSeconds * 1000);
  }

  // ---- start ----------------------------------------------------------------------------------
  function start() {
    const main = document.getElementById("dashboards");
    dashboards.forEach(start.attach);
    const filter = document.getElementById("run-filter");
    filter.value = getState("runFilter") || "";
    filter.addEventListener("input", () => {
      setState("runFilter", filter.value);
      renderRunList();
      notifyRunsChanged();
    });
    document.getElementById("runs-all").addEventListener("click", () => {
      const now = checkedRuns();
      const re = runFilter();
      allRuns.filter((r) => !re || re.test(r)).forEach((r) => now.add(r));
      setChecked(now);
    });
    document.getElementById("runs-none").addEventListener("click", () => {
      const now = checkedRuns();
      const re = runFilter();
      allRuns.filter((r) => !re || re.test(r)).forEach((r) => now.delete(r));
      setChecked(now);
    });
    document.getElementById("reload").addEventListener("click", reload);
    const auto = document.getElementById("auto-reload");
    auto.checked = getState("autoReload") !== "0";
    auto.addEventListener("change", () => {
      setState("autoReload", auto.checked ? undefined : "0");
      scheduleReload();
    });
    initTabArrows();
    document.getElementById("inactive-tabs").addEventListener("change", (ev) => {
      activate(dashboards.find((d) => d.id === ev.target.value));
    });
    fetchJSON("/data/environment").then((env) => {
      document.getElementById("data-location").textContent = "Data location: " + env.data_location;
    }).catch(() => {});
    pollProgress(reload()).then(async () => {
      if (!active) await reload();
      scheduleReload();
    });
    // A hand-edited or pasted URL switches tabs without a page reload.
    window.addEventListener("hashchange", () => {
      const wanted = dashboards.find((d) => d.id === getState("tab"));
      if (wanted && wanted !== active) activate(wanted);
    });
    main.dataset.ready = "1";
  }
  start.attach = (d) => {
    if (!d.container.parentNode) document.getElementById("dashboards").append(d.container);
  };
  document.addEventListener("DOMContentLoaded", start);

  return {registerDashboard, escapeHtml, reload, _dashboards: dashboards};
})();
