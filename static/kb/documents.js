// Documents page: choosing or dropping files uploads them at once (htmx posts the form), so
// the Upload button opens the file chooser instead of sending an empty form; a sort link
// keeps the keyboard focus on its column after the table is replaced.
(function () {
  "use strict";
  function setUp() {
    var zone = document.getElementById("dropzone");
    var input = document.getElementById("upload-files");
    var form = document.getElementById("upload-form");
    var button = document.getElementById("upload-button");
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
    // so there is never anything left to send: the button chooses the files (without
    // JavaScript it stays a plain submit button)
    if (button) {
      button.type = "button";
      button.textContent = "Upload files…";
      button.addEventListener("click", function () { input.click(); });
      form.classList.add("uploads-on-choose");
      input.tabIndex = -1; // the button is the keyboard's way in
    }
    // once sent, clear the picker so the same file can be chosen again
    document.body.addEventListener("htmx:afterRequest", function (event) {
      if (event.detail.elt === form) {
        form.reset();
        var empty = document.getElementById("no-jobs");
        if (empty) empty.remove();
      }
    });
    var sortedBy = null;
    document.body.addEventListener("htmx:beforeRequest", function (event) {
      var column = event.detail.elt.getAttribute("data-sort-column");
      if (column) sortedBy = column;
    });
    document.body.addEventListener("htmx:afterSettle", function (event) {
      if (!sortedBy || event.detail.target.id !== "document-list") return;
      var link = document.querySelector('#document-list a[data-sort-column="' + sortedBy + '"]');
      sortedBy = null;
      if (link) link.focus();
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
