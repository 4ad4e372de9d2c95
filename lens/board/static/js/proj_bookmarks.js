// Projector bookmarks: named views (projection, 2D/3D, colour and label columns, search, the
// selected point, the camera). Two sources: the embedding's bookmarks file from the projector
// config (bookmarks_path, served by /bookmarks; read-only, as in TensorBoard) and bookmarks
// saved in this browser (localStorage, per run and tensor). A bookmark is TensorBoard's State
// object (label, selectedProjection, cameraDef, selectedColorOptionName, selectedLabelOption,
// selectedPoints) plus a "lens" entry with what plotly needs to put the view back exactly;
// "Download" writes the saved ones as a file a config's bookmarks_path can name.
"use strict";

window.lensProjBookmarks = (function () {
  const KEY = "lens.projector.bookmarks";

  function readLocal() {
    try {
      const all = JSON.parse(localStorage.getItem(KEY) || "{}");
      return all && typeof all === "object" && !Array.isArray(all) ? all : {};
    } catch (e) { return {}; }
  }
  function writeLocal(all) {
    try { localStorage.setItem(KEY, JSON.stringify(all)); return true; }
    catch (e) { return false; }  // storage full or disabled: say so in the panel
  }

  function button(text, cls) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.className = cls;
    return b;
  }

  // The panel; hooks: {key() -> "run\ttensor" or null, capture(label) -> bookmark,
  // apply(bookmark) -> Promise, serverList() -> Promise<[bookmark]>}.
  function panel(hooks) {
    const root = document.createElement("div");
    root.className = "proj-bookmarks";
    const head = document.createElement("div");
    head.className = "proj-bookmarks-head";
    head.textContent = "Bookmarks";
    const name = document.createElement("input");
    name.type = "text";
    name.className = "proj-bookmark-name";
    name.placeholder = "name this view";
    const save = button("Save view", "proj-bookmark-save");
    const download = button("Download", "proj-bookmark-download");
    download.title = "Save this browser's bookmarks of this tensor as a bookmarks file";
    const list = document.createElement("ul");
    list.className = "proj-bookmark-list";
    const note = document.createElement("div");
    note.className = "muted proj-bookmark-note";
    root.append(head, name, save, download, list, note);
    let server = [];

    function local() {
      const key = hooks.key();
      return key ? (readLocal()[key] || []) : [];
    }
    function setLocal(items) {
      const key = hooks.key();
      if (!key) return;
      const all = readLocal();
      if (items.length) all[key] = items; else delete all[key];
      if (!writeLocal(all)) note.textContent = "This browser refused to store bookmarks.";
    }

    function item(bookmark, index, fromFile) {
      const li = document.createElement("li");
      li.className = "proj-bookmark" + (fromFile ? " proj-bookmark-file" : "");
      li.dataset.label = bookmark.label || "";
      const open = button(bookmark.label || "(unnamed)", "proj-bookmark-open");
      open.title = fromFile ? "From the bookmarks file of the projector config" : "Saved in this browser";
      open.addEventListener("click", () => {
        note.textContent = "";
        hooks.apply(bookmark).catch((e) => { note.textContent = e.message; });
      });
      li.append(open);
      if (fromFile) {
        const tag = document.createElement("span");
        tag.className = "muted";
        tag.textContent = " (file)";
        li.append(tag);
      } else {
        const del = button("\u00d7", "proj-bookmark-delete");
        del.title = "Delete this bookmark";
        del.addEventListener("click", () => {
          const items = local();
          items.splice(index, 1);
          setLocal(items);
          render();
        });
        li.append(del);
      }
      return li;
    }

    function render() {
      const mine = local();
      list.replaceChildren(...server.map((b, i) => item(b, i, true)),
        ...mine.map((b, i) => item(b, i, false)));
      download.disabled = !mine.length;
      root.dataset.count = String(server.length + mine.length);
    }

    save.addEventListener("click", () => {
      if (!hooks.key()) return;
      const items = local();
      const label = name.value.trim() || "view " + (items.length + 1);
      items.push(hooks.capture(label));
      setLocal(items);
      name.value = "";
      render();
    });
    download.addEventListener("click", () => {
      const blob = new Blob([JSON.stringify(local(), null, 2)], {type: "application/json"});
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = "bookmarks.json";
      a.click();
      setTimeout(() => URL.revokeObjectURL(a.href), 1000);
    });

    // A new run or tensor: its file bookmarks (when the config names a file) and saved ones.
    async function reload() {
      server = [];
      note.textContent = "";
      render();
      try {
        const got = await hooks.serverList();
        server = Array.isArray(got) ? got.filter((b) => b && typeof b === "object") : [];
      } catch (e) {
        note.textContent = "Bookmarks file: " + e.message;
      }
      render();
    }

    return {root, reload};
  }

  return {panel};
})();
