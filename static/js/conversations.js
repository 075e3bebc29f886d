/* Groundwork chat, everyday actions: copy an answer, stop an answer, the question counter,
   the thumbs-down comment. No inline script; works on swapped-in fragments (event delegation). */
(function () {
  "use strict";

  function counter() {
    var box = document.getElementById("question");
    var out = document.getElementById("question-counter");
    if (!box || !out) { return; }
    var max = parseInt(box.getAttribute("data-max-chars") || "0", 10);
    var length = box.value.length;
    var count = out.querySelector("[data-count]");
    if (count) { count.textContent = String(length); }
    var over = max > 0 && length > max;
    out.classList.toggle("over-limit", over);
    box.setAttribute("aria-invalid", over ? "true" : "false");
    var note = out.querySelector("[data-over]");
    if (over && !note) {
      note = document.createElement("strong");
      note.setAttribute("data-over", "");
      out.appendChild(note);
    }
    if (note) { note.textContent = over ? " · too long by " + (length - max) + ": shorten it to ask" : ""; }
  }
  document.addEventListener("input", function (event) {
    if (event.target && event.target.id === "question") { counter(); }
  });
  document.addEventListener("DOMContentLoaded", counter);
  document.addEventListener("htmx:afterSettle", counter);

  // Over the limit nothing is sent (the server refuses too, with the same numbers).
  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail && event.detail.elt;
    if (!form || form.id !== "ask-form") { return; }
    var box = document.getElementById("question");
    var max = box ? parseInt(box.getAttribute("data-max-chars") || "0", 10) : 0;
    if (box && max > 0 && box.value.trim().length > max) {
      event.preventDefault();
      counter();
      box.focus();
      return;
    }
    form.classList.add("asking");
  }, true);
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail && event.detail.elt;
    if (form && form.id === "ask-form") { form.classList.remove("asking"); }
  });

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) { return; }
    var stop = target.closest("[data-stop-answer]");
    if (stop) {
      var form = stop.closest("form");
      if (form && form.groundworkAbort) { form.groundworkAbort.abort(); }
      else if (form && window.htmx) { window.htmx.trigger(form, "htmx:abort"); }
      if (form) {
        form.classList.remove("asking");
        var ask = form.querySelector("button[type=submit]");
        if (ask) { ask.disabled = false; }
      }
      return;
    }
    var copy = target.closest("[data-copy-answer]");
    if (copy) {
      var article = copy.closest("article");
      var text = article ? article.querySelector(".answer-text") : null;
      if (!text) { return; }
      var done = function () {
        copy.textContent = "Copied";
        window.setTimeout(function () { copy.textContent = "Copy answer"; }, 2000);
      };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text.innerText).then(done, function () { copy.textContent = "Copy failed"; });
      }
    }
  });
})();

/* Scrollable blocks of a previewed source (code, wide tables) take keyboard focus, so a
   keyboard user can scroll them too (axe: scrollable-region-focusable). */
(function () {
  "use strict";
  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (!target || target.id !== "preview-body") { return; }
    target.querySelectorAll(".preview-content pre, .preview-content table").forEach(function (el) {
      if (el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight) {
        el.setAttribute("tabindex", "0");
      }
    });
  });
})();
