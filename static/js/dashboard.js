/*
 * Director dashboard, pushed: the page follows the tournament's live websocket
 * (/ws/live/<slug>/, live/consumers.py) and re-fetches its rows when an event says something
 * changed (a hand, a round published, a match finished), with a conditional GET (304 when the
 * tournament's version is unchanged). Ticks carry the current version, so a lost event is
 * caught within ~20 s. Without a socket (a draft tournament is not public, or a proxy blocks
 * websockets) it polls every data-refresh seconds and says so.
 *
 * Idle tables: every row of a table in play carries data-last-activity (its last hand, its
 * start or its publication); every 20 s the page flags rows idle for more than the limit
 * (DIRECTOR_IDLE_MINUTES) and lists them in the alert, so the alert appears without any event.
 */
(function () {
  "use strict";
  var box = document.getElementById("dashboard");
  if (!box) return;
  var url = box.dataset.rowsUrl;
  var pollMs = Math.max(5, Number(box.dataset.refresh) || 15) * 1000;
  var version = parseInt(box.dataset.version || "0", 10);
  var etag = null;
  var stamp = document.getElementById("refreshed-at");
  var stateLine = document.getElementById("live-state");
  var pollTimer = null;
  var pending = null;
  var attempts = 0;

  function setState(kind) {
    box.dataset.liveState = kind;
    var label = kind === "live" ? box.dataset.labelLive : box.dataset.labelPolling;
    if (stateLine && label) stateLine.textContent = label;
  }

  function refresh() {
    var headers = { "Accept": "text/html" };
    if (etag) headers["If-None-Match"] = etag;
    // The rows are never stored by the browser (Cache-Control: private, no-store): this script
    // keeps the ETag and the rows, and a 304 means "unchanged".
    return window.fetch(url, { credentials: "same-origin", headers: headers, cache: "no-store" })
      .then(function (res) {
        if (res.status === 304) return null;
        if (!res.ok) throw new Error(String(res.status));
        etag = res.headers.get("ETag");
        var v = parseInt(res.headers.get("X-Tournament-Version") || "0", 10);
        if (v > version) version = v;
        return res.text();
      })
      .then(function (html) {
        if (html !== null) {
          document.getElementById("dashboard-rows").innerHTML = html;
          showDisputes();
        }
        if (stamp) stamp.textContent = "· " + new Date().toLocaleTimeString(document.documentElement.lang || undefined, { hour12: false });
        markIdle();
      })
      .catch(function () {
        if (stamp) stamp.textContent = "· offline?";
      });
  }

  // The Disputes tab's count (issue 15), from the rows just fetched (they carry the tab's
  // label as the server draws it): a table disputed while the page is open shows on the tab
  // too, and a resolved one leaves it.
  function showDisputes() {
    var label = document.getElementById("dashboard-disputes");
    var tab = document.getElementById("nav-disputes");
    if (label && tab) tab.innerHTML = label.innerHTML;
  }

  function refreshSoon() {
    // Several events in a burst (a round published: one per table) cost one fetch.
    if (pending) return;
    pending = window.setTimeout(function () { pending = null; refresh(); }, 250);
  }

  function markIdle() {
    var alertBox = document.getElementById("idle-alert");
    if (!alertBox) return;
    var limitMin = parseInt(alertBox.dataset.idleLimit || "10", 10);
    var now = Date.now();
    var tables = [];
    var template = box.dataset.labelIdle || "%(m)s";
    Array.prototype.forEach.call(document.querySelectorAll("tr[data-last-activity]"), function (tr) {
      var open = tr.classList.contains("status-in_progress") || tr.classList.contains("status-scheduled");
      var minutes = Math.floor((now - Date.parse(tr.dataset.lastActivity)) / 60000);
      var idle = open && minutes > limitMin;
      tr.classList.toggle("idle", idle);
      var note = tr.querySelector(".idle-note");
      if (note) {
        note.hidden = !idle;
        if (idle) note.textContent = template.replace("%(m)s", String(minutes));
      }
      if (idle) tables.push(tr.dataset.table || "?");
    });
    var list = document.getElementById("idle-tables");
    if (list && tables.length) {
      var word = (list.textContent.split(" ")[0] || "Table");
      list.textContent = tables.map(function (t) { return word + " " + t; }).join(", ");
    }
    alertBox.hidden = tables.length === 0;
  }

  function startPolling() {
    setState("polling");
    if (!pollTimer) pollTimer = window.setInterval(refresh, pollMs);
  }

  function stopPolling() {
    if (pollTimer) { window.clearInterval(pollTimer); pollTimer = null; }
  }

  function connect() {
    if (!("WebSocket" in window) || !box.dataset.ws) { startPolling(); return; }
    var socket;
    try {
      socket = new WebSocket((window.location.protocol === "https:" ? "wss://" : "ws://") +
        window.location.host + box.dataset.ws);
    } catch (e) { startPolling(); return; }
    socket.onopen = function () { attempts = 0; stopPolling(); setState("live"); refresh(); };
    socket.onmessage = function (message) {
      var ev;
      try { ev = JSON.parse(message.data); } catch (e) { return; }
      var v = parseInt(ev.tournament_version || "0", 10);
      if (ev.type === "match.update" || ev.type === "tournament.update" || ev.type === "batch") {
        refreshSoon();
      } else if (v > version) {
        refreshSoon(); // hello or tick: something happened that we did not hear about
      }
    };
    socket.onclose = function (ev) {
      startPolling();
      if (ev.code === 4404) return; // not public (a draft): polling it is
      attempts += 1;
      var delay = Math.random() * Math.min(30000, 500 * Math.pow(2, attempts));
      window.setTimeout(connect, delay);
    };
  }

  window.setInterval(markIdle, 20000);
  markIdle();
  connect();
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") refresh();
  });
})();
