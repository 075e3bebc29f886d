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
    var heading = document.getElementById("preview-heading");
    var meta = document.querySelector("#preview-header .preview-meta");
    if (heading) { heading.textContent = "Source"; }
    if (meta) { meta.remove(); }
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
      if (!modal().open) { lastOpener = opener; modal().showModal(); }
      loadPreview(opener.getAttribute("data-preview-url"));
      return;
    }
    // a [[wikilink]] inside a previewed source opens the linked document in the same modal
    var inner = target.closest(".preview-content a[href]");
    if (inner && window.htmx && modal() && modal().open && /\/chat\/preview\/\d+\/$/.test(inner.getAttribute("href"))) {
      event.preventDefault();
      loadPreview(inner.getAttribute("href"));
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
    // The Stop button aborts this fetch (static/js/conversations.js); what came stays shown.
    var controller = window.AbortController ? new AbortController() : null;
    form.groundworkAbort = controller;
    form.classList.add("asking");
    data.set("turn_key", window.groundworkTurns.begin(form, question));
    fetch(form.getAttribute("data-stream-url"), {
      method: "POST",
      body: data,
      signal: controller ? controller.signal : undefined,
      credentials: "same-origin",
      headers: {
        "X-CSRFToken": csrf ? csrf.value : "",
        "Accept": "text/event-stream",
        "HX-Request": "true",
        "HX-Current-URL": window.location.href
      }
    }).then(function (response) {
      var signIn = response.headers.get("HX-Redirect");
      if (signIn) { window.groundworkTurns.signedOut(); window.location.href = signIn; return; }
      if (!response.ok || !response.body) { throw new Error("HTTP " + response.status); }
      return readEvents(response.body.getReader(), function (name, payload) {
        if (name === "token") {
          text.textContent += payload.text;
          live.scrollIntoView({ block: "end" });
        } else if (name === "done") {
          if (payload.url) { window.groundworkTurns.done(); }
          window.htmx.swap("#chat-main", payload.html, { swapStyle: "outerHTML" });
          if (payload.url) { window.history.pushState({}, "", payload.url); }
          scrollToLatest();
          var box = document.getElementById("question");
          if (box) { box.focus(); }
        }
      });
    }).catch(function (error) {
      form.classList.remove("asking");
      if (error && error.name === "AbortError") {
        live.removeAttribute("aria-busy");
        var note = document.createElement("p");
        note.className = "muted stopped-note";
        note.textContent = "Stopped.";
        live.appendChild(note);
        if (button) { button.disabled = false; }
        return;
      }
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

  // Enter sends the question, Shift+Enter adds a new line (not while an IME composes).
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (target && target.id === "question" && event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      var form = target.form;
      if (form && typeof form.requestSubmit === "function") { form.requestSubmit(); }
    }
  });

  function scrollToLatest() {
    var list = document.getElementById("message-list");
    var latest = list && list.lastElementChild;
    // an empty conversation has nothing to scroll to; scrolling its placeholder into view
    // would also move the browser's Tab starting point past the skip link and the header
    if (latest && !latest.classList.contains("empty-thread")) {
      latest.scrollIntoView({ block: "end" });
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

/* The question being asked survives what can happen to the tab. The typed draft is kept in
   the tab's session storage (restored after a sign-in or a reload); each ask gets a turn key
   sent with it, and a page reloaded before the answer arrived shows the question and waits
   for the stored answer (GET /chat/turn/<key>), then opens its conversation. */
(function () {
  "use strict";
  var DRAFT = "groundwork:draft";
  var PENDING = "groundwork:pending";
  var WAIT_MS = 180000;
  var POLL_MS = 2000;

  function read(name) {
    try { return JSON.parse(window.sessionStorage.getItem(name) || "null"); } catch (e) { return null; }
  }
  function write(name, value) {
    try {
      if (value === null) { window.sessionStorage.removeItem(name); }
      else { window.sessionStorage.setItem(name, JSON.stringify(value)); }
    } catch (e) { /* storage full or disabled: the page still works, without the memory */ }
  }
  function newKey() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") { return window.crypto.randomUUID(); }
    return "t" + Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
  }

  window.groundworkTurns = {
    begin: function (form, question) {
      var key = newKey();
      write(PENDING, { key: key, question: question, at: Date.now() });
      return key;
    },
    done: function () { write(PENDING, null); write(DRAFT, null); },
    // the session ended before the question reached the server: nothing to wait for, and
    // the question is the draft the page restores after signing in
    signedOut: function () {
      var pending = read(PENDING);
      if (pending) { write(DRAFT, { text: pending.question, at: Date.now() }); }
      write(PENDING, null);
    }
  };
  document.addEventListener("htmx:beforeOnLoad", function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (xhr && xhr.status === 401 && xhr.getResponseHeader("HX-Redirect")) { window.groundworkTurns.signedOut(); }
  });

  document.addEventListener("input", function (event) {
    var box = event.target;
    if (box && box.id === "question") { write(DRAFT, { text: box.value, at: Date.now() }); }
  });

  // htmx asks (no streaming) carry the turn key too.
  document.addEventListener("htmx:configRequest", function (event) {
    var form = event.detail && event.detail.elt;
    if (!form || form.id !== "ask-form") { return; }
    var question = String(event.detail.parameters.question || "").trim();
    if (question) { event.detail.parameters.turn_key = window.groundworkTurns.begin(form, question); }
  });
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail && event.detail.target;
    if (!target || target.id !== "chat-main") { return; }
    var pending = read(PENDING);
    if (pending && document.querySelector('[data-turn-key="' + pending.key + '"]')) {
      window.groundworkTurns.done();
    } else if (pending && target.querySelector(".bubble-error")) {
      write(PENDING, null);  // refused or failed: the error says so, the draft stays
    }
  });

  function restoreDraft(text) {
    var box = document.getElementById("question");
    if (!box || box.value || !text) { return; }
    box.value = text;
    box.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function waitFor(pending) {
    var list = document.getElementById("message-list");
    var form = document.getElementById("ask-form");
    if (!list || !form) { return; }
    var empty = list.querySelector(".empty-thread");
    if (empty) { empty.remove(); }
    var asked = document.createElement("div");
    asked.className = "bubble bubble-user";
    var text = document.createElement("p");
    text.textContent = pending.question;
    asked.appendChild(text);
    var waiting = document.createElement("p");
    waiting.className = "bubble bubble-answer bubble-waiting muted";
    waiting.setAttribute("role", "status");
    waiting.textContent = "Still answering this question… the answer appears here when it is ready.";
    list.appendChild(asked);
    list.appendChild(waiting);
    var url = form.getAttribute("data-turn-url").replace("turnkey0", encodeURIComponent(pending.key));
    function poll() {
      if (Date.now() - pending.at > WAIT_MS) {
        waiting.textContent = "The answer did not arrive. Your question is back in the box: ask it again.";
        write(PENDING, null);
        restoreDraft(pending.question);
        return;
      }
      fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } }).then(function (response) {
        if (response.status === 404) { window.setTimeout(poll, POLL_MS); return null; }
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.json();
      }).then(function (body) {
        if (!body || !body.url) { return; }
        write(PENDING, null);
        write(DRAFT, null);
        window.location.href = body.url;
      }).catch(function () { window.setTimeout(poll, POLL_MS * 2); });
    }
    poll();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var pending = read(PENDING);
    if (pending && pending.key) {
      if (document.querySelector('[data-turn-key="' + pending.key + '"]')) {
        window.groundworkTurns.done();
      } else if (Date.now() - pending.at <= WAIT_MS) {
        waitFor(pending);
        return;
      } else {
        write(PENDING, null);
      }
    }
    var draft = read(DRAFT);
    if (draft) { restoreDraft(draft.text); }
  });
})();
