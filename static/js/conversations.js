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
      var text = article ? answerWithSources(article) : "";
      if (!text) { return; }
      var done = function () {
        copy.textContent = "Copied";
        window.setTimeout(function () { copy.textContent = "Copy answer"; }, 2000);
      };
      copyText(text).then(done, function () { copy.textContent = "Copy failed"; });
    }
  });

  // The answer as text, then its sources as a numbered list of titles and links.
  function answerWithSources(article) {
    var answer = article.querySelector(".answer-text");
    if (!answer) { return ""; }
    var lines = [answer.innerText.trim()];
    var chips = article.querySelectorAll(".citations .chip, .rejected-warning .chip");
    if (chips.length) {
      lines.push("", "Sources:");
      chips.forEach(function (chip) {
        var n = chip.querySelector(".chip-n");
        var label = chip.cloneNode(true);
        label.querySelectorAll(".chip-n, .badge").forEach(function (el) { el.remove(); });
        var badges = Array.prototype.map.call(chip.querySelectorAll(".badge-status"), function (b) { return b.textContent.trim(); });
        var title = label.textContent.replace(/\s+/g, " ").trim() + (badges.length ? " (" + badges.join(", ") + ")" : "");
        lines.push((n ? n.textContent.trim() : "-") + ". " + title + " — " + chip.href);
      });
    }
    return lines.join("\n");
  }

  // The clipboard API needs a secure context (https or localhost); plain http gets the
  // older copy command on a hidden text area.
  function copyText(text) {
    if (navigator.clipboard && navigator.clipboard.writeText && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    return new Promise(function (resolve, reject) {
      var area = document.createElement("textarea");
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      area.remove();
      if (ok) { resolve(); } else { reject(new Error("copy refused")); }
    });
  }
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

/* Phones: the conversation list is a drawer. The button at the chat's top opens it, focus
   moves into it; Esc, the close button, a click outside or choosing a conversation closes it
   and focus returns to the button. */
(function () {
  "use strict";
  var opener = null;
  function sidebar() { return document.getElementById("chat-sidebar"); }
  function setOpen(open) {
    var panel = sidebar();
    if (!panel) { return; }
    panel.classList.toggle("open", open);
    document.querySelectorAll("[data-drawer-open]").forEach(function (button) {
      button.setAttribute("aria-expanded", open ? "true" : "false");
    });
    if (open) {
      var first = panel.querySelector("a, input, button:not([data-drawer-close])");
      if (first) { window.setTimeout(function () { first.focus(); }, 0); }
    } else if (opener && document.contains(opener)) {
      opener.focus();
    }
  }
  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) { return; }
    var open = target.closest("[data-drawer-open]");
    if (open) { opener = open; setOpen(true); return; }
    var panel = sidebar();
    if (!panel || !panel.classList.contains("open")) { return; }
    if (target.closest("[data-drawer-close]") || !panel.contains(target)) { setOpen(false); }
  });
  document.addEventListener("keydown", function (event) {
    var panel = sidebar();
    if (event.key === "Escape" && panel && panel.classList.contains("open")) { setOpen(false); }
  });
})();
