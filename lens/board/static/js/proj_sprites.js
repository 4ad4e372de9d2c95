// Sprites as the plotted points of a 2D projection: every point's tile of the sprite sheet
// drawn at its place on one canvas laid over plotly's plot area (its pixels copied, points
// outside the view skipped; `python -m bench projector` times 10k), redrawn after every plotly
// draw, zoom or pan (hidden while one drags). 3D scenes keep plain markers (the clicked point
// shows its sprite).
"use strict";

window.lensProjSprites = (function () {
  const MIN_PX = 12, MAX_PX = 28;

  function canvasFor(gd) {
    let canvas = gd.querySelector(":scope > canvas.proj-sprite-layer");
    if (!canvas) {
      canvas = document.createElement("canvas");
      canvas.className = "proj-sprite-layer";
      gd.style.position = "relative";
      gd.append(canvas);
    }
    return canvas;
  }

  function clear(gd) {
    const canvas = gd.querySelector(":scope > canvas.proj-sprite-layer");
    if (canvas) canvas.remove();
    gd.dataset.sprites = "0";
  }

  // While a zoom or pan drags, the tiles would lag behind the points: hidden until it ends.
  function hide(gd) {
    const canvas = gd.querySelector(":scope > canvas.proj-sprite-layer");
    if (canvas) canvas.style.visibility = "hidden";
  }

  // The sheet's pixels as 32-bit words, read once per image (one getImageData).
  const sheets = new WeakMap();
  function pixelsOf(image) {
    let sheet = sheets.get(image);
    if (!sheet) {
      const c = document.createElement("canvas");
      c.width = image.naturalWidth;
      c.height = image.naturalHeight;
      const g = c.getContext("2d");
      g.drawImage(image, 0, 0);
      const data = g.getImageData(0, 0, c.width, c.height).data;
      sheet = {width: c.width, words: new Uint32Array(data.buffer)};
      sheets.set(image, sheet);
    }
    return sheet;
  }

  // points: [[x, y], ...] in data units; image: the loaded sprite sheet; dim: [w, h] of a tile.
  // Tiles are copied pixel by pixel (nearest neighbour, crisp as drawn) into one ImageData:
  // a drawImage call per point costs more than the few hundred pixels it moves.
  // Returns how many tiles were drawn.
  function draw(gd, points, image, dim) {
    const L = gd._fullLayout;
    const [w, h] = dim || [0, 0];
    if (!L || !L.xaxis || !L.yaxis || !image || !w || !h || !points) { clear(gd); return 0; }
    const size = L._size;
    const canvas = canvasFor(gd);
    const ratio = window.devicePixelRatio || 1;
    Object.assign(canvas.style, {position: "absolute", left: size.l + "px", top: size.t + "px",
      width: size.w + "px", height: size.h + "px", pointerEvents: "none", visibility: "visible"});
    const W = canvas.width = Math.round(size.w * ratio);
    const H = canvas.height = Math.round(size.h * ratio);
    const g = canvas.getContext("2d");
    const out = g.createImageData(W, H);
    const dst = new Uint32Array(out.data.buffer);
    const sheet = pixelsOf(image);
    const src = sheet.words;
    const perRow = Math.max(1, Math.floor(sheet.width / w));
    const px = Math.max(MIN_PX, Math.min(MAX_PX, w));
    const py = px * h / w;
    const tw = Math.max(1, Math.round(px * ratio)), th = Math.max(1, Math.round(py * ratio));
    const xa = L.xaxis, ya = L.yaxis;
    let drawn = 0;
    for (let i = 0; i < points.length; i++) {
      const x = xa.l2p(points[i][0]), y = ya.l2p(points[i][1]);
      if (!(x >= -px && y >= -py && x <= size.w + px && y <= size.h + py)) continue;
      const left = Math.round((x - px / 2) * ratio), top = Math.round((y - py / 2) * ratio);
      const sx0 = (i % perRow) * w, sy0 = Math.floor(i / perRow) * h;
      for (let dy = Math.max(0, -top); dy < th && top + dy < H; dy++) {
        const srow = (sy0 + Math.floor(dy * h / th)) * sheet.width + sx0;
        const drow = (top + dy) * W + left;
        for (let dx = Math.max(0, -left); dx < tw && left + dx < W; dx++) {
          const p = src[srow + Math.floor(dx * w / tw)];
          const a = p >>> 24;
          if (a === 255) dst[drow + dx] = p;
          else if (a) dst[drow + dx] = blend(p, dst[drow + dx], a);
        }
      }
      drawn++;
    }
    g.putImageData(out, 0, 0);
    gd.dataset.sprites = String(drawn);
    return drawn;
  }

  // A translucent sprite pixel over what is below (RGBA bytes in a little-endian word).
  function blend(top, below, a) {
    const b = below >>> 24, k = a / 255, out = a + b * (1 - k);
    if (!out) return 0;
    let word = 0;
    for (let shift = 0; shift < 24; shift += 8) {
      const c = (((top >>> shift) & 255) * a + ((below >>> shift) & 255) * b * (1 - k)) / out;
      word |= (Math.round(c) & 255) << shift;
    }
    return (word | (Math.round(out) << 24)) >>> 0;
  }

  return {draw, clear, hide};
})();
