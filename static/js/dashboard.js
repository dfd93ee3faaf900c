/*
 * Director dashboard: refresh the table body every few seconds with a conditional GET.
 * The server answers 304 while the tournament's version is unchanged, so polling costs one
 * small query. Paused while the tab is hidden.
 */
(function () {
  "use strict";
  var box = document.getElementById("dashboard");
  if (!box) return;
  var url = box.dataset.rowsUrl;
  var every = Math.max(5, Number(box.dataset.refresh) || 15) * 1000;
  var etag = null;
  var stamp = document.getElementById("refreshed-at");

  function refresh() {
    if (document.visibilityState === "hidden") return;
    var headers = { "Accept": "text/html" };
    if (etag) headers["If-None-Match"] = etag;
    window.fetch(url, { credentials: "same-origin", headers: headers, cache: "no-cache" })
      .then(function (res) {
        if (res.status === 304) return null;
        if (!res.ok) throw new Error(String(res.status));
        etag = res.headers.get("ETag");
        return res.text();
      })
      .then(function (html) {
        if (html !== null) document.getElementById("dashboard-rows").innerHTML = html;
        if (stamp) stamp.textContent = "· " + new Date().toLocaleTimeString();
      })
      .catch(function () {
        if (stamp) stamp.textContent = "· offline?";
      });
  }
  window.setInterval(refresh, every);
  document.addEventListener("visibilitychange", refresh);
})();
