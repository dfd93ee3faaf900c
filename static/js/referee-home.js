/*
 * "My matches" (scoring/referee_home.html): names the matches whose hands wait on this phone.
 *
 * The referee page keeps every hand in an IndexedDB queue (database "ct-referee", store
 * "hands", index "match"; static/js/referee.js) until the server confirms it, and sends it only
 * from that match's page. A referee who left the page with hands still queued (offline, or the
 * connection came back while they were here) saw nothing here, and the hands stayed on the
 * phone. Each such match now says how many hands wait, and that opening it sends them.
 * No inline script (Content-Security-Policy): wording comes from data- attributes.
 */
(function () {
  "use strict";

  var list = document.getElementById("match-list");
  if (!list || !window.indexedDB) return;

  function fill(template, params) {
    return String(template || "").replace(/%\((\w+)\)s/g, function (all, key) {
      return params[key] !== undefined ? params[key] : all;
    });
  }

  // A hand the server has not confirmed (queued, sent without an answer, or refused and
  // waiting for the referee), as referee.js keeps it; the players' taps are not hands.
  function waiting(entry) {
    return (!entry.kind || entry.kind === "hand") && entry.status !== "confirmed";
  }

  var req;
  try {
    req = window.indexedDB.open("ct-referee", 1);
  } catch (e) {
    return;
  }
  // No queue on this phone yet: make the store as referee.js would, empty.
  req.onupgradeneeded = function () {
    var store = req.result.createObjectStore("hands", { keyPath: "id", autoIncrement: true });
    store.createIndex("match", "match");
  };
  req.onsuccess = function () {
    var db = req.result;
    var all;
    try {
      all = db.transaction("hands", "readonly").objectStore("hands").getAll();
    } catch (e) {
      db.close();
      return;
    }
    all.onsuccess = function () {
      var counts = {};
      (all.result || []).forEach(function (entry) {
        if (!waiting(entry)) return;
        var key = String(entry.match);
        counts[key] = (counts[key] || 0) + 1;
      });
      Array.prototype.forEach.call(list.querySelectorAll("li[data-match-id]"), function (li) {
        var n = counts[li.getAttribute("data-match-id")] || 0;
        var note = li.querySelector(".waiting-on-phone");
        if (!note) return;
        note.hidden = n === 0;
        note.textContent = n === 0 ? "" : n === 1 ? list.dataset.msgWaitingOne
          : fill(list.dataset.msgWaitingMany, { n: n });
        li.classList.toggle("has-waiting", n > 0);
      });
      db.close();
    };
    all.onerror = function () { db.close(); };
  };
})();
