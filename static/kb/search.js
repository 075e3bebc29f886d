// Search page: on a phone the filters start folded, so the query box and the results fill the
// first screen, unless a filter is set or refused. Loaded right after the <details>, before it
// is painted, so nothing jumps.
(function () {
  "use strict";
  var filters = document.getElementById("search-filters");
  if (!filters || filters.getAttribute("data-filters-set") !== "0") return;
  if (filters.querySelector(".form-error")) return;
  if (window.matchMedia("(max-width: 40rem)").matches) filters.open = false;
})();
