// Images and Audio dashboards: a card per tag x run x sample with a step slider.
// A slider left on the newest step follows new data; one moved back stays put on reload.
"use strict";

(function () {
  const C = window.lensCharts;

  function mediaDashboard(kind) {
    const plugin = kind === "image" ? "images" : "audio";
    const listRoute = "/data/plugin/" + plugin + "/" + plugin;
    const blobRoute = "/data/plugin/" + plugin + (kind === "image" ? "/individualImage" : "/individualAudio");
    let ctx = null;
    let cardsEl = null;
    let statusEl = null;
    const openGroups = new Set();
    const cards = new Map();

    async function render() {
      let index;
      try { index = await ctx.fetchJSON("/data/plugin/" + plugin + "/tags"); }
      catch (e) { statusEl.textContent = "Could not load " + plugin + " tags: " + e.message; return; }
      const items = [];
      for (const run of ctx.selectedRuns()) {
        for (const [tag, meta] of Object.entries(index[run] || {})) {
          for (let s = 0; s < Math.max(1, meta.samples || 0); s++) items.push([tag, run, s]);
        }
      }
      statusEl.textContent = items.length ? "" : "No " + plugin + " for the selected runs.";
      const wanted = new Set(items.map((i) => i.join("\u0000")));
      for (const key of [...cards.keys()]) if (!wanted.has(key)) cards.delete(key);
      cardsEl.replaceChildren();
      for (const [group, tags] of C.groupTags(new Set(items.map(([t]) => t)))) {
        const groupItems = items.filter(([t]) => tags.includes(t));
        const {details, grid} = C.groupSection(group, groupItems.length, openGroups);
        for (const item of groupItems) grid.append(cardFor(...item).el);
        cardsEl.append(details);
      }
      C.packGroups(cardsEl);
      await Promise.all([...cards.values()].map(refresh));
    }

    function cardFor(tag, run, sample) {
      const key = [tag, run, sample].join("\u0000");
      if (cards.has(key)) return cards.get(key);
      const el = C.card(tag, run + (sample ? " · sample " + sample : ""));
      el.classList.add(kind + "-card");
      el.dataset.tag = tag;
      el.dataset.run = run;
      const label = document.createElement("div");
      label.className = "step-label muted";
      const slider = document.createElement("input");
      slider.type = "range";
      slider.className = "step-slider";
      slider.min = "0";
      const media = document.createElement(kind === "image" ? "img" : "audio");
      if (kind === "audio") media.controls = true;
      else media.alt = tag + " (" + run + ")";
      // Images scale to the card (crisp pixels, brightness/contrast from the settings, see
      // board.css); the frame scrolls when "show actual image size" makes one wider.
      const frame = document.createElement("div");
      frame.className = kind + "-frame";
      frame.append(media);
      el.append(label, slider, frame);
      const card = {tag, run, sample, el, label, slider, media, entries: [], pinnedStep: null};
      slider.addEventListener("input", () => {
        const i = parseInt(slider.value, 10);
        // Remember the step only when it is not the newest, so the newest keeps following data.
        card.pinnedStep = i === card.entries.length - 1 ? null : card.entries[i].step;
        const key = "step:" + run + ":" + tag + ":" + sample;
        ctx.setState(key, card.pinnedStep === null ? undefined : card.pinnedStep);
        show(card, i);
      });
      const saved = ctx.getState("step:" + run + ":" + tag + ":" + sample);
      if (saved !== undefined) card.pinnedStep = parseInt(saved, 10);
      cards.set(key, card);
      return card;
    }

    async function refresh(card) {
      try {
        card.entries = await ctx.fetchJSON(listRoute, {run: card.run, tag: card.tag, sample: String(card.sample)});
      } catch (e) { card.label.textContent = e.message; return; }
      if (!card.entries.length) { card.label.textContent = "no data"; return; }
      card.slider.max = String(card.entries.length - 1);
      card.slider.hidden = card.entries.length < 2;
      let i = card.entries.length - 1;
      if (card.pinnedStep !== null) {
        const found = card.entries.findIndex((e) => e.step === card.pinnedStep);
        if (found >= 0) i = found;
      }
      card.slider.value = String(i);
      show(card, i);
    }

    function show(card, i) {
      const entry = card.entries[i];
      if (!entry) return;
      card.label.textContent = "step " + entry.step + " · " + new Date(entry.wall_time * 1000).toLocaleString();
      const src = blobRoute + "?" + entry.query;
      if (card.media.getAttribute("src") !== src) card.media.src = src;
      card.el.dataset.step = String(entry.step);
    }

    window.lens.registerDashboard({
      id: plugin, title: kind === "image" ? "Images" : "Audio", plugin,
      mount(container, context) {
        ctx = context;
        [statusEl, cardsEl] = C.statusAndCards();
        container.append(statusEl, cardsEl);
        render();
      },
      onRunsChanged() { if (ctx) render(); },
      onReload() { if (ctx) return render(); },
    });
  }

  mediaDashboard("image");
  mediaDashboard("audio");
})();
