// Colours (structure templates, devices, compute/memory scale) and the dashboard's CSS.
// SVG colours are set as attributes so a downloaded SVG/PNG looks like the screen.
(function () {
  "use strict";
  const G = window.lensGraph;

  const TEMPLATE_COLORS = ["#a6cee3", "#b2df8a", "#fdbf6f", "#cab2d6", "#fb9a99", "#ffff99",
    "#8dd3c7", "#bebada", "#80b1d3", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f"];
  const DEVICE_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  G.UNIQUE_FILL = "#e6e6e6";    // metanodes whose structure occurs once
  G.OP_FILL = "#ffffff";
  G.NO_DEVICE = "#d0d0d0";
  G.SCALE_LOW = [0xff, 0xf5, 0xf0];  // #fff5f0 -> #fb6a4a, TensorBoard's compute/memory scale
  G.SCALE_HIGH = [0xfb, 0x6a, 0x4a];

  G.templateColor = function (id) { return TEMPLATE_COLORS[id % TEMPLATE_COLORS.length]; };

  // The graph's devices plus those measured in the selected session run, in a stable order.
  G.deviceList = function (S) {
    const all = new Set(S.h.devices);
    if (S.stats) S.stats.devices.forEach(function (d) { all.add(d); });
    return Array.from(all).sort();
  };

  G.deviceColor = function (S, device) {
    if (!device) return G.NO_DEVICE;
    const named = G.deviceList(S).filter(function (d) { return d; });
    return DEVICE_COLORS[named.indexOf(device) % DEVICE_COLORS.length];
  };

  G.scaleColor = function (t) {
    const c = G.SCALE_LOW.map(function (lo, i) {
      return Math.round(lo + (G.SCALE_HIGH[i] - lo) * Math.max(0, Math.min(1, t)));
    });
    return "rgb(" + c.join(",") + ")";
  };

  // Edge width: power scale (exponent 0.3) of element count over 1..5e6 -> 0.75..12 px.
  G.edgeWidth = function (e) {
    if (e[5] !== null && e[5] !== undefined) {
      const lo = Math.pow(1, 0.3), hi = Math.pow(5e6, 0.3);
      const t = (Math.pow(Math.max(1, Math.min(5e6, e[5])), 0.3) - lo) / (hi - lo);
      return 0.75 + t * (12 - 0.75);
    }
    return Math.min(6, 1 + 0.5 * Math.max(0, e[2] + e[3] - 1));
  };

  G.formatBytes = function (n) {
    const units = ["B", "KB", "MB", "GB", "TB"];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
    return (i ? n.toFixed(1) : String(n)) + " " + units[i];
  };
  G.formatMicros = function (us) {
    if (us >= 1e6) return (us / 1e6).toFixed(2) + " s";
    if (us >= 1e3) return (us / 1e3).toFixed(2) + " ms";
    return Math.round(us) + " µs";
  };

  const CSS = [
    ".lg-root{display:flex;flex-direction:column;height:calc(100vh - 90px);min-height:420px}",
    ".lg-controls{display:flex;flex-wrap:wrap;gap:6px;align-items:center;padding:4px 0}",
    ".lg-controls select,.lg-controls input[type=search]{max-width:220px}",
    ".lg-status{color:#555;padding:2px 0}",
    ".lg-body{flex:1;display:flex;min-height:0;border:1px solid #ccc}",
    ".lg-canvas{flex:1;position:relative;overflow:hidden;background:#fafafa}",
    ".lg-canvas svg{width:100%;height:100%;cursor:grab;user-select:none}",
    ".lg-side{width:320px;overflow:auto;border-left:1px solid #ccc;padding:6px;font-size:12px}",
    ".lg-side h3{font-size:13px;margin:6px 0 2px}",
    ".lg-side ul{margin:0;padding-left:14px}",
    ".lg-side li{word-break:break-all}",
    ".lg-side .lg-link{cursor:pointer;color:#1a57b5;text-decoration:underline}",
    ".lg-hits li{cursor:pointer}",
    ".lg-error{color:#b00020}",
    ".lg-node{cursor:pointer}",
    ".lg-toggle{cursor:pointer}",
    ".lg-legend-row{display:flex;align-items:center;gap:4px}",
    ".lg-swatch{display:inline-block;width:12px;height:12px;border:1px solid #888}",
    ".lg-gradient{height:10px;background:linear-gradient(to right,#fff5f0,#fb6a4a);border:1px solid #888}",
    ".lg-minimap{position:absolute;right:8px;bottom:8px;background:rgba(255,255,255,0.92);" +
      "border:1px solid #bbb;border-radius:3px;box-shadow:0 1px 4px rgba(0,0,0,0.2);cursor:crosshair}",
    ".lg-minimap-svg{display:block;width:180px;height:120px;cursor:crosshair}",
  ].join("\n");

  G.installStyle = function () {
    if (document.getElementById("lg-style")) return;
    const style = document.createElement("style");
    style.id = "lg-style";
    style.textContent = CSS;
    document.head.appendChild(style);
  };
})();
