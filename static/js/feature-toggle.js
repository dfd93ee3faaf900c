/* The director's feature-table switch on the move-by-move page (issue 15): POSTs to the API,
 * then reloads so the page shows what the server now allows. */
(function () {
  "use strict";
  var b = document.getElementById("feature-toggle");
  if (!b) return;
  b.addEventListener("click", function () {
    var on = b.getAttribute("aria-pressed") !== "true";
    b.disabled = true;
    fetch(b.dataset.url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": b.dataset.csrfToken },
      body: JSON.stringify({ feature: on })
    }).then(function (r) {
      if (r.ok) { window.location.reload(); return; }
      b.disabled = false;
    }, function () { b.disabled = false; });
  });
})();
