/*
 * Live spectator pages: keep a server-rendered page current without reloading it.
 *
 * The page is rendered by the server and names what to follow on its root element:
 *   <div id="live" data-ws="/ws/live/<slug>/?lang=es" data-version="41" data-etag='W/"..."'
 *        data-refresh="<this page's URL>" data-follow="tables|finished|matches" data-matches="3 7"
 *        data-scheduled="9" data-in-progress="4 5"
 *        data-poll="15" data-label-live=".." data-label-reconnecting=".." data-label-polling="..">
 *     <div data-live-region="tables"> ... </div>
 *   </div>
 *
 * Events come over a websocket (live/consumers.py). Every event carries the tournament version
 * and the match version:
 *   - an event whose versions we already have is stale or a duplicate: dropped;
 *   - a tournament version more than one ahead of ours is a gap (the channel layer is
 *     at-most-once): we re-fetch the page state;
 *   - a match update carries the table card rendered by the server ("html"): swapped in place
 *     when it is newer than the card on the page, so a busy hall does not re-fetch per hand;
 *   - a match whose status differs from the one the page shows (data-scheduled,
 *     data-in-progress; unlisted = finished) started, finished or was reopened: pages showing
 *     counts, standings or marks re-fetch;
 *   - a tick (every 20 s or so) carries the current versions: behind means the last event
 *     was lost, and we re-fetch.
 * Re-fetching is a conditional GET (If-None-Match with the page's ETag): an unchanged page is a
 * bodiless 304. The new regions are taken from the fetched page and swapped in.
 *
 * After the socket drops we reconnect with exponential backoff and full jitter (a restarted
 * server is not hit by every phone in the hall at once) and re-fetch on every reconnect. While
 * there is no open socket (none possible, blocked by a proxy, or between retries) we poll with
 * the same conditional GET. When the browser says it is back online we reconnect at once.
 * All wording is rendered by the server; this file has none.
 *
 * A private page that draws its own state (the referee's match page, static/js/referee.js)
 * follows the same socket and versions with data-apply="page": its card is the element
 * [data-match][data-version] it keeps current itself, and every re-fetch is asked of the page
 * instead ("live:stale" on document; the listener calls event.detail.waitUntil(promise) with
 * a promise of the tournament version it now shows, or null). Such a socket carries no card
 * HTML (no ?lang=): the page re-reads through its own authorised read.
 * No dependencies, no CDN: the venue network may be offline.
 */
