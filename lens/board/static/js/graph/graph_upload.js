// "Upload": view a GraphDef file (.pb binary or .pbtxt text) without a logdir. The server
// parses it (POST /data/plugin/graphs/upload) and the routes then answer for &upload=<id>.
(function () {
  "use strict";
  const G = window.lensGraph;
  G.UPLOAD_RUN = "\u0000upload:";  // S.run of an uploaded graph (no real run can be named so)

  G.initUpload = function (S, parts) {
    const input = G.el("input", { type: "file", class: "lg-upload-file",
      accept: ".pb,.pbtxt,.pbtext,.txt,.prototxt" });
    input.hidden = true;
    const button = G.el("button", { class: "lg-upload", type: "button",
      title: "View a GraphDef file (.pb or .pbtxt) from disk" }, "Upload");
    button.addEventListener("click", function () { input.click(); });
    input.addEventListener("change", function () {
      const file = input.files && input.files[0];
      input.value = "";
      if (file) G.uploadGraph(S, file, parts);
    });
    S.ui.bar.appendChild(button);
    S.ui.bar.appendChild(input);
    S.ui.upload = input;
  };

  G.uploadGraph = function (S, file, parts) {
    G.setStatus(S, "Reading " + file.name + "…");
    return S.ctx.fetchJSON("/data/plugin/graphs/upload", { name: file.name },
      { method: "POST", body: file, headers: { "Content-Type": "application/octet-stream" } })
      .then(function (answer) {
        S.upload = { id: answer.upload, name: answer.name };
        S.run = G.UPLOAD_RUN + answer.upload;
        S.statsTag = "";
        parts.fillRuns(S);
        parts.fillTags(S);
        return parts.loadGraph(S);
      })
      .catch(function (err) { G.setStatus(S, "Could not show " + file.name + ": " + err.message); });
  };
})();
