/*
 * The referee phone's offline hand queue (issue 15): one definition for both scripts that open
 * it, static/js/referee.js (the match page, which owns the queue: it writes, sends and drops
 * the entries) and static/js/referee-home.js ("My matches", which counts the hands waiting).
 * Each used to carry its own copy of the schema and of what "waiting" means; a change to one
 * would have left the other opening the old version (an empty store) or counting the wrong
 * entries. Loaded (defer) before both; exposes window.refereeQueue. No inline script (CSP).
 *
 * Database "ct-referee", store "hands" (keyPath "id", autoIncrement: the order recorded),
 * index "match". An entry: {id, match, key (its Idempotency-Key), number (the hand it is or
 * is for), payload, status, error, and sometimes kind, onForm, version}.
 *   - kind: absent (or "hand") for a hand; "confirm" and "dispute" for the players' taps,
 *     which are sent after their hand but are not hands.
 *   - status: queued (not sent yet, or the connection failed), sent (waiting for the answer),
 *     confirmed (the server recorded it; removed once the panel shows it), refused (the server
 *     said no: 409 another device recorded first, or a rule; it stops the queue there until
 *     the referee resolves it, re-number or discard).
 */
(function () {
  "use strict";

  var NAME = "ct-referee";
  var VERSION = 1;
  var STORE = "hands";
  var BY_MATCH = "match";

  // A promise of the open database, made (or upgraded) to VERSION on first use. A new
  // version adds a step here, after the ones a phone may already have run.
  function open() {
    return new Promise(function (resolve, reject) {
      var req = window.indexedDB.open(NAME, VERSION);
      req.onupgradeneeded = function (event) {
        if (event.oldVersion < 1) {
          var store = req.result.createObjectStore(STORE, { keyPath: "id", autoIncrement: true });
          store.createIndex(BY_MATCH, "match");
        }
      };
      req.onsuccess = function () { resolve(req.result); };
      req.onerror = function () { reject(req.error); };
    });
  }

  function isHand(entry) { return !entry.kind || entry.kind === "hand"; }

  // A hand still waiting on this phone: one the server has not confirmed (queued, sent with no
  // answer yet, or refused and waiting for the referee). The players' taps are not hands.
  function waiting(entry) { return isHand(entry) && entry.status !== "confirmed"; }

  window.refereeQueue = { store: STORE, byMatch: BY_MATCH, open: open, isHand: isHand, waiting: waiting };
})();