(function () {
  "use strict";

  var root = document.getElementById("live");
  if (!root) return;

  var BACKOFF_BASE_MS = 500;
  var BACKOFF_MAX_MS = 30000;
  var STABLE_MS = 5000; // a socket open this long resets the backoff
  var FINISHED_JITTER_MS = 3000; // spread the re-fetch of a thousand standings pages

  var state = {
    version: parseInt(root.dataset.version || "0", 10),
    etag: root.dataset.etag || null,
    socket: null,
    attempts: 0,
    everOpened: false,
    openedAt: 0,
    pollTimer: null,
    refreshTimer: null,
    fetching: null,
    refetchAgain: false,
    closedByUs: false,
    told: 0 // the newest version any message named
  };
  var follow = (root.dataset.follow || "finished").split(/\s+/);
  var appliesItself = root.dataset.apply === "page";
  var pollMs = Math.max(5, parseInt(root.dataset.poll || "15", 10)) * 1000;

  function follows(what) { return follow.indexOf(what) !== -1; }

  function followedMatches() {
    return (root.dataset.matches || "").split(/\s+/).filter(Boolean);
  }

  // The status of each table of the current round(s) as the page shows it; a table not
  // listed is finished (or not on the page yet). An event naming another status (a table
  // starts, finishes or is reopened by a void) changes counts, standings and marks that the
  // event's own card does not carry: the page re-fetches.
  var shownStatus = {};

  function readStatuses(el) {
    shownStatus = {};
    [["scheduled", el.dataset.scheduled], ["in_progress", el.dataset.inProgress]].forEach(
      function (pair) {
        (pair[1] || "").split(/\s+/).filter(Boolean).forEach(function (id) {
          shownStatus[id] = pair[0];
        });
      });
  }

  function statusChanged(ev) {
    if (!ev.match || !ev.match.status) return false;
    var id = String(ev.match_id);
    var was = shownStatus[id] || "finished";
    if (ev.match.status === "finished") delete shownStatus[id];
    else shownStatus[id] = ev.match.status;
    return was !== ev.match.status;
  }

  readStatuses(root);

  // -- status line ------------------------------------------------------------------------------

  function setStatus(kind) {
    root.dataset.liveState = kind;
    // A finished tournament says so, not "Live" (corrections still arrive, quietly).
    if (root.dataset.finished) kind = "finished";
    var el = document.querySelector("[data-live-status]");
    if (!el) return;
    var label = root.dataset["label" + kind.charAt(0).toUpperCase() + kind.slice(1)];
    if (label && el.textContent !== label) el.textContent = label;
    el.className = "live-status live-status-" + kind;
  }

  // -- keyboard focus across swaps --------------------------------------------------------------

  // A swap replaces the element that had the keyboard focus (a link in a table card): focus
  // the same link in the new content, or a keyboard user is sent back to the top of the page
  // by every hand recorded at the table they are on.
  function focusKey(scope) {
    var active = document.activeElement;
    if (!active || active === document.body || !scope.contains(active)) return null;
    return active.getAttribute("href") || (active.id ? "#" + active.id : null);
  }

  function refocus(key, scope) {
    if (!key) return;
    var found = Array.prototype.filter.call(scope.querySelectorAll("a[href], [id]"), function (el) {
      return el.getAttribute("href") === key || (key.charAt(0) === "#" && "#" + el.id === key);
    })[0];
    if (found && found.focus) found.focus({ preventScroll: true });
  }

  // -- folded sections across swaps --------------------------------------------------------------

  // A player's page folds each match's hands (<details data-keep-open id="...">), open for the
  // match in play. A swap rebuilds them as the server renders them (every hand at the player's
  // table re-renders the page): one the reader opened or closed keeps the reader's choice, and
  // one open before stays open (the match a reader watched just finished: its hands stay).
  var chosenOpen = {};

  document.addEventListener("click", function (ev) {
    var summary = ev.target && ev.target.closest ? ev.target.closest("summary") : null;
    var details = summary ? summary.parentElement : null;
    if (!details || details.tagName !== "DETAILS" || !details.id) return;
    if (!details.hasAttribute("data-keep-open") || !root.contains(details)) return;
    // The click toggles the details after this listener: record the state it is going to.
    chosenOpen[details.id] = !details.open;
  });

  function openKept(scope) {
    var open = {};
    Array.prototype.forEach.call(scope.querySelectorAll("details[data-keep-open][id]"),
      function (el) { if (el.open) open[el.id] = true; });
    return open;
  }

  function restoreOpen(scope, wasOpen) {
    Array.prototype.forEach.call(scope.querySelectorAll("details[data-keep-open][id]"),
      function (el) {
        if (Object.prototype.hasOwnProperty.call(chosenOpen, el.id)) el.open = chosenOpen[el.id];
        else if (wasOpen[el.id]) el.open = true;
      });
  }

  // -- re-fetch with a conditional GET ----------------------------------------------------------

  function applyPage(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.getElementById("live");
    if (!fresh) return;
    Array.prototype.forEach.call(fresh.querySelectorAll("[data-live-region]"), function (region) {
      var name = region.getAttribute("data-live-region");
      var here = root.querySelector('[data-live-region="' + name + '"]');
      if (!here) return;
      var key = focusKey(here);
      var wasOpen = openKept(here);
      here.innerHTML = region.innerHTML;
      restoreOpen(here, wasOpen);
      refocus(key, here);
    });
    root.dataset.matches = fresh.dataset.matches || "";
    readStatuses(fresh);
    applyHead(doc, fresh);
    var v = parseInt(fresh.dataset.version || "0", 10);
    if (v >= state.version) state.version = v;
    state.etag = fresh.dataset.etag || null;
    root.dataset.version = String(state.version);
    document.dispatchEvent(new CustomEvent("live:refreshed"));
  }

  // The tournament's status lives outside the regions: the status badge ("Live" or
  // "Finished"), the heading and the document title ("Live" becomes "Results" on the home).
  // A page open when the final ends says so without a reload.
  function applyHead(doc, fresh) {
    var finished = Boolean(fresh.dataset.finished);
    if (finished !== Boolean(root.dataset.finished)) {
      if (finished) root.dataset.finished = "1";
      else delete root.dataset.finished;
      var shown = root.dataset.liveState || "live";
      setStatus(shown === "finished" ? "live" : shown);
    }
    var heading = root.querySelector(".live-head h1");
    var freshHeading = fresh.querySelector(".live-head h1");
    if (heading && freshHeading && heading.innerHTML !== freshHeading.innerHTML) {
      heading.innerHTML = freshHeading.innerHTML;
    }
    if (doc.title && document.title !== doc.title) document.title = doc.title;
  }

  // data-apply="page": the page re-reads its own state (see the top of this file).
  function askPage(told) {
    var wait = null;
    document.dispatchEvent(new CustomEvent("live:stale", { detail: {
      version: told,
      waitUntil: function (promise) { wait = promise; }
    } }));
    return Promise.resolve(wait).then(function (v) {
      v = parseInt(v || "0", 10);
      if (v > state.version) { state.version = v; root.dataset.version = String(v); }
    });
  }

  function refetch() {
    if (state.fetching) { state.refetchAgain = true; return state.fetching; }
    // X-Live-Version: the server never answers with state older than what we were told of.
    var told = Math.max(state.version, state.told);
    if (appliesItself) {
      state.fetching = askPage(told).catch(function () { /* the next tick or poll asks again */ })
        .then(function () {
          state.fetching = null;
          if (state.refetchAgain) { state.refetchAgain = false; refetch(); }
        });
      return state.fetching;
    }
    var headers = { "X-Requested-With": "fetch", "X-Live-Version": String(told) };
    if (state.etag) headers["If-None-Match"] = state.etag;
    state.fetching = fetch(root.dataset.refresh || window.location.href, {
      headers: headers, cache: "no-store", credentials: "same-origin"
    }).then(function (response) {
      if (response.status === 304) return null;
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.text().then(applyPage);
    }).catch(function () {
      // Offline or the server restarting: the next poll or reconnect tries again.
    }).then(function () {
      state.fetching = null;
      if (state.refetchAgain) { state.refetchAgain = false; refetch(); }
    });
    return state.fetching;
  }

  function refetchSoon(jitterMs) {
    if (state.refreshTimer) return;
    state.refreshTimer = window.setTimeout(function () {
      state.refreshTimer = null;
      refetch();
    }, Math.floor(Math.random() * (jitterMs || 0)));
  }

  // -- events -----------------------------------------------------------------------------------

  function cardFor(matchId) {
    return root.querySelector('[data-match="' + matchId + '"]');
  }

  function onMatchUpdate(ev) {
    var tv = ev.tournament_version;
    var card = follows("tables") ? cardFor(ev.match_id) : null;
    var cardVersion = card ? parseInt(card.dataset.version || "0", 10) : -1;
    var newForCard = card !== null && ev.version > cardVersion;
    if (tv <= state.version && !newForCard) return; // stale or a duplicate
    // Versions are bumped under the tournament row lock, so they commit in order: a jump of
    // more than one means events were lost.
    var gap = tv > state.version + 1;
    if (tv > state.version) { state.version = tv; root.dataset.version = String(tv); }

    if (newForCard && ev.html && !appliesItself) {
      var holder = document.createElement("div");
      holder.innerHTML = ev.html;
      var fresh = holder.firstElementChild;
      if (fresh) {
        var key = focusKey(card);
        card.replaceWith(fresh);
        refocus(key, fresh);
      }
    } else if (newForCard || (follows("tables") && !card)) {
      gap = true; // no card in the event, or a match we do not show yet (a new round)
    }
    var finished = ev.match && ev.match.status === "finished";
    var changed = statusChanged(ev);
    if (gap) {
      refetchSoon(0);
    } else if ((follows("finished") && finished) ||
               ((follows("finished") || follows("tables")) && changed)) {
      refetchSoon(FINISHED_JITTER_MS);
    } else if (follows("matches") && followedMatches().indexOf(String(ev.match_id)) !== -1) {
      refetchSoon(0);
    }
    document.dispatchEvent(new CustomEvent("live:event", { detail: ev }));
  }

  function onMessage(message) {
    var ev;
    try { ev = JSON.parse(message.data); } catch (e) { return; }
    if (ev.tournament_version > state.told) state.told = ev.tournament_version;
    if (ev.type === "hello") {
      // The page may be older than the socket (a hand recorded in between), or we are back
      // after a drop: fetch what we missed (a 304 when nothing did).
      if (ev.tournament_version > state.version || state.everOpened) refetchSoon(0);
      state.everOpened = true;
    } else if (ev.type === "match.update") {
      onMatchUpdate(ev);
    } else if (ev.type === "tournament.update") {
      if (ev.tournament_version > state.version) refetchSoon(FINISHED_JITTER_MS);
    } else if (ev.type === "tick") {
      // The current versions, every few seconds: behind means an event was lost.
      var card = ev.match_id ? cardFor(ev.match_id) : null;
      if (card ? ev.version > parseInt(card.dataset.version || "0", 10)
               : ev.tournament_version > state.version) {
        refetchSoon(FINISHED_JITTER_MS);
      }
    }
  }

  // -- socket with backoff, polling while it is not open ----------------------------------------

  function startPolling() {
    if (state.pollTimer) return;
    state.pollTimer = window.setInterval(refetch, pollMs + Math.floor(Math.random() * 2000));
  }

  function stopPolling() {
    if (state.pollTimer) { window.clearInterval(state.pollTimer); state.pollTimer = null; }
  }

  function backoffDelay() {
    var cap = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * Math.pow(2, state.attempts));
    state.attempts += 1;
    return Math.floor(Math.random() * cap); // "full jitter"
  }

  function connect() {
    if (!("WebSocket" in window) || !root.dataset.ws) { setStatus("polling"); startPolling(); return; }
    var url = (window.location.protocol === "https:" ? "wss://" : "ws://") +
      window.location.host + root.dataset.ws;
    var socket;
    try { socket = new WebSocket(url); } catch (e) { scheduleReconnect(); return; }
    state.socket = socket;
    socket.onopen = function () {
      state.openedAt = Date.now();
      stopPolling();
      setStatus("live");
    };
    socket.onmessage = onMessage;
    socket.onclose = function () {
      if (state.socket !== socket) return;
      state.socket = null;
      if (state.openedAt && Date.now() - state.openedAt > STABLE_MS) state.attempts = 0;
      state.openedAt = 0;
      if (!state.closedByUs) scheduleReconnect();
    };
  }

  var reconnectTimer = null;

  function scheduleReconnect() {
    startPolling();
    setStatus("reconnecting");
    reconnectTimer = window.setTimeout(function () { reconnectTimer = null; connect(); },
      backoffDelay());
  }

  // Back online (a phone leaving a dead spot): reconnect now instead of after the backoff,
  // and catch up at once.
  window.addEventListener("online", function () {
    if (state.closedByUs) return;
    if (reconnectTimer !== null) {
      window.clearTimeout(reconnectTimer);
      reconnectTimer = null;
      state.attempts = 0;
      connect();
    }
    refetchSoon(0);
  });

  // For tests and the projector: drop the socket as a network cut would.
  window.liveDebug = {
    state: state,
    cut: function () { if (state.socket) state.socket.close(); },
    refetch: refetch
  };

  window.addEventListener("pagehide", function () {
    state.closedByUs = true;
    if (state.socket) state.socket.close();
  });

  connect();
})();

