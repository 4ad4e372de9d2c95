// The Time Series cards' loader, run as a Worker: it fetches a batch of series and parses it
// off the page's main thread, so a batch arriving while the grid scrolls costs no frame.
// Scalar series (asked for in the "columns" format) come back as three Float64Arrays per run,
// handed over without a copy; other answers come back as the route sent them.
"use strict";

function toNumber(v) {
  if (typeof v === "number") return v;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  return NaN;  // "NaN", as TensorBoard writes non-finite values
}

function typedColumns(series, transfer) {
  const out = {};
  for (const key of ["wallTime", "step", "value"]) {
    const list = series[key] || [];
    const column = new Float64Array(list.length);
    for (let i = 0; i < list.length; i++) column[i] = toNumber(list[i]);
    out[key] = column;
    transfer.push(column.buffer);
  }
  return out;
}

self.onmessage = async (event) => {
  const {id, url, requests} = event.data;
  try {
    const response = await fetch(url, {method: "POST", body: new URLSearchParams({requests})});
    let body = null;
    try { body = await response.json(); } catch (e) { body = null; }
    if (!response.ok || !Array.isArray(body)) {
      throw new Error(body && body.error ? body.error : response.status + " " + response.statusText);
    }
    const transfer = [];
    for (const answer of body) {
      const series = answer && answer.plugin === "scalars" && answer.runToSeries;
      if (!series) continue;
      for (const run of Object.keys(series)) {
        if (series[run] && !Array.isArray(series[run])) series[run] = typedColumns(series[run], transfer);
      }
    }
    self.postMessage({id, answers: body}, transfer);
  } catch (e) {
    self.postMessage({id, error: e.message || String(e)});
  }
};
