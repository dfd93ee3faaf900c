/*
 * Move-by-move entry of one hand at a feature table (issue 15).
 *
 * 1. The deal: the referee taps each seat's tiles (the last seat gets what is left when every
 *    tile is dealt). 2. The play: the seat to move's tiles; every tap is sent with the moves so
 *    far to the server's dry run (POST …/hands/check/), which replays them with the rules engine
 *    and answers the position (ends, line, remaining tiles, legal moves) or a 400 naming the
 *    move and the rule (R5 forced pose, R13 matching end, R14 no pass while holding a play…).
 *    The page never decides a rule itself; it only marks what the server said is legal.
 * 3. The finished log is recorded through the ordinary hand endpoint (POST …/hands/, one
 *    Idempotency-Key per submission, reused on a retry), as the referee page does.
 * The hand being entered is kept in localStorage, so a reload or a closed tab loses nothing.
 * No inline script (Content-Security-Policy): wording comes from data- attributes.
 */
(function () {
  "use strict";

  var root = document.getElementById("move-app");
  if (!root) return;

  var data = root.dataset;
  var seats = JSON.parse(data.seats || "[]");
  var deal = JSON.parse(data.deal || "{}");
  var messages = JSON.parse(data.errorMessages || "{}");
  var number = Number(data.number);
  var n = Number(deal.n_players || seats.length);
  var size = Number(deal.hand_size);
  var allTiles = deal.tiles || [];
  var storageKey = "ct-moves-" + data.matchId;

  var state = {
    number: number,
    hands: [],          // the deal: each seat's tiles
    seat: 0,            // whose tiles the deal step is taking
    moves: [],          // the play log's moves so far
    position: null,     // the server's answer for those moves
    outcome: null,
    phase: "deal",      // deal | play | done | recorded
    lotSeat: null,      // the first hand under lot_then_rotate: who won the lot (R6)
    pendingTile: null,  // a tile that fits both ends: waiting for the end
    drawing: false,     // a draw: waiting for the tile drawn
    key: null           // Idempotency-Key of the submission in flight
  };
  for (var i = 0; i < n; i++) state.hands.push([]);

  function $(id) { return document.getElementById(id); }
  function fill(template, params) {
    return String(template || "").replace(/%\((\w+)\)s/g, function (all, key) {
      return params[key] !== undefined && params[key] !== null ? params[key] : all;
    });
  }
  function seatName(seat) { return seats[seat] || "ABCD".charAt(seat); }
  function uuid4() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") return window.crypto.randomUUID();
    var b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40; b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }
  function button(label, cls) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = cls || "";
    b.textContent = label;
    return b;
  }

  // -- status, errors, saving -----------------------------------------------------------------

  function say(msg, kind) {
    var el = $("move-status");
    el.textContent = msg;
    el.className = "status " + (kind || "working");
  }
  function clearError() { var el = $("move-error"); el.hidden = true; el.textContent = ""; }
  function showError(error, move) {
    var el = $("move-error");
    var template = error && messages[error.code];
    var text = template
      ? fill(template, { seat: move ? seatName(move.seat) : "", tile: move && move.tile ? move.tile : "" })
      : (error && error.message) || data.msgFailed;
    if (error && error.rule) text += " (" + error.rule + ")";
    var field = error && error.fields ? Object.keys(error.fields)[0] : "";
    el.textContent = text;
    if (field) el.dataset.field = field;
    el.hidden = false;
  }
  function save() {
    try {
      if (state.phase === "recorded") { window.localStorage.removeItem(storageKey); return; }
      window.localStorage.setItem(storageKey, JSON.stringify({
        number: state.number, hands: state.hands, moves: state.moves, key: state.key
      }));
    } catch (e) { /* private mode: entry still works, it just is not kept */ }
  }
  function restore() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(storageKey) || "null");
      if (!saved || saved.number !== number || !Array.isArray(saved.hands) || saved.hands.length !== n) return false;
      state.hands = saved.hands;
      state.moves = saved.moves || [];
      state.key = saved.key || null;
      return true;
    } catch (e) { return false; }
  }

  // -- talking to the server --------------------------------------------------------------------

  function stock() {
    var dealt = {};
    state.hands.forEach(function (h) { h.forEach(function (t) { dealt[t] = true; }); });
    return allTiles.filter(function (t) { return !dealt[t]; });
  }
  function playLog(moves) {
    return { deal: { hands: state.hands, stock: stock(), boneyard: deal.boneyard }, moves: moves };
  }
  function post(url, body, headers) {
    var h = { "Content-Type": "application/json", "X-CSRFToken": data.csrfToken, "Accept": "application/json" };
    Object.keys(headers || {}).forEach(function (k) { h[k] = headers[k]; });
    return fetch(url, { method: "POST", credentials: "same-origin", headers: h, body: JSON.stringify(body) })
      .then(function (r) {
        return r.json().catch(function () { return {}; }).then(function (j) { return { status: r.status, body: j }; });
      });
  }

  var busy = false;
  // Ask the engine about ``moves``; on success they become the hand's moves.
  function check(moves, move) {
    if (busy) return Promise.resolve(false);
    busy = true;
    say(data.msgChecking);
    return post(data.checkUrl, { play_log: playLog(moves) }).then(function (r) {
      busy = false;
      if (r.status === 200) {
        clearError();
        state.moves = moves;
        state.position = r.body.position;
        state.outcome = r.body.outcome;
        state.phase = r.body.position.over ? "done" : "play";
        state.pendingTile = null;
        state.drawing = false;
        save();
        render(move);
        return true;
      }
      showError(r.body && r.body.error, move);
      render(null, true);
      return false;
    }, function () {
      busy = false;
      showError({ message: data.msgNetwork });
      render(null, true);
      return false;
    });
  }

  // -- the deal -----------------------------------------------------------------------------------

  function holder(tile) {
    for (var s = 0; s < n; s++) if (state.hands[s].indexOf(tile) >= 0) return s;
    return -1;
  }
  function dealComplete() {
    return state.hands.every(function (h) { return h.length === size; });
  }
  function autoFillLast() {
    // Every tile dealt (no boneyard): the last seat holds what the others do not.
    if (deal.boneyard !== "none") return;
    var open = [];
    for (var s = 0; s < n; s++) if (state.hands[s].length < size) open.push(s);
    if (open.length !== 1) return;
    var rest = stock();
    if (rest.length === size - state.hands[open[0]].length) {
      state.hands[open[0]] = state.hands[open[0]].concat(rest);
    }
  }
  function tapDealTile(tile) {
    clearError();
    var h = holder(tile);
    var mine = state.hands[state.seat];
    if (h === state.seat) {
      mine.splice(mine.indexOf(tile), 1);
    } else if (h < 0 && mine.length < size) {
      mine.push(tile);
      if (mine.length === size) {
        autoFillLast();
        for (var k = 1; k <= n; k++) {
          var next = (state.seat + k) % n;
          if (state.hands[next].length < size) { state.seat = next; break; }
        }
      }
    } else {
      return;
    }
    save();
    renderDeal(tile);
  }

  function renderDeal(focusTile, quiet) {
    var tabs = $("deal-seats");
    tabs.textContent = "";
    for (var s = 0; s < n; s++) {
      var b = button(seatName(s) + " (" + state.hands[s].length + "/" + size + ")", "seat-tab");
      b.setAttribute("aria-pressed", s === state.seat ? "true" : "false");
      b.dataset.seat = s;
      b.addEventListener("click", function (ev) {
        state.seat = Number(ev.currentTarget.dataset.seat);
        renderDeal();
      });
      tabs.appendChild(b);
    }
    var grid = $("deal-grid");
    var focused = null;
    grid.textContent = "";
    allTiles.forEach(function (tile) {
      var h = holder(tile);
      var b = button(tile, "tile");
      b.dataset.tile = tile;
      b.setAttribute("aria-pressed", h === state.seat ? "true" : "false");
      if (h >= 0 && h !== state.seat) {
        b.disabled = true;
        b.classList.add("taken");
        b.setAttribute("aria-label", tile + ", " + fill(data.msgHeld, { seat: seatName(h) }));
        b.title = fill(data.msgHeld, { seat: seatName(h) });
        b.dataset.holder = "ABCD".charAt(h);
      }
      b.addEventListener("click", function () { tapDealTile(tile); });
      if (tile === focusTile) focused = b;
      grid.appendChild(b);
    });
    if (focused && !focused.disabled) focused.focus();
    var done = dealComplete();
    $("deal-done").disabled = !done;
    if (quiet) return;
    say(done ? data.msgDealDone : fill(data.msgDeal, {
      size: size, seat: seatName(state.seat), have: state.hands[state.seat].length
    }));
  }

  // -- the play -----------------------------------------------------------------------------------

  function legalFor(tile) {
    return (state.position.legal || []).filter(function (m) { return m.tile === tile && m.kind !== "draw"; });
  }
  function moveText(m) {
    var p = { seat: seatName(m.seat), tile: m.tile };
    if (m.kind === "pose") return fill(data.msgPoseMove, p);
    if (m.kind === "play") return fill(m.end === "left" ? data.msgPlayLeft : data.msgPlayRight, p);
    if (m.kind === "draw") return fill(data.msgDrawMove, p);
    return fill(data.msgPassMove, p);
  }
  function submitMove(move) { return check(state.moves.concat([move]), move); }

  // Whose tiles the play step shows: the seat to move, or before the first pose of a match
  // under lot_then_rotate the seat the referee says won the lot (R6).
  function actingSeat() {
    var pos = state.position;
    if (deal.lot_choice && !pos.ends && state.lotSeat !== null) return state.lotSeat;
    return pos.turn;
  }

  function tapHandTile(tile) {
    var pos = state.position;
    var seat = actingSeat();
    if (!pos.ends) { submitMove({ seat: seat, kind: "pose", tile: tile }); return; }
    var legal = legalFor(tile);
    var ends = legal.map(function (m) { return m.end; });
    // Both ends take it: the referee says which (even when both show the same value, the
    // later plays name the side, R13).
    if (ends.length === 2) {
      state.pendingTile = tile;
      renderEndChoice();
      return;
    }
    var move = { seat: seat, kind: "play", tile: tile };
    if (ends.length) move.end = ends[0];
    submitMove(move);
  }

  function renderEndChoice() {
    var box = $("end-choice");
    box.textContent = "";
    var tile = state.pendingTile;
    box.hidden = !tile;
    if (!tile) return;
    box.setAttribute("aria-label", fill(data.msgWhichEnd, { tile: tile }));
    say(fill(data.msgWhichEnd, { tile: tile }));
    [["left", data.msgLeftEnd, 0], ["right", data.msgRightEnd, 1]].forEach(function (e) {
      var b = button(fill(e[1], { n: state.position.ends[e[2]] }), "end-button");
      b.dataset.end = e[0];
      b.addEventListener("click", function () {
        submitMove({ seat: state.position.turn, kind: "play", tile: tile, end: e[0] });
      });
      box.appendChild(b);
    });
    box.querySelector("button").focus();
  }

  function renderDrawChoice() {
    var box = $("draw-choice");
    box.textContent = "";
    box.hidden = !state.drawing;
    if (!state.drawing) return;
    var seat = state.position.turn;
    box.setAttribute("aria-label", fill(data.msgPickDrawn, { seat: seatName(seat) }));
    say(fill(data.msgPickDrawn, { seat: seatName(seat) }));
    (state.position.stock || []).forEach(function (tile) {
      var b = button(tile, "tile");
      b.dataset.tile = tile;
      b.addEventListener("click", function () { submitMove({ seat: seat, kind: "draw", tile: tile }); });
      box.appendChild(b);
    });
    var first = box.querySelector("button");
    if (first) first.focus();
  }

  function renderBoard(pos) {
    var line = $("board-line");
    line.textContent = "";
    (pos.line || []).forEach(function (pair) {
      var li = document.createElement("li");
      li.className = "tile-on-board" + (pair[0] === pair[1] ? " double" : "");
      li.textContent = pair[0] + "-" + pair[1];
      line.appendChild(li);
    });
    $("board-ends").textContent = pos.ends
      ? fill(data.msgEnds, { left: pos.ends[0], right: pos.ends[1] }) : data.msgEmpty;
  }

  function renderSeats(pos) {
    var list = $("seat-hands");
    list.textContent = "";
    for (var s = 0; s < n; s++) {
      var li = document.createElement("li");
      if (s === pos.turn) li.className = "to-move";
      var who = document.createElement("strong");
      who.textContent = seatName(s);
      li.appendChild(who);
      li.appendChild(document.createTextNode(" · " + pos.hands[s].join(" ") + " (" + pos.counts[s] + ")"));
      list.appendChild(li);
    }
  }

  function renderPlay(focusFirst) {
    var pos = state.position;
    renderBoard(pos);
    renderSeats(pos);
    var seat = actingSeat();
    var posing = !pos.ends;
    var lot = $("lot-choice");
    lot.textContent = "";
    lot.hidden = !(deal.lot_choice && posing);
    if (!lot.hidden) {
      for (var s = 0; s < n; s++) {
        var b = button(seatName(s), "seat-tab");
        b.dataset.seat = s;
        b.setAttribute("aria-pressed", s === seat ? "true" : "false");
        b.addEventListener("click", function (ev) {
          state.lotSeat = Number(ev.currentTarget.dataset.seat);
          renderPlay(false);
        });
        lot.appendChild(b);
      }
    }
    var title = posing
      ? (pos.forced_tile ? fill(data.msgForced, { seat: seatName(seat), tile: pos.forced_tile })
                         : fill(data.msgPose, { seat: seatName(seat) }))
      : fill(data.msgTurn, { seat: seatName(seat) });
    $("turn-title").textContent = title;
    var grid = $("hand-tiles");
    grid.textContent = "";
    pos.hands[seat].forEach(function (tile) {
      var b = button(tile, "tile");
      b.dataset.tile = tile;
      var legal = (deal.lot_choice && posing) || legalFor(tile).length > 0;
      if (legal) {
        b.classList.add("legal");
        b.setAttribute("aria-label", tile + ", " + data.msgPlayable);
      }
      b.addEventListener("click", function () { tapHandTile(tile); });
      grid.appendChild(b);
    });
    var canDraw = (pos.legal || []).some(function (m) { return m.kind === "draw"; });
    $("move-draw").hidden = deal.boneyard !== "draw";
    $("move-draw").classList.toggle("legal", canDraw);
    $("move-pass").hidden = posing;
    var undoButton = $("move-undo");
    undoButton.textContent = state.moves.length ? undoButton.dataset.msgUndo : undoButton.dataset.msgChangeDeal;
    renderEndChoice();
    renderDrawChoice();
    if (!state.pendingTile && !state.drawing) say(title);
    if (focusFirst && !state.pendingTile && !state.drawing) {
      var first = grid.querySelector("button.legal") || grid.querySelector("button");
      if (first) first.focus();
    }
  }

  function renderDone() {
    var pos = state.position;
    renderBoard(pos);
    renderSeats(pos);
    var text;
    if (pos.result === "domino") {
      text = fill(data.msgDomino, { seat: seatName(pos.winner) });
    } else {
      text = fill(data.msgBlock, {
        counts: pos.counts.map(function (c, s) { return seatName(s) + " " + c; }).join(", ")
      });
    }
    $("done-result").textContent = text;
    say(text + " " + data.msgOver);
  }

  function renderMoves() {
    var list = $("move-list");
    list.textContent = "";
    state.moves.forEach(function (m) {
      var li = document.createElement("li");
      li.textContent = moveText(m);
      list.appendChild(li);
    });
  }

  function render(lastMove, keepStatus) {
    $("deal-step").hidden = state.phase !== "deal";
    $("play-step").hidden = state.phase !== "play";
    $("done-step").hidden = !(state.phase === "done" || state.phase === "recorded");
    renderMoves();
    if (state.phase === "deal") { renderDeal(null, keepStatus); return; }
    if (state.phase === "play") {
      renderPlay(!!lastMove);
      if (lastMove && !keepStatus) say(moveText(lastMove) + ". " + $("turn-title").textContent);
    } else if (state.phase === "done") {
      renderDone();
      if (!keepStatus) $("move-record").focus();
    }
  }

  // -- recording ---------------------------------------------------------------------------------

  function record() {
    if (busy || state.phase !== "done") return;
    busy = true;
    if (!state.key) { state.key = uuid4(); save(); }
    var body = { number: state.number, poser: state.moves[0].seat, play_log: playLog(state.moves) };
    $("move-record").disabled = true;
    say(data.msgSending);
    post(data.handsUrl, body, { "Idempotency-Key": state.key }).then(function (r) {
      busy = false;
      $("move-record").disabled = false;
      if (r.status === 201) {
        clearError();
        state.phase = "recorded";
        save();
        say(fill(data.msgRecorded, { number: state.number }), "ok");
        $("move-record").hidden = true;
        $("move-undo-last").hidden = true;
        $("replay-link").href = data.replayUrl.replace("/0/replay/", "/" + state.number + "/replay/");
        $("after-record").hidden = false;
        $("replay-link").focus();
        return;
      }
      if (r.status === 409) {
        state.key = null; save();
        showError({ message: data.msgConflict, rule: r.body && r.body.error && r.body.error.rule });
        say(data.msgConflict, "error");
        return;
      }
      state.key = null; save();  // refused: the corrected hand is a new submission
      showError(r.body && r.body.error);
      say(data.msgFailed, "error");
    }, function () {
      busy = false;
      $("move-record").disabled = false;
      showError({ message: data.msgNetwork });
      say(data.msgNetwork, "error");
    });
  }

  function undo() {
    if (busy) return;
    state.key = null;
    if (!state.moves.length) {  // before the pose: back to the deal, to correct it
      clearError();
      state.phase = "deal";
      state.position = null;
      save();
      render();
      return;
    }
    check(state.moves.slice(0, -1), null);
  }

  // -- wiring ------------------------------------------------------------------------------------

  $("deal-clear").addEventListener("click", function () {
    state.hands[state.seat] = [];
    save();
    renderDeal();
  });
  $("deal-done").addEventListener("click", function () { check([], null); });
  $("move-pass").addEventListener("click", function () {
    submitMove({ seat: state.position.turn, kind: "pass" });
  });
  $("move-draw").addEventListener("click", function () {
    state.drawing = !state.drawing;
    state.pendingTile = null;
    renderPlay(false);
  });
  $("move-undo").addEventListener("click", undo);
  $("move-undo-last").addEventListener("click", undo);
  $("move-record").addEventListener("click", record);

  if (restore() && dealComplete()) {
    say(data.msgRestored);
    check(state.moves, null);
  } else {
    render();
  }
})();
