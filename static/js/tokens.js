// The API keys page: the Copy button next to a new key's secret (the page works without it).
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy]");
    if (!button) { return; }
    var field = document.getElementById(button.getAttribute("data-copy"));
    if (!field) { return; }
    field.select();
    var done = function () { button.textContent = "Copied"; };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(done, function () {
        button.textContent = "Press Ctrl+C";
      });
    } else if (document.execCommand && document.execCommand("copy")) {
      done();
    } else {
      button.textContent = "Press Ctrl+C";
    }
  });
})();