/*
 * Projector: show one slide at a time ([data-slide]), next every data-seconds; no input needed.
 * After a region swap the slide list is rebuilt and the rotation goes on where it was.
 */
(function () {
  "use strict";

  var deck = document.querySelector("[data-projector]");
  if (!deck) return;
  var seconds = Math.max(4, parseInt(deck.dataset.seconds || "12", 10));
  var index = 0;

  function slides() { return Array.prototype.slice.call(deck.querySelectorAll("[data-slide]")); }

  function show() {
    var all = slides();
    if (!all.length) return;
    index = index % all.length;
    all.forEach(function (slide, i) { slide.hidden = i !== index; });
  }

  document.addEventListener("live:refreshed", show);
  show();
  window.setInterval(function () { index += 1; show(); }, seconds * 1000);
})();

/*
 * Projector kiosk: a "Full screen" button where the browser allows it (a kiosk browser
 * already is); it hides itself once the page is full screen.
 */
(function () {
  "use strict";

  var button = document.querySelector("[data-fullscreen]");
  if (!button || !document.documentElement.requestFullscreen) return;

  function sync() { button.hidden = Boolean(document.fullscreenElement); }

  button.addEventListener("click", function () {
    document.documentElement.requestFullscreen().catch(function () { /* refused: stay */ });
  });
  document.addEventListener("fullscreenchange", sync);
  sync();
})();
