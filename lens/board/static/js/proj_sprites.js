// Sprites as the plotted points of a 2D projection: every point's tile of the sprite sheet
// drawn at its place on one canvas laid over plotly's plot area (one drawImage a point, points
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

  // points: [[x, y], ...] in data units; image: the loaded sprite sheet; dim: [w, h] of a tile.
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
    canvas.width = Math.round(size.w * ratio);
    canvas.height = Math.round(size.h * ratio);
    const g = canvas.getContext("2d");
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.imageSmoothingEnabled = false;  // crisp pixels, as the sprite was drawn
    const perRow = Math.max(1, Math.floor(image.naturalWidth / w));
    const px = Math.max(MIN_PX, Math.min(MAX_PX, w));
    const py = px * h / w;
    const xa = L.xaxis, ya = L.yaxis;
    let drawn = 0;
    for (let i = 0; i < points.length; i++) {
      const x = xa.l2p(points[i][0]), y = ya.l2p(points[i][1]);
      if (!(x >= -px && y >= -py && x <= size.w + px && y <= size.h + py)) continue;
      g.drawImage(image, (i % perRow) * w, Math.floor(i / perRow) * h, w, h,
        x - px / 2, y - py / 2, px, py);
      drawn++;
    }
    gd.dataset.sprites = String(drawn);
    return drawn;
  }

  return {draw, clear, hide};
})();
