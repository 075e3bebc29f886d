/* Groundwork chat: citation preview modal states, keyboard submit, scroll. No inline script. */
(function () {
  "use strict";

  var modal = function () { return document.getElementById("preview-modal"); };
  var body = function () { return document.getElementById("preview-body"); };
  var lastPreviewUrl = null;
  var lastOpener = null;

  function setState(state, html) {
    var el = body();
    if (!el) { return; }
    el.setAttribute("data-state", state);
    if (html !== undefined) { el.innerHTML = html; }
  }

  function loadPreview(url) {
    lastPreviewUrl = url;
    setState("loading", '<p class="preview-loading" role="status">Loading the source…</p>');
    window.htmx.ajax("GET", url, { target: "#preview-body", swap: "innerHTML" });
  }

  function showError(status) {
    var message = status === 404
      ? "This source is not available to you. It may have been removed or moved to a project you cannot see."
      : "The source could not be loaded. Check your connection and try again.";
    var el = body();
    if (!el) { return; }
    el.setAttribute("data-state", "error");
    el.innerHTML = "";
    var p = document.createElement("p");
    p.className = "preview-error";
    p.setAttribute("role", "alert");
    p.textContent = message;
    var retry = document.createElement("button");
    retry.type = "button";
    retry.className = "button";
    retry.textContent = "Retry";
    retry.setAttribute("data-retry-preview", "");
    el.appendChild(p);
    el.appendChild(retry);
  }

  document.addEventListener("click", function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) { return; }
    var opener = target.closest("[data-preview-url]");
    if (opener && window.htmx && modal() && typeof modal().showModal === "function") {
      event.preventDefault();
      lastOpener = opener;
      if (!modal().open) { modal().showModal(); }
      loadPreview(opener.getAttribute("data-preview-url"));
      return;
    }
    if (target.closest("[data-retry-preview]") && lastPreviewUrl) {
      loadPreview(lastPreviewUrl);
      return;
    }
    if (target.closest("[data-close-modal]") || target === modal()) {
      modal().close();
    }
  });

  document.addEventListener("htmx:afterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "preview-body") {
      var ready = target.querySelector("[data-state]");
      target.setAttribute("data-state", ready ? ready.getAttribute("data-state") : "ready");
      // Open at the cited passage: scroll it into view and move keyboard focus onto it.
      var cited = target.querySelector("#cited-chunk");
      if (cited) {
        cited.scrollIntoView({ block: "start" });
        cited.focus({ preventScroll: true });
      }
    }
  });

  // Closing the modal (Esc, the close button, the backdrop) returns focus to the chip.
  document.addEventListener("close", function (event) {
    if (event.target === modal() && lastOpener && document.contains(lastOpener)) {
      lastOpener.focus();
    }
  }, true);

  function onFailure(event) {
    var detail = event.detail || {};
    var target = detail.target;
    var status = detail.xhr ? detail.xhr.status : 0;
    if (target && target.id === "preview-body") {
      showError(status);
      return;
    }
    var list = document.getElementById("message-list");
    if (list) {
      var bubble = document.createElement("div");
      bubble.className = "bubble bubble-error";
      bubble.setAttribute("role", "alert");
      bubble.textContent = status === 404
        ? "That conversation is not available. Start a new one."
        : "Something went wrong sending your question. Please try again.";
      list.appendChild(bubble);
    }
  }
  document.addEventListener("htmx:responseError", onFailure);
  document.addEventListener("htmx:sendError", onFailure);

  // Streaming: when the page offers a stream URL, the ask form posts there with fetch and
  // shows the answer as it arrives; the final event carries the same fragment htmx would get.
  function readEvents(reader, onEvent) {
    var decoder = new TextDecoder();
    var buffer = "";
    function pump() {
      return reader.read().then(function (chunk) {
        if (chunk.done) { return; }
        buffer += decoder.decode(chunk.value, { stream: true });
        var blocks = buffer.split("\n\n");
        buffer = blocks.pop();
        blocks.forEach(function (block) {
          var name = "message";
          var data = "";
          block.split("\n").forEach(function (line) {
            if (line.indexOf("event:") === 0) { name = line.slice(6).trim(); }
            else if (line.indexOf("data:") === 0) { data += line.slice(5).trim(); }
          });
          if (data) { onEvent(name, JSON.parse(data)); }
        });
        return pump();
      });
    }
    return pump();
  }

  function bubble(className, text) {
    var el = document.createElement(className === "bubble bubble-user" ? "div" : "article");
    el.className = className;
    var p = document.createElement("p");
    p.className = "answer-text";
    p.textContent = text;
    el.appendChild(p);
    return el;
  }

  function streamAsk(form) {
    var data = new FormData(form);
    var list = document.getElementById("message-list");
    var button = form.querySelector("button[type=submit]");
    var csrf = form.querySelector("input[name=csrfmiddlewaretoken]");
    var question = String(data.get("question") || "").trim();
    if (!question || !list) { return; }
    if (button) { button.disabled = true; }
    var empty = list.querySelector(".empty-thread");
    if (empty) { empty.remove(); }
    list.appendChild(bubble("bubble bubble-user", question));
    var live = bubble("bubble bubble-answer bubble-streaming", "");
    live.setAttribute("aria-busy", "true");
    list.appendChild(live);
    var text = live.querySelector("p");
    fetch(form.getAttribute("data-stream-url"), {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrf ? csrf.value : "", "Accept": "text/event-stream" }
    }).then(function (response) {
      if (!response.ok || !response.body) { throw new Error("HTTP " + response.status); }
      return readEvents(response.body.getReader(), function (name, payload) {
        if (name === "token") {
          text.textContent += payload.text;
          live.scrollIntoView({ block: "end" });
        } else if (name === "done") {
          window.htmx.swap("#chat-main", payload.html, { swapStyle: "outerHTML" });
          if (payload.url) { window.history.pushState({}, "", payload.url); }
          scrollToLatest();
          var box = document.getElementById("question");
          if (box) { box.focus(); }
        }
      });
    }).catch(function () {
      live.remove();
      onFailure({ detail: { target: null, xhr: null } });
      if (button) { button.disabled = false; }
    });
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail && event.detail.elt;
    if (!form || form.id !== "ask-form" || !form.getAttribute("data-stream-url")) { return; }
    if (!window.fetch || !window.TextDecoder || typeof window.htmx.swap !== "function") { return; }
    event.preventDefault();
    streamAsk(form);
  });

  // Ctrl/Cmd+Enter sends the question.
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (target && target.id === "question" && event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      var form = target.form;
      if (form && typeof form.requestSubmit === "function") { form.requestSubmit(); }
    }
  });

  function scrollToLatest() {
    var list = document.getElementById("message-list");
    if (list && list.lastElementChild) {
      list.lastElementChild.scrollIntoView({ block: "end" });
    }
  }
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (target && target.id === "chat-main") {
      scrollToLatest();
      var box = document.getElementById("question");
      if (box) { box.focus(); }
    }
  });
  document.addEventListener("DOMContentLoaded", scrollToLatest);
})();
