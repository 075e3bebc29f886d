// Documents page: drop files on the drop zone to upload them (htmx posts the form).
(function () {
  "use strict";
  function setUp() {
    var zone = document.getElementById("dropzone");
    var input = document.getElementById("upload-files");
    var form = document.getElementById("upload-form");
    if (!zone || !input || !form) return;
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (event) {
        event.preventDefault();
        zone.classList.add("dragging");
      });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function () { zone.classList.remove("dragging"); });
    });
    zone.addEventListener("drop", function (event) {
      event.preventDefault();
      if (!event.dataTransfer || !event.dataTransfer.files.length) return;
      input.files = event.dataTransfer.files;
      form.requestSubmit();
    });
    // picking files uploads them straight away, as dropping does
    input.addEventListener("change", function () {
      if (input.files.length) form.requestSubmit();
    });
    // once sent, clear the picker so the same file can be chosen again
    document.body.addEventListener("htmx:afterRequest", function (event) {
      if (event.detail.elt === form) {
        form.reset();
        var empty = document.getElementById("no-jobs");
        if (empty) empty.remove();
      }
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
