/*
 * "My matches" (scoring/referee_home.html): names the matches whose hands wait on this phone.
 *
 * The referee page keeps every hand in an IndexedDB queue (static/js/referee.js) until the
 * server confirms it, and sends it only from that match's page. The queue's database and what
 * counts as a hand waiting are static/js/referee-queue.js's (window.refereeQueue), loaded
 * before this script, so this page opens the queue exactly as that page writes it. A referee
 * who left the page with hands still queued (offline, or the connection came back while they
 * were here) saw nothing here, and the hands stayed on the phone. Each such match now says
 * how many hands wait, and that opening it sends them.
 * No inline script (Content-Security-Policy): wording comes from data- attributes.
 */
(function () {
  "use strict";

  var list = document.getElementById("match-list");
  var queue = window.refereeQueue;
  if (!list || !window.indexedDB || !queue) return;

  function fill(template, params) {
    return String(template || "").replace(/%\((\w+)\)s/g, function (all, key) {
      return params[key] !== undefined ? params[key] : all;
    });
  }

  // No queue on this phone yet: open() makes the store as referee.js would, empty.
  queue.open().then(function (db) {
    var all;
    try {
      all = db.transaction(queue.store, "readonly").objectStore(queue.store).getAll();
    } catch (e) {
      db.close();
      return;
    }
    all.onsuccess = function () {
      var counts = {};
      (all.result || []).forEach(function (entry) {
        if (!queue.waiting(entry)) return;
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
  }, function () { /* no IndexedDB here (a private window): nothing to name */ });
})();
