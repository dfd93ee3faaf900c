/*
 * Referee match page: record a hand, undo the last one, show the new state.
 *
 * The page is server rendered; this script only submits to the JSON API and swaps in the
 * server-rendered panel (#match-panel) afterwards, so all wording and rules live on the server.
 *
 * A double tap records one hand and shows no false error: taps on "Record hand" are ignored
 * while a hand is being sent and for a moment (SETTLE_MS) after the form is reset for the next
 * hand; the button is disabled meanwhile.
 *
 * The answer to a hand is the truth: when the panel cannot be loaded afterwards (the referee
 * link ended with the tournament, the network), the page still says the hand is recorded and
 * never draws a recorded hand as "not yet sent".
 *
 * The page follows its match live: static/js/live.js (the spectators' client, data-apply="page"
 * on #live) watches the match's live events and versions and asks this script to read the
 * panel again ("live:stale"); without a socket it polls. When the match changed under the
 * referee (the director undid a hand, resolved a dispute, recorded a forfeit; another device
 * recorded a hand), the new panel is swapped in keeping what the referee typed for the next
 * hand (catchUp), and the status line says what changed. Nothing is read while this phone is
 * sending or holds hands in its queue: their answer shows the match anyway.
 *
 * Never double-record on a flaky phone connection:
 *   - every submission carries the expected hand number and an Idempotency-Key made once per
 *     submission and reused on every retry of it (automatic or the Retry button);
 *   - the pending submission is kept in sessionStorage, so a reload after a lost response
 *     offers to retry the same submission (same key) instead of recording it again;
 *   - a rejected submission (4xx) drops its key: the corrected one is a new submission.
 * No dependencies, no CDN: served from our static files (the venue network may be offline).
 */
(function () {
  "use strict";

  var root = document.getElementById("referee-app");
  if (!root) return;

  var matchId = root.dataset.matchId;
  var handsUrl = root.dataset.handsUrl;
  var voidUrl = root.dataset.voidUrl;
  var confirmUrl = root.dataset.confirmUrl;
  var disputeUrl = root.dataset.disputeUrl;
  var panelUrl = root.dataset.panelUrl;
  var csrfToken = root.dataset.csrfToken;
  var storageKey = "ct-pending-" + matchId;
  var TIMEOUT_MS = 15000;
  var AUTO_RETRIES = 3;
  // A rate limit's Retry-After is waited out here up to this long; a longer one leaves the
  // hand in the queue, sent again once it has passed (capped: a wrong header never parks it).
  var RETRY_AFTER_INLINE_MS = 10000;
  var RETRY_AFTER_MAX_MS = 120000;
  var SETTLE_MS = 700; // a double tap's second tap lands well within this after the reset
  var busy = false;
  var handLock = false; // a hand is on its way: "Record hand" taps are ignored
  var settleUntil = 0; // ... and until then, after the form was reset for the next hand
  var settleTimer = null;
  var ended = false; // the referee link no longer opens this match: nothing more to send
  // The block the referee was asked about (counts no real block gives, R1): the hand as it
  // stood at the first tap. A second tap on the same hand records it (section 9 accepts it);
  // any change to the form asks again.
  var countsAsked = null;

  // -- small helpers ---------------------------------------------------------------------------

  function $(sel, el) { return (el || document).querySelector(sel); }
  function $all(sel, el) { return Array.prototype.slice.call((el || document).querySelectorAll(sel)); }
  function panel() { return document.getElementById("match-panel"); }
  function text(msg) { return document.createTextNode(msg); }

  function uuid4() {
    // crypto.randomUUID exists only in secure contexts; a venue LAN may serve plain http.
    if (window.crypto && typeof window.crypto.randomUUID === "function") {
      return window.crypto.randomUUID();
    }
    var b = new Uint8Array(16);
    window.crypto.getRandomValues(b);
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.prototype.map.call(b, function (x) { return (x + 0x100).toString(16).slice(1); }).join("");
    return h.slice(0, 8) + "-" + h.slice(8, 12) + "-" + h.slice(12, 16) + "-" + h.slice(16, 20) + "-" + h.slice(20);
  }

  // A seat reads "A · Ana" everywhere (the server renders the label).
  function seatName(seat) {
    var el = $('[data-seat-name="' + seat + '"]', panel());
    return el ? (el.dataset.label || el.dataset.name) : "ABCD".charAt(Number(seat)) || String(seat);
  }

  // The API's messages are the engine's English; the page shows its own translated message for
  // the error's code (scoring/error_messages.py), naming seats as the page does.
  function errorMessages() {
    try { return JSON.parse(panel().dataset.errorMessages || "{}"); } catch (e) { return {}; }
  }

  function fieldSeat(field) {
    var m = /\[(\d+)\]$/.exec(field || "");
    return m ? seatName(m[1]) : "";
  }

  function fill(template, params) {
    return template.replace(/%\((\w+)\)s/g, function (all, key) {
      return params[key] !== undefined && params[key] !== "" ? params[key] : all;
    });
  }

  function localise(error) {
    if (!error || !error.code) return error;
    var template = errorMessages()[error.code];
    if (!template) return error;
    var p = panel();
    var base = { max: p.dataset.maxCount, tile: p.dataset.forcedTile, seat: p.dataset.poserLabel };
    var fields = {};
    Object.keys(error.fields || {}).forEach(function (field) {
      var params = Object.assign({}, base);
      if (fieldSeat(field)) params.seat = fieldSeat(field);
      fields[field] = [fill(template, params)];
    });
    var first = Object.keys(error.fields || {})[0];
    var params = Object.assign({}, base);
    if (first && fieldSeat(first)) params.seat = fieldSeat(first);
    return { code: error.code, rule: error.rule, message: fill(template, params), fields: fields };
  }

  // A refused queue entry's message, worded against the panel as it is now.
  function refusalText(error) {
    if (error && error.raw && error.raw.code) return localise(error.raw).message || error.message;
    return error && error.message;
  }

  function setStatus(kind, message) {
    var box = $("#submit-status");
    if (!box) return;
    box.className = "status " + kind;
    box.textContent = message;
    box.hidden = !message;
  }

  // The confirmation must be seen: bring it into view and give it focus (it is a live region,
  // so a screen reader announces it too). Kept for this session so a reload shows it again.
  var confirmKey = "ct-confirmed-" + matchId;
  function confirmInView(message, number) {
    setStatus("ok", message);
    var box = $("#submit-status");
    if (!box) return;
    box.setAttribute("tabindex", "-1");
    box.scrollIntoView({ block: "start" });
    try { box.focus({ preventScroll: true }); } catch (e) { box.focus(); }
    try {
      window.sessionStorage.setItem(confirmKey, JSON.stringify({ message: message, number: number }));
    } catch (e) { /* private mode */ }
  }

  function confirmedAfterReload() {
    var saved = null;
    try { saved = JSON.parse(window.sessionStorage.getItem(confirmKey) || "null"); } catch (e) { saved = null; }
    var p = panel();
    // Only while the confirmed hand is still the last one (not after another device moved on).
    if (saved && p && String(saved.number) === String(p.dataset.lastNumber || "")) {
      confirmInView(saved.message, saved.number);
    }
  }

  function loadPending() {
    try { return JSON.parse(window.sessionStorage.getItem(storageKey) || "null"); } catch (e) { return null; }
  }
  function savePending(p) {
    try {
      if (p) window.sessionStorage.setItem(storageKey, JSON.stringify(p));
      else window.sessionStorage.removeItem(storageKey);
    } catch (e) { /* private mode: keep it in memory only */ }
  }
  var pending = loadPending();

  // -- reading the form ------------------------------------------------------------------------

  function checked(name) {
    var el = $('input[name="' + name + '"]:checked', panel());
    return el ? el.value : null;
  }

  function currentEnd() { return checked("end") || "domino"; }

  // Under pip scoring a domino carries every count (R40); the winner's own is 0 by definition.
  function readCounts() {
    var end = currentEnd();
    var w = checked("winner");
    return $all("input[data-count-seat]", panel()).map(function (el) {
      if (end === "domino" && w !== null && el.dataset.countSeat === w) return 0;
      return el.value.trim() === "" ? null : Number(el.value);
    });
  }

  function buildPayload() {
    var p = panel();
    var payload = {
      number: Number(p.dataset.number),
      poser: checked("poser") === null ? null : Number(checked("poser")),
      pose_tile: $("#pose-tile", p).value,
      end: currentEnd()
    };
    if (payload.end === "domino") {
      var w = checked("winner");
      payload.winner = w === null ? null : Number(w);
      var llave = $("#llave", p);
      if (llave && !llave.closest("[hidden]")) payload.llave = llave.checked;
      if (p.dataset.countsOnDomino === "1") payload.counts = readCounts();
    } else {
      payload.winner = null;
      payload.counts = readCounts();
    }
    return payload;
  }

  // Client-side checks only catch what would be a typing slip; the rules are the server's.
  function localProblems(payload) {
    var problems = {};
    var p = panel();
    if (payload.poser === null) problems.poser = [p.dataset.msgPoser];
    else if (poserProblem()) problems.poser = [poserProblem()];
    if (!payload.pose_tile) problems.pose_tile = [p.dataset.msgTile];
    if (payload.end === "domino" && payload.winner === null) problems.winner = [p.dataset.msgWinner];
    if (payload.counts) {
      var max = Number(p.dataset.maxCount);
      payload.counts.forEach(function (c, i) {
        if (payload.end === "domino" && i === payload.winner) return;
        if (c === null || !Number.isInteger(c) || c < 0 || c > max) {
          problems["counts[" + i + "]"] = [p.dataset.msgCount.replace("%(max)s", max)];
        }
      });
    }
    return problems;
  }

  // -- showing errors --------------------------------------------------------------------------

  function clearErrors() {
    $all(".field-error", panel()).forEach(function (el) { el.textContent = ""; el.hidden = true; });
    $all("[aria-invalid]", panel()).forEach(function (el) { el.removeAttribute("aria-invalid"); });
    var box = $("#form-error", panel());
    if (box) { box.hidden = true; box.textContent = ""; }
  }

  function errorSlot(field) {
    var p = panel();
    var name = field.replace(/\[\d+\]$/, "");
    return $('.field-error[data-error-for="' + field + '"]', p) ||
      $('.field-error[data-error-for="' + name + '"]', p);
  }

  // said: what the page just said changed (a 409's refresh), kept in front of the refusal
  // when there is no form to put the refusal on.
  function showError(error, fallbackField, said) {
    clearErrors();
    error = localise(error);
    var rule = error.rule ? " (" + error.rule + ")" : "";
    var placed = false;
    var fields = error.fields || {};
    Object.keys(fields).forEach(function (field) {
      var slot = errorSlot(field);
      if (!slot) return;
      var msgs = fields[field].join(" ");
      if (msgs.indexOf("(" + error.rule + ")") === -1) msgs += rule;
      slot.textContent = msgs;
      slot.hidden = false;
      var input = $('[data-field="' + field + '"]', panel());
      if (input) input.setAttribute("aria-invalid", "true");
      placed = true;
    });
    if (!placed && fallbackField) {
      var slot = errorSlot(fallbackField);
      if (slot) { slot.textContent = error.message + rule; slot.hidden = false; placed = true; }
    }
    var box = $("#form-error", panel());
    if (placed) {
      // The message sits next to its field; bring that field into view, and the focus to
      // the first field to correct (not left on the Record button, where a screen reader
      // or a keyboard would go on from).
      var shown = $(".field-error:not([hidden])", panel());
      if (shown) shown.scrollIntoView({ block: "center" });
      focusFirstInvalid();
      return;
    }
    if (box) {
      box.textContent = "";
      var strong = document.createElement("strong");
      strong.textContent = error.message;
      box.appendChild(strong);
      if (error.rule && error.message.indexOf("(" + error.rule + ")") === -1) {
        var r = document.createElement("span");
        r.className = "rule";
        r.textContent = " " + error.rule;
        box.appendChild(r);
      }
      box.hidden = false;
      box.scrollIntoView({ block: "nearest" });
      return;
    }
    // No form to put it on (the other device's hand ended the match): the status line says
    // it, or the refused hand would vanish without a word.
    var whole = error.message + (error.rule && error.message.indexOf("(" + error.rule + ")") === -1 ? rule : "");
    setStatus("error", (said ? said + " " : "") + whole);
  }

  // The first field marked invalid, in the form's order: the field itself, or in a group
  // (the poser's, the winner's) its chosen option, else its first.
  function focusFirstInvalid() {
    var first = $('[aria-invalid="true"]', panel());
    if (!first) return;
    var target = first.matches("input, select, textarea") ? first
      : $("input:checked:not([disabled]), input:not([disabled]), select, textarea", first);
    if (!target) return;
    try { target.focus({ preventScroll: true }); } catch (e) { target.focus(); }
  }

  // -- what the form shows -------------------------------------------------------------------

  function updateEnd() {
    var p = panel();
    if (!p || !$("#hand-form", p)) return;
    var end = currentEnd();
    $("#winner-group", p).hidden = end !== "domino";
    $("#counts-group", p).hidden = end !== "block" && p.dataset.countsOnDomino !== "1";
    var llaveRow = $("#llave-row", p);
    if (llaveRow) llaveRow.hidden = end !== "domino";
    syncWinnerCount();
    updateBlockResult();
    showPoserProblem();
    updateSummary();
  }

  // Pip scoring (R40): the domino winner holds no tile, so their count is 0 and locked.
  function syncWinnerCount() {
    var p = panel();
    if (p.dataset.countsOnDomino !== "1") return;
    var w = currentEnd() === "domino" ? checked("winner") : null;
    $all("input[data-count-seat]", p).forEach(function (el) {
      var isWinner = w !== null && el.dataset.countSeat === w;
      if (isWinner) { el.dataset.typed = el.value === "0" ? (el.dataset.typed || "") : el.value; el.value = "0"; }
      else if (el.disabled) { el.value = el.dataset.typed || ""; }
      el.disabled = isWinner;
    });
  }

  // "A, B and C" in the page's language (data-msg-and).
  function joinNames(names) {
    if (names.length < 2) return names.join("");
    var and = panel().dataset.msgAnd || "and";
    return names.slice(0, -1).join(", ") + " " + and + " " + names[names.length - 1];
  }

  // R20: the unique lowest count wins; a shared lowest count is a tie. Under the counts the
  // page says what is missing or wrong; the result itself is said once (updateSummary): in the
  // summary next to the record button, or under the counts while the summary asks for
  // something else, so no line appears twice on the screen.
  function updateBlockResult() {
    var p = panel();
    var out = $("#block-result", p);
    if (!out) return;
    out.textContent = "";
    out.className = "block-result";
    markImpossibleCounts();
    if (currentEnd() !== "block") return;
    var wrong = impossibleCounts();
    if (wrong) {
      // Name whose count is wrong: on a phone the field's own error may be off screen.
      out.textContent = wrong;
      out.className = "block-result error"; // a mistake to fix, in the error colour
      return;
    }
    if (readCounts().some(missingCount)) {
      out.textContent = p.dataset.msgEnterCounts;
      out.className = "block-result muted";
    }
  }

  function missingCount(c) { return c === null || isNaN(c); }

  // A count no hand can have (R20: outside 0 to the ruleset's heaviest hand, the bound the
  // server's validation uses) gives no result to confirm: the seats whose count it is, named
  // in the page's words as soon as it is typed (before the other counts are in), or "".
  function impossibleCounts() {
    var p = panel();
    var bad = [];
    readCounts().forEach(function (c, i) { if (!missingCount(c) && !possibleCount(c)) bad.push(i); });
    if (!bad.length) return "";
    return fill(p.dataset.msgCountOf, {
      names: joinNames(bad.map(seatName)), max: Number(p.dataset.maxCount)
    });
  }

  // Outline, as the referee types, exactly the count fields no hand can have (R20), and
  // only those: a field corrected (or emptied) loses its outline at once.
  function markImpossibleCounts() {
    var block = currentEnd() === "block";
    $all("input[data-count-seat]", panel()).forEach(function (el) {
      var typed = el.value.trim() !== "" && !el.disabled;
      var wrong = block && typed && !possibleCount(Number(el.value));
      if (wrong) {
        el.setAttribute("aria-invalid", "true");
        el.dataset.countWarned = "1";
      } else if (el.dataset.countWarned) {
        el.removeAttribute("aria-invalid");
        delete el.dataset.countWarned;
      }
    });
  }

  // A count some hand can have (R20): a whole number from 0 to the heaviest hand.
  function possibleCount(c) {
    var max = Number(panel().dataset.maxCount);
    return c !== null && Number.isInteger(c) && c >= 0 && !(max && c > max);
  }

  // The summary of a block: a count no hand can have, named as typed (walkthrough: the
  // summary stayed blank until the tap), else its R20 result once every count is possible,
  // else "" (what is missing is said under the counts).
  function blockSummary() {
    var wrong = impossibleCounts();
    if (wrong) return { text: wrong, cls: "error" };
    var counts = readCounts();
    if (!counts.every(possibleCount)) return { text: "", cls: "" };
    var words = blockWords(counts);
    var check = countsCheck(counts);
    return check ? { text: check + " " + words.text, cls: "warn" } : words;
  }

  // Counts each possible alone that no real block gives together (R1: one double-six set,
  // 168 pips; only 0-0 is worth 0): two or more zeros, or more pips in hand than are off the
  // board (the posed tile is on it). A typo the referee is asked to check, never refused:
  // the rules (§9) accept every count from 0 to the heaviest hand, and so does the server.
  function countsCheck(counts) {
    var odd = countsOddity(counts);
    return odd ? odd.check : "";
  }

  // The same, with the question the first tap on "Record" asks before the hand is sent
  // ("All counts are 0 at a block — is that right?"): {check, ask}, or null.
  function countsOddity(counts) {
    var p = panel();
    var zeros = counts.filter(function (c) { return c === 0; }).length;
    if (zeros > 1) {
      return { check: p.dataset.msgCountsZeros, ask: zeros === counts.length
        ? p.dataset.msgAskAllZero : fill(p.dataset.msgAskZeros, { n: zeros }) };
    }
    var tile = ($("#pose-tile", p) || {}).value || "";
    var posed = tile.split("-").reduce(function (sum, v) { return sum + (Number(v) || 0); }, 0);
    var total = counts.reduce(function (sum, c) { return sum + c; }, 0);
    var left = 168 - posed;
    if (total <= left) return null;
    return { check: fill(p.dataset.msgCountsTotal, { total: total, left: left }),
      ask: fill(p.dataset.msgAskTotal, { total: total, left: left }) };
  }

  // The question to ask before recording this hand: a block whose counts are each possible
  // (R20) but that no real block gives together (R1); "" when none.
  function countsQuestion(payload) {
    if (payload.end !== "block" || !payload.counts || !payload.counts.every(possibleCount)) return "";
    var odd = countsOddity(payload.counts);
    return odd ? odd.ask : "";
  }

  // Whether the referee was asked about exactly this hand (poser, tile, counts as typed).
  function askedAbout(payload) {
    return countsAsked !== null && countsAsked === JSON.stringify(payload);
  }

  // The Record button says what a tap does: "Yes, record hand 4" once the counts were asked about.
  function recordLabel() {
    var p = panel();
    var button = p && $("#confirm-hand", p);
    if (!button || !button.dataset.label) return;
    var sure = countsAsked !== null && button.dataset.labelSure;
    button.textContent = fill(sure ? button.dataset.labelSure : button.dataset.label,
      { n: p.dataset.number });
  }

  // What a block with these counts gives (R20; R43 with partners): {text, cls} in the page's
  // words. Used by the form and by the players' confirmation of a recorded hand.
  function blockWords(counts) {
    var p = panel();
    var low = Math.min.apply(null, counts);
    var seats = [];
    counts.forEach(function (c, i) { if (c === low) seats.push(i); });
    if (p.dataset.partners === "1") {
      // R43: the lowest count wins for its partnership (seats A/C = AC, B/D = BD); shared
      // only by two partners it still wins; shared across the partnerships it ties.
      var sides = seats.map(function (s) { return s % 2; });
      var one = sides.every(function (x) { return x === sides[0]; });
      if (!one) {
        return { text: fill(p.dataset.msgPartnersTie, {
          names: joinNames(seats.map(seatName)), count: low
        }), cls: "tie" };
      }
      var team = p.getAttribute("data-team-" + sides[0]);
      return { text: seats.length === 1
        ? fill(p.dataset.msgPartnersWin, { team: team, name: seatName(seats[0]), count: low })
        : fill(p.dataset.msgPartnersShared, {
          team: team, names: joinNames(seats.map(seatName)), count: low
        }), cls: "ok" };
    }
    if (seats.length === 1) {
      return { text: p.dataset.msgBlockWin.replace("%(name)s", seatName(seats[0])).replace("%(count)s", low),
        cls: "ok" };
    }
    return { text: p.dataset.msgBlockTie
      .replace("%(names)s", joinNames(seats.map(seatName)))
      .replace("%(count)s", low), cls: "tie" };
  }

  // A recorded hand in words ("B · Ana dominoes.", "A · Luis wins the block with 3 (R20).").
  function handWords(hand) {
    var p = panel();
    if (!hand) return "";
    if (hand.end === "domino" && hand.winner !== null && hand.winner !== undefined) {
      var msg = p.dataset.partners === "1"
        ? fill(p.dataset.msgPartnersDomino, {
          name: seatName(hand.winner), team: p.getAttribute("data-team-" + (hand.winner % 2))
        })
        : p.dataset.msgSummaryDomino.replace("%(name)s", seatName(hand.winner));
      return hand.llave ? msg + " — " + p.dataset.msgLlave : msg;
    }
    if (hand.end === "block" && hand.counts && hand.counts.every(function (c) { return typeof c === "number"; })) {
      return blockWords(hand.counts).text;
    }
    return "";
  }

  function updateSummary() {
    var p = panel();
    var out = $("#confirm-summary", p);
    if (!out) return;
    var payload = buildPayload();
    var msg;
    var cls = "";
    if (payload.poser === null) {
      msg = p.dataset.msgPoser;
    } else if (poserProblem()) {
      msg = poserProblem(); // never "B · X dominoes" for a hand the rules refuse
    } else if (payload.end === "domino") {
      msg = payload.winner === null ? p.dataset.msgTapWinner
        : p.dataset.partners === "1"
          ? fill(p.dataset.msgPartnersDomino, {
            name: seatName(payload.winner), team: p.getAttribute("data-team-" + (payload.winner % 2))
          })
          : p.dataset.msgSummaryDomino.replace("%(name)s", seatName(payload.winner));
      if (payload.llave) msg += " — " + p.dataset.msgLlave;
    } else {
      var block = blockSummary();
      msg = block.text;
      cls = block.cls;
    }
    // Asked about these counts at the first tap: the question stays until the second tap;
    // a change to the hand drops it (the next tap asks again if it still needs to).
    var asked = askedAbout(payload) && !poserProblem();
    if (!asked && countsAsked !== null) {
      countsAsked = null;
      recordLabel();
    }
    if (asked) {
      msg = countsQuestion(payload);
      cls = "warn ask";
    } else if (msg && !poserProblem() && (payload.end !== "domino" || payload.winner !== null)) {
      var reset = resetOnRecord(payload);
      if (reset) {
        msg += (/[.!?]$/.test(msg) ? " " : " — ") + reset;
        cls = (cls ? cls + " " : "") + "resets";
      }
    }
    out.textContent = msg;
    out.className = cls;
    // A block's result is said once: in the summary when it shows it, else (the poser still
    // to tap, or refused) under the counts, so typing the counts always shows the result.
    var under = $("#block-result", p);
    if (under && currentEnd() === "block") {
      var result = asked ? blockWords(payload.counts) : blockSummary();
      if (result.text) {
        var shown = msg === result.text;
        under.textContent = shown ? "" : result.text;
        under.className = "block-result" + (shown ? "" : " " + result.cls);
      }
    }
    // Tappable unless a hand is on its way: a tap on an incomplete form says what is
    // missing, next to the field.
    syncRecordButton();
  }

  // Whether the referee has begun the hand on the form since it was drawn: a tap, a tile or
  // a count of their own (change and input events come from the user, never from the page's
  // own pre-selection of the designated poser or its offline preview of the next hand).
  var formTouched = false;
  // Which of the form's fields the referee set (poser, pose_tile, end, winner, llave,
  // count-<seat>): kept when the panel is swapped under them, the page's defaults are not.
  var touched = {};

  function fieldKey(el) {
    if (el.dataset && el.dataset.countSeat !== undefined) return "count-" + el.dataset.countSeat;
    return el.name || "";
  }

  // -- a double tap records one hand ----------------------------------------------------------

  function tapsHeld() {
    return handLock || Date.now() < settleUntil;
  }

  function syncRecordButton() {
    var button = panel() && $("#confirm-hand", panel());
    if (button) button.disabled = busy || ended || tapsHeld() || !!poserProblem();
  }

  // The poser tapped against who must pose (the server's next hand, data-must-pose, or the
  // reducer's while hands wait on this phone): the engine's wrong_poser words and rule, or "".
  function poserProblem() { return poserProblemIn(panel(), checked("poser")); }

  // The same for a poser not on the form (a queued hand) against the panel p.
  function poserProblemIn(p, tapped) {
    var group = p && $('fieldset[data-field="poser"]', p);
    if (!group || tapped === null || tapped === undefined || !group.dataset.mustPose) return "";
    if (String(tapped) === group.dataset.mustPose) return "";
    var words = errorMessages().wrong_poser || "%(seat)s must pose this hand.";
    var rule = group.dataset.poseRule ? " (" + group.dataset.poseRule + ")" : "";
    return fill(words, { seat: seatName(group.dataset.mustPose) }) + rule;
  }

  function showPoserProblem() {
    var slot = errorSlot("poser");
    var group = $('fieldset[data-field="poser"]', panel());
    if (!slot || !group) return;
    var problem = poserProblem();
    if (problem) {
      slot.textContent = problem;
      slot.hidden = false;
      group.setAttribute("aria-invalid", "true");
      group.dataset.warned = "1";
    } else if (group.dataset.warned) {
      slot.textContent = "";
      slot.hidden = true;
      group.removeAttribute("aria-invalid");
      delete group.dataset.warned;
    }
  }

  // The hand was answered and the form shows the next one: the second tap of a double tap
  // (or a tap a moment late) must not submit the freshly cleared form.
  function settle() {
    handLock = false;
    settleUntil = Date.now() + SETTLE_MS;
    syncRecordButton();
    if (settleTimer) window.clearTimeout(settleTimer);
    settleTimer = window.setTimeout(function () { settleTimer = null; syncRecordButton(); }, SETTLE_MS + 20);
    catchUpOwed();
  }

  function showPendingBanner() {
    var banner = $("#pending-banner");
    if (!banner) return;
    var p = panel();
    var stillOpen = pending && p && String(pending.payload.number) === p.dataset.number;
    if (pending && !stillOpen) { pending = null; savePending(null); }
    banner.hidden = !stillOpen;
    if (stillOpen) {
      $("#pending-text", banner).textContent =
        banner.dataset.msg.replace("%(number)s", pending.payload.number);
    }
  }

  // -- talking to the server -----------------------------------------------------------------

  function send(url, body, key) {
    var ctrl = window.AbortController ? new AbortController() : null;
    var timer = ctrl ? window.setTimeout(function () { ctrl.abort(); }, TIMEOUT_MS) : null;
    return window.fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "X-CSRFToken": csrfToken,
        "Idempotency-Key": key
      },
      body: JSON.stringify(body),
      signal: ctrl ? ctrl.signal : undefined
    }).then(function (res) {
      if (timer) window.clearTimeout(timer);
      var wait = retryAfterMs(res.headers.get("Retry-After"));
      return res.text().then(function (raw) {
        var data = null;
        try { data = raw ? JSON.parse(raw) : null; } catch (e) { data = null; }
        return { status: res.status, data: data, retryAfter: wait };
      });
    }, function (err) {
      if (timer) window.clearTimeout(timer);
      return { status: 0, data: null, network: err };
    });
  }

  // Retry-After (RFC 9110 §10.2.3): seconds, or an HTTP date; 0 when absent or unreadable.
  function retryAfterMs(value) {
    if (!value) return 0;
    var ms = /^\s*\d+\s*$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
    return isFinite(ms) && ms > 0 ? Math.min(ms, RETRY_AFTER_MAX_MS) : 0;
  }

  function sleep(ms) { return new Promise(function (r) { window.setTimeout(r, ms); }); }

  // An answer that may change if the same request is sent again: no answer, a 5xx, or a real
  // rate limit (429 "throttled": DRF throttling, the referee-key limit, django-axes). Any
  // other 4xx is the server's decision and is never resent by itself; that includes a 429
  // with another code: "pin_locked" (tournament/pins.py) stays locked until the director acts.
  function transient(res) {
    if (res.status === 0 || res.status >= 500) return true;
    if (res.status !== 429) return false;
    var code = res.data && res.data.error && res.data.error.code;
    return !code || code === "throttled";
  }

  // Retries only what may not have reached the server, with the same key and a growing wait,
  // never sooner than a rate limit's Retry-After (a long one is left to the queue's retry).
  function sendWithRetry(url, body, key, attempt) {
    return send(url, body, key).then(function (res) {
      var wait = res.retryAfter || 0; // none on a lost answer
      if (transient(res) && attempt < AUTO_RETRIES && wait <= RETRY_AFTER_INLINE_MS) {
        setStatus("working", root.dataset.msgRetrying.replace("%(n)s", attempt + 1));
        return sleep(Math.max(1000 * Math.pow(2, attempt), wait)).then(function () {
          return sendWithRetry(url, body, key, attempt + 1);
        });
      }
      return res;
    });
  }

  // The server-rendered panel read again, through the referee's own authorised read: its
  // #match-panel element. Rejects with err.signedOut when the answer is the sign-in page.
  function fetchPanel() {
    // redirect "manual": a redirect is the sign-in page, never a panel (nor cached as one).
    return window.fetch(panelUrl, { credentials: "same-origin", redirect: "manual",
      headers: { "Accept": "text/html" } })
      .then(function (res) {
        if (res.type === "opaqueredirect" || res.redirected) {
          var out = new Error("panel: signed out");
          out.signedOut = true;
          throw out;
        }
        if (!res.ok) throw new Error("panel " + res.status);
        return res.text();
      })
      .then(function (html) {
        var holder = document.createElement("div");
        holder.innerHTML = html;
        var fresh = holder.querySelector("#match-panel");
        if (!fresh) throw new Error("panel: none in the answer");
        return fresh;
      });
  }

  // A panel of a later version than the one shown. Versions only grow (every change of the
  // match bumps it), so an older copy (the service worker's, offline) never replaces a newer.
  function newer(fresh) {
    var p = panel();
    return !p || Number(fresh.dataset.version || 0) > Number(p.dataset.version || 0);
  }

  // Swap in the server-rendered panel. With onlyIfChanged, only when the match really changed
  // (another device, the director). What the referee typed for the next hand is kept (keep,
  // or their own taps on the form), and with explain the status line says what changed
  // (OWN: the phone's own queued hands may be among the changes). Every read of a newer
  // panel explains: a director's undo that lands during the phone's own read (its first look
  // after loading, the queue stopping) is said like one that arrives live.
  // Resolves with the words shown ("" when none).
  var OWN = "own";
  function refreshPanel(flash, onlyIfChanged, explain, keep) {
    return fetchPanel()
      .then(function (fresh) {
        if (onlyIfChanged && !newer(fresh)) return "";
        // A hand just recorded by this phone starts the next one on a clean form.
        var typed = flash ? null : (keep || typedNow(false));
        return showFresh(fresh, flash, typed, explain);
      })
      .catch(function (err) {
        if (onlyIfChanged) return ""; // a background check; try again next time
        if (err && err.signedOut) {
          // The referee link no longer opens this match (the tournament finished, the link
          // was revoked): a reload would only show the sign-in page. The answer stands.
          linkEnded(flash);
          return "";
        }
        // The hand is stored; only the view is stale. A reload shows the truth.
        window.location.reload();
        return "";
      });
  }

  function showFresh(fresh, flash, typed, explain) {
    var before = pristine || panel();
    // The field the referee is in (a count, the tile, the reason) keeps the focus, so the
    // phone's keyboard does not close under their fingers.
    var active = document.activeElement;
    var focusId = !flash && typed && active && active.id && panel().contains(active) ? active.id : "";
    panel().replaceWith(fresh);
    initPanel();
    var kept = typed ? restoreTyped(typed) : false;
    var refocus = focusId ? document.getElementById(focusId) : null;
    if (refocus && panel().contains(refocus)) {
      try { refocus.focus({ preventScroll: true }); } catch (e) { refocus.focus(); }
    }
    if (flash) {
      confirmInView(flash, fresh.dataset.lastNumber);
      return flash;
    }
    // After this phone's own queue sent hands (explain === OWN), a later hand is its own,
    // not "recorded on another device"; the director's changes are still said.
    var words = explain ? whatChanged(before, fresh, !!typed && explain !== OWN) : "";
    var next = fresh.dataset.number || "";
    if (kept && next && next !== typed.number) {
      // The hand number moved on under the referee's fingers: what they typed stays, for
      // the hand the form is now for.
      words = (words ? words + " " : "") + fill(root.dataset.msgLiveKept, { number: next });
    } else if (!words && kept && explain && explain !== OWN) {
      words = root.dataset.msgConflict;
    }
    if (words) {
      setStatus("notice", words);
      // Also by the Record button (the bar stays on screen): a referee in the middle of the
      // form does not see the status line at the top. It goes with this panel.
      var bar = $(".confirm-bar", panel());
      if (bar) {
        var note = document.createElement("p");
        note.className = "changed-note";
        note.id = "changed-note";
        note.textContent = words;
        bar.insertBefore(note, bar.firstChild);
      }
    } else if (explain && $("#submit-status") && $("#submit-status").classList.contains("notice") &&
        !resolutionShown()) {
      setStatus("", ""); // what changed before is no longer what the panel shows
    }
    return words;
  }

  // What the referee typed on the form (with all, every field as the form shows it: the hand
  // they just sent), and the reason typed to undo the last hand; null when nothing.
  function typedNow(all) {
    var p = panel();
    if (!p) return null;
    var reason = $("#void-reason", p);
    var undo = $("#undo", p);
    var typed = { number: p.dataset.number || "", last: p.dataset.lastNumber || "", fields: {},
      reason: reason ? reason.value : "", undoOpen: !!(undo && undo.open) };
    var form = $("#hand-form", p);
    if (form && (formTouched || all)) {
      var pick = function (name) {
        var el = $('input[name="' + name + '"]:checked', form);
        return el ? el.value : null;
      };
      var llave = $("#llave", form);
      var values = { poser: pick("poser"), pose_tile: $("#pose-tile", form).value, end: pick("end"),
        winner: pick("winner"), llave: llave ? llave.checked : null };
      $all("input[data-count-seat]", form).forEach(function (el) {
        values["count-" + el.dataset.countSeat] = el.disabled ? (el.dataset.typed || "") : el.value;
      });
      Object.keys(values).forEach(function (k) {
        if ((all || touched[k]) && values[k] !== null && values[k] !== "") typed.fields[k] = values[k];
      });
    }
    return Object.keys(typed.fields).length || typed.reason.trim() ? typed : null;
  }

  // Put what the referee typed back on the new form, field by field, where it still fits
  // (a seat of this table, a tile the pose allows: a forced pose offers only R5's tiles); a
  // poser the rules now refuse is kept and warned about beside the field (R5-R10). True when
  // something of theirs is on the form.
  function restoreTyped(typed) {
    var p = panel();
    var form = p && $("#hand-form", p);
    var kept = false;
    if (form) {
      Object.keys(typed.fields).forEach(function (k) {
        var v = typed.fields[k];
        var el = null;
        if (k === "pose_tile") {
          el = $("#pose-tile", form);
          if (!$all("option", el).some(function (o) { return o.value === v; })) return;
          el.value = v;
        } else if (k === "llave") {
          el = $("#llave", form);
          if (!el) return;
          el.checked = !!v;
        } else if (k.indexOf("count-") === 0) {
          el = $('input[data-count-seat="' + k.slice(6) + '"]', form);
          if (!el) return;
          el.value = v;
        } else {
          el = $('input[name="' + k + '"][value="' + v + '"]', form);
          if (!el) return;
          el.checked = true;
        }
        touched[k] = true;
        kept = true;
      });
      if (kept) {
        formTouched = true;
        updateEnd();
      }
    }
    // The reason for undoing the last hand, while that is still the last hand.
    var reason = $("#void-reason", p);
    if (reason && typed.reason && typed.last === (p.dataset.lastNumber || "")) {
      reason.value = typed.reason;
      if (typed.undoOpen) $("#undo", p).open = true;
    }
    return kept;
  }

  // The hands undone in a panel, by number: their rows, the latest first.
  function voidRows(p) {
    var rows = {};
    $all("tr[data-void-reason]", p).forEach(function (tr) {
      (rows[tr.dataset.hand] = rows[tr.dataset.hand] || []).push(tr);
    });
    return rows;
  }

  // What changed between the panel the referee saw (before) and the server's (fresh), in the
  // page's words: a dispute resolved, hands undone (the reason from the record), the match
  // ended by the director (a forfeit, T7), or, when the referee had typed, a hand recorded on
  // another device. "" when nothing worth a word.
  function whatChanged(before, fresh, typed) {
    var words = root.dataset;
    var oldLast = Number(before.dataset.lastNumber || 0);
    var newLast = Number(fresh.dataset.lastNumber || 0);
    var next = fresh.dataset.number || "";
    var over = fresh.dataset.status === "finished";
    if (before.dataset.hold === "disputed" && fresh.dataset.hold !== "disputed") {
      // A dispute is always on the last hand; the director's decision is in the panel.
      return fill(next ? words.msgLiveDisputeNext : over ? words.msgLiveDisputeOver : words.msgLiveDispute,
        { number: oldLast, next: next });
    }
    var was = voidRows(before);
    var now = voidRows(fresh);
    var undone = [];
    Object.keys(now).forEach(function (n) {
      if (now[n].length > (was[n] || []).length) undone.push(now[n][0]);
    });
    if (undone.length) {
      undone.sort(function (a, b) { return Number(b.dataset.hand) - Number(a.dataset.hand); });
      return undone.map(function (tr) {
        return fill(tr.dataset.voidBy === "director" ? words.msgLiveUndoneDirector : words.msgLiveUndone,
          { number: tr.dataset.hand, reason: tr.dataset.voidReason });
      }).join(" ");
    }
    if (over && before.dataset.status !== "finished" && fresh.dataset.endReason &&
        fresh.dataset.endReason !== "normal") {
      return fill(words.msgLiveEnded, { reason: fresh.dataset.endLabel || fresh.dataset.endReason });
    }
    // A hand recorded elsewhere, with nothing of the referee's on the form, is shown quietly.
    if (newLast > oldLast && typed) return fill(words.msgLiveRecorded, { number: newLast });
    return "";
  }

  // -- following the match live (static/js/live.js asks) -----------------------------------------

  var started = false; // the page's own first look at the match (startOffline) is done
  var owed = false; // the match changed while this phone was busy: read it once it is not

  function phoneBusy() {
    return !started || busy || !!pending || queueSize > 0 || draining || handLock || formHolds !== null;
  }

  // Read the match again and show it if it changed: resolves with the tournament version the
  // panel was read at (live.js keeps it), or null.
  function catchUp() {
    if (ended) return Promise.resolve(null);
    if (phoneBusy()) { owed = true; return Promise.resolve(null); }
    owed = false;
    return fetchPanel().then(function (fresh) {
      var version = fresh.dataset.tournamentVersion || null;
      syncClock(fresh);
      if (!newer(fresh)) return version;
      // The referee tapped Record meanwhile: its answer brings the match as it is.
      if (phoneBusy()) { owed = true; return version; }
      showFresh(fresh, null, typedNow(false), true);
      return version;
    }, function (err) {
      // The link no longer opens this match (the tournament finished, the link revoked).
      if (err && err.signedOut) linkEnded(null);
      return null; // offline or the server restarting: the next tick or poll asks again
    });
  }

  // The round clock (T2, T3) changes without the match: the director starts it (a tournament
  // update, not a new match version). Copied from every panel read; static/js/clock.js runs it.
  function syncClock(fresh) {
    var p = panel();
    var mine = p && $("#round-clock", p);
    var theirs = fresh.querySelector("#round-clock");
    // Compared with the copy last taken, not the live text (clock.js rewrites it every second).
    if (!mine || !theirs || mine.dataset.copied === theirs.innerHTML) return;
    mine.innerHTML = theirs.innerHTML;
    mine.dataset.copied = theirs.innerHTML;
    if (window.roundClock) window.roundClock.tick();
  }

  function catchUpOwed() {
    if (owed && !phoneBusy()) catchUp();
  }

  document.addEventListener("live:stale", function (ev) {
    if (ev.detail && ev.detail.waitUntil) ev.detail.waitUntil(catchUp());
    else catchUp();
  });

  // The server took the hand but this phone may no longer load the match: say the hand is
  // recorded and that the link has ended; no form is offered any more (the server would
  // refuse it). The hands confirmed are drawn on this phone as recorded, never as unsent.
  function linkEnded(flash) {
    ended = true;
    root.dataset.ended = "1";
    var words = root.dataset.msgEnded || "";
    if (flash) confirmInView(flash + " " + words, null);
    else setStatus("error", words);
    hideWriting();
  }

  function hideWriting() {
    var p = panel();
    if (!ended || !p) return;
    hideEntry(p);
    var undo = $("#undo", p);
    if (undo) undo.hidden = true;
  }

  // No further hand can be entered here (R33: the match is over as drawn on this phone, or
  // the link ended): the form and the way to the move-by-move entry go, as a reload shows.
  function hideEntry(p) {
    ["#hand-form", "#moves-link"].forEach(function (sel) {
      var el = $(sel, p);
      if (el) el.hidden = true;
    });
    syncRecordButton();
  }

  function handleResult(res, kind) {
    busy = false;
    var err = res.data && res.data.error;
    if (res.status >= 200 && res.status < 300) {
      pending = null;
      savePending(null);
      var flash = kind === "void" ? root.dataset.msgVoided
        : root.dataset.msgRecorded.replace("%(number)s", (res.data && res.data.hand && res.data.hand.number) || "");
      return refreshPanel(flash).then(catchUpOwed);
    }
    if (transient(res)) {
      // Unknown outcome: keep the key so a retry can never record the hand twice.
      setStatus("error", root.dataset.msgNetwork);
      showPendingBanner();
      updateSummary();
      return null;
    }
    // A definite answer: the submission was not stored. Its key is spent.
    pending = null;
    savePending(null);
    showPendingBanner();
    if (res.status === 409) {
      // Someone else changed the match (another device, the director): show the truth, say
      // what changed, and keep what the referee entered.
      return refreshPanel(null, false, true, typedNow(true)).then(function (said) {
        if (!said) setStatus("error", "");
        showError(err || { message: root.dataset.msgConflict }, "number", said);
      });
    }
    if (res.status === 401 || res.status === 403) {
      setStatus("error", "");
      showError(err || { message: root.dataset.msgForbidden });
      return null;
    }
    setStatus("", "");
    showError(err || { message: root.dataset.msgFailed + " (" + res.status + ")" }, kind === "void" ? "reason" : null);
    updateSummary();
    return null;
  }

  function submitPending() {
    if (!pending || busy) return;
    busy = true;
    setStatus("working", root.dataset.msgSending);
    var url = pending.kind === "void" ? voidUrl : handsUrl;
    var p = panel();
    $all("button[data-submit]", p).forEach(function (b) { b.disabled = true; });
    sendWithRetry(url, pending.payload, pending.key, 0).then(function (res) {
      $all("button[data-submit]", panel()).forEach(function (b) { b.disabled = false; });
      return handleResult(res, pending ? pending.kind : "hand");
    });
  }

  function submitHand() {
    // A second tap while the hand is on its way, or just after the form was reset for the
    // next hand, is the same tap again: ignored (no second hand, no false error).
    if (ended || tapsHeld()) return;
    var payload = buildPayload();
    var problems = localProblems(payload);
    if (Object.keys(problems).length) {
      var first = problems[Object.keys(problems)[0]][0];
      showError({ message: first, fields: problems });
      return;
    }
    clearErrors();
    if (countsQuestion(payload) && !askedAbout(payload)) {
      askAboutCounts(payload);
      return;
    }
    countsAsked = null;
    handLock = true;
    formTouched = false; // the hand is taken: what the form shows now is the page's
    touched = {};
    // Every hand goes through the ordered queue (IndexedDB): sent at once when online, kept on
    // this phone when not. Its Idempotency-Key is made here, once, and reused on every resend.
    var entry = { match: matchId, key: uuid4(), number: payload.number, payload: payload,
      status: "queued", error: null };
    formHolds = entry.key; // the form still shows this hand until it is sent or queued
    syncRecordButton();
    setStatus("working", root.dataset.msgSending);
    // A refused hand put on the form to fix (resolveRefused) is replaced by the hand recorded
    // from it, in its place in the queue, before the hands that wait behind it.
    queue.all().then(function (entries) {
      var fixing = entries.filter(function (e) {
        return isHand(e) && e.onForm && e.status === "refused" && e.number === entry.number;
      })[0];
      if (!fixing) return queue.add(entry);
      entry.id = fixing.id;
      return queue.put(entry);
    }).then(function () { return showQueue(false); }).then(drain)
      .then(settle, settle);
  }

  // Counts no real block gives (R1) are recorded as the table reports them (section 9), after
  // a second tap: the first one asks, by the button, and the button says "Yes, record hand N".
  // The taps are held for a moment (SETTLE_MS), so a double tap never answers its own question.
  function askAboutCounts(payload) {
    countsAsked = JSON.stringify(payload);
    recordLabel();
    updateSummary();
    settleUntil = Date.now() + SETTLE_MS;
    syncRecordButton();
    if (settleTimer) window.clearTimeout(settleTimer);
    settleTimer = window.setTimeout(function () { settleTimer = null; syncRecordButton(); }, SETTLE_MS + 20);
    var out = $("#confirm-summary", panel());
    if (out) out.scrollIntoView({ block: "nearest" });
  }

  function submitVoid() {
    if (busy || queueSize > 0) return;
    var p = panel();
    var reason = $("#void-reason", p).value.trim();
    if (!reason) {
      showError({ message: p.dataset.msgReason, fields: { reason: [p.dataset.msgReason] } });
      return;
    }
    clearErrors();
    var payload = { number: Number(p.dataset.lastNumber), reason: reason };
    var same = pending && pending.kind === "void" && JSON.stringify(pending.payload) === JSON.stringify(payload);
    if (!same) pending = { kind: "void", key: uuid4(), payload: payload };
    savePending(pending);
    submitPending();
  }

  // -- the offline queue (issue 15) ------------------------------------------------------------
  //
  // Hands wait in an ordered IndexedDB queue, each with its Idempotency-Key and expected hand
  // number, until the server confirms them; they survive a reload and a closed browser. Its
  // database, its entries and their states (queued, sent, confirmed, refused) are defined once,
  // in static/js/referee-queue.js (window.refereeQueue), which "My matches" reads too. A
  // refused hand stops the queue there; the hands after it stay queued until the referee
  // resolves it (re-number or discard).

  var queue = (function () {
    var shared = window.refereeQueue;
    var dbPromise = null;
    function db() {
      // Rejected, as when IndexedDB itself fails, if referee-queue.js did not load.
      if (!dbPromise) dbPromise = new Promise(function (resolve) { resolve(shared.open()); });
      return dbPromise;
    }
    function tx(mode, work) {
      return db().then(function (d) {
        return new Promise(function (resolve, reject) {
          var t = d.transaction(shared.store, mode);
          var result = work(t.objectStore(shared.store));
          t.oncomplete = function () { resolve(result && "result" in result ? result.result : undefined); };
          t.onerror = function () { reject(t.error); };
        });
      });
    }
    return {
      all: function () {
        return tx("readonly", function (store) { return store.index(shared.byMatch).getAll(matchId); })
          .then(function (rows) { return (rows || []).sort(function (a, b) { return a.id - b.id; }); });
      },
      add: function (entry) { return tx("readwrite", function (store) { return store.add(entry); }); },
      put: function (entry) { return tx("readwrite", function (store) { return store.put(entry); }); },
      remove: function (id) { return tx("readwrite", function (store) { return store.delete(id); }); }
    };
  })();
  var queueSize = 0;
  var queueReady = false;
  var draining = false;
  var formHolds = null; // key of the hand the form still shows (just submitted)
  var lastConfirmed = null;
  var retryTimer = null;
  var reducer = null; // the JS match reducer (static/js/match-reducer.js), loaded on start

  function snapshot() {
    try { return JSON.parse(panel().dataset.offlinePreview || "null"); } catch (e) { return null; }
  }

  // A hand's payload (the form's, or a queued one) as the JS reducer's record.
  function reducerRecord(p) {
    return { poser: p.poser, pose_tile: p.pose_tile, end: p.end,
      winner: p.winner === undefined ? null : p.winner,
      counts: p.counts || null, llave: !!p.llave, sporting: false };
  }

  // The hands not yet in the panel's state, folded with the JS reducer from the panel's engine
  // snapshot: what the table plays next while the server has not confirmed them.
  function preview(entries) {
    var snap = snapshot();
    if (!reducer || !snap || !snap.state) return null;
    try {
      var state = snap.state;
      var folded = 0;
      previewScored = null;
      previewRecorded = true;
      entries = entries.filter(isHand);
      for (var i = 0; i < entries.length; i++) {
        var e = entries[i];
        // A hand the server refused stops the preview, even one numbered within the snapshot
        // (another device recorded that hand): what is queued after it was built on it.
        if (e.status === "refused") break;
        if (e.number <= state.hands) continue; // already in the snapshot
        if (e.number !== state.hands + 1) break;
        var p = e.payload;
        var step = reducer.matchApply(snap.ruleset, state, reducerRecord(p));
        state = step.state;
        previewScored = step.scored;
        if (e.status !== "confirmed") previewRecorded = false;
        folded++;
        // T3: at a table kept for a sudden-death hand the first hand won ends the match, its
        // winner wins it, as scoring.services records it (the engine alone would play on).
        if (snap.sudden_death && !state.over && step.scored.winner !== null && step.scored.winner !== undefined) {
          state = Object.assign({}, state, { over: true, winner: step.scored.winner, suddenDeath: true });
          break;
        }
      }
      previewState = folded ? state : null;
      return previewState;
    } catch (err) {
      previewState = null;
      return null; // a ruleset the reducer refuses: the server's word only
    }
  }

  // -- the panel drawn from the reducer while hands wait on this phone (issue 15) --------------
  //
  // The server's panel shows the last state it stored. While hands wait in the queue, the
  // panel is drawn from the JS reducer folded over that state and the queued hands: hand
  // number, who poses (the "poses" badge and the form's default), the forced pose, the value,
  // the scores and the replay/play-off notes, worded as scoring/presenters/match.py
  // describe_next_hand words them, and marked "not yet sent". The server's panel as rendered
  // (pristine) comes back when the queue drains or stops.

  var pristine = null;
  var previewScored = null; // the reducer's scored line of the last queued hand
  var previewState = null; // the state after the queued hands, as the panel draws it
  var previewRecorded = false; // every hand folded is confirmed: recorded, only not shown yet

  // The name of a partnership as the server writes it, "AC · Ana & Carla" (R42).
  function sideName(k) {
    var p = panel();
    return (p && p.getAttribute("data-team-" + (Number(k) % 2))) || ["AC", "BD"][Number(k) % 2];
  }
  function isPartners() {
    var p = panel();
    return !!(p && p.dataset.partners === "1");
  }

  // explain_hand (scoring/presenters/match.py) for a reset, from the reducer's notes: the
  // server shows it above the next hand while the last hand is a reset. At a partnership
  // table the partnerships are named and reset (R42, R44).
  function explainReset(scored, words) {
    var text = resetWords(scored, words);
    return text ? fill(words.eEvent, { n: scored.number, text: text }) : "";
  }

  // The reset a hand causes, in explain_hand's words (R31a, R31d, R32), or "".
  function resetWords(scored, words) {
    if (!scored || !scored.reset) return "";
    var notes = (scored.notes || []).join(" ");
    var partners = isPartners();
    var other = "";
    var winner;
    if (partners) {
      var s = /\b(?:leader )?(AC|BD)\b (?:lost the replay|had points)/.exec(notes);
      other = s ? sideName(["AC", "BD"].indexOf(s[1])) : "";
      winner = scored.winner === null || scored.winner === undefined ? "—" : sideName(scored.winner);
    } else {
      var m = /\b(?:leader )?([A-H])\b (?:lost the replay|had points)/.exec(notes);
      other = m ? seatName("ABCDEFGH".indexOf(m[1])) : "";
      winner = scored.winner === null || scored.winner === undefined ? "—" : seatName(scored.winner);
    }
    var text = notes.indexOf("R31a") !== -1
      ? fill((partners && words.eResetLeaderPartners) || words.eResetLeader,
        { leader: other || words.eTheLeader, winner: winner })
      : notes.indexOf("R32") !== -1
        ? fill((partners && words.eResetChallengerPartners) || words.eResetChallenger,
          { winner: winner, holder: other || words.eAnother })
        : (partners && words.eResetAllPartners) || words.eResetAll;
    if (notes.indexOf("play-off next") !== -1) text += " " + words.ePlayoff;
    return text;
  }

  // What the hand on the form does to the scores when it resets them (R31a: the leader of a
  // tie run loses the replay; R31d, R32), from the JS reducer applied to the match as this
  // phone shows it (the server's state, or the queued hands' preview): said in the summary
  // by the Record button before the referee records it. "" when it resets nothing, or when
  // the reducer cannot tell (not loaded, a hand it refuses: the server's checks decide).
  function resetOnRecord(payload) {
    var snap = snapshot();
    var p = panel();
    var section = p && $("#next-hand", p);
    if (!reducer || !snap || !snap.state || !section) return "";
    var state = p.dataset.unsent === "1" && previewState ? previewState : snap.state;
    if (payload.number !== state.hands + 1) return "";
    try {
      var step = reducer.matchApply(snap.ruleset, state, reducerRecord(payload));
      return resetWords(step.scored, section.dataset);
    } catch (err) {
      return "";
    }
  }

  // replay_stakes (scoring/presenters/ruleset_words.py): what winning the replay does under this
  // ruleset. R31a resets only under replay_leader_loss = reset, not under R32 (the engine's
  // decision 5), and only when the tie run has a leader (R28); otherwise the replay is scored
  // like any decided hand: R30 (straight_six), R31b (six_love, all_scored) or R32.
  function replayStakes(ruleset, leader, partners, words) {
    var straight = ruleset.scoring === "straight_six";
    var anyChallenger = ruleset.scoring === "six_love" && ruleset.reset_rule === "any_challenger";
    var resets = ruleset.scoring !== "pips" && ruleset.replay_leader_loss === "reset" && !anyChallenger;
    var rules;
    if (leader !== null && resets) {
      rules = (straight ? "R30, R31a" : "R31a") + (partners ? ", R44" : "");
      return fill((partners ? words.xStakesResetPartners : words.xStakesReset) || "",
        { leader: leader, rules: rules });
    }
    rules = straight ? "R30" : anyChallenger ? "R32" : "R31b";
    if (partners) rules += ", R44";
    if (leader === null && resets) rules = "R28, " + rules;
    if (leader !== null && !anyChallenger) {
      return fill(words.xStakesAward || "", { leader: leader, rules: rules });
    }
    return fill(words.xStakesPlain || "", { rules: rules });
  }

  // describe_next_hand (scoring/presenters/match.py), same rules, same translated words;
  // ruleset: the match's frozen ruleset (the offline snapshot's). A page cached before these
  // words existed (the service worker keeps pages and scripts apart) lacks some data-*
  // attributes: it falls back to the older words instead of failing.
  function describeNext(nh, words, ruleset) {
    ruleset = ruleset || {};
    var number = nh.number;
    var value = nh.value;
    var forced = !!nh.forced || nh.poser === null || nh.poser === undefined;
    var rule = nh.rule || "";
    var pips = ruleset.scoring === "pips";
    var title;
    var kind = "normal";
    if (nh.is_playoff && nh.is_replay) { title = words.tPlayoffReplay; kind = "playoff"; }
    else if (nh.is_playoff) { title = words.tPlayoff; kind = "playoff"; }
    else if (nh.is_replay && pips) { // a pip-scored hand has no value (R40)
      title = words.tReplayPips || words.tReplay;
      kind = "replay";
    }
    else if (nh.is_replay) { title = words.tReplay; kind = "replay"; }
    else if (value > 1) title = words.tWorth;
    else title = words.tHand;
    var description;
    var tile = nh.forced_tile || "6-6";
    if (forced) {
      description = fill(words.dForced, { tile: tile });
      rule = rule === "" || rule === "R6" ? "R5" : rule + ", R5";
    } else {
      var name = seatName(nh.poser);
      var d = rule === "R10" && nh.leader !== null && nh.leader === nh.poser ? words.dLeads
        : rule === "R7" ? words.dWonLast
          : rule === "R8" ? words.dWonReset
            : rule === "R6" && number === 1 ? words.dDraw
              : rule === "R6" ? words.dRotates : words.dAny;
      description = fill(d, { name: name });
    }
    var explanation = "";
    if (kind === "playoff") {
      explanation = fill(nh.is_replay ? words.xPlayoffReplay : words.xPlayoff, { v: value });
    } else if (kind === "replay" && pips) {
      explanation = words.xReplayPips || "";
    } else if (kind === "replay") {
      // The tie run's leader (R28): a seat, or under partnerships a partnership (R42).
      var partners = isPartners();
      var leader = nh.leader === null || nh.leader === undefined ? null
        : partners ? sideName(nh.leader) : seatName(nh.leader);
      // At a sudden-death table (T3) the replay's winner wins the match (describe_next_hand):
      // the panel says so only there (data-x-stakes-sudden).
      var stakes = words.xStakesSudden || replayStakes(ruleset, leader, partners, words);
      explanation = fill(words.xReplay, { v: value }) + (stakes ? " " + stakes : "");
    }
    return { title: fill(title, { n: number, v: value }), description: description, rule: rule,
      kind: kind, poser: forced ? null : nh.poser, forced: forced, forcedTile: forced ? tile : null,
      explanation: explanation };
  }

  function badge(cls, label, title) {
    var span = document.createElement("span");
    span.className = cls;
    span.textContent = label;
    if (title) span.title = title;
    return span;
  }

  function drawUnsent(p, state) {
    var section = $("#next-hand", p);
    var board = $(".scoreboard", p);
    if (!section || !board) return; // the server's match is over: nothing to draw on
    var nh = describeNext(state.next, section.dataset, (snapshot() || {}).ruleset);
    var over = !!state.over;
    var pips = p.dataset.countsOnDomino === "1";
    var leader = over ? null : state.leader;
    p.dataset.unsent = "1";
    p.classList.add("is-unsent");
    // The scoreboard: scores, "poses", "leader" and love as the server draws them (SeatView).
    // At a partnership table the tie run is led by a partnership (R42): both partners.
    var sideTable = $all(".partnerships [data-side]", p).length > 0;
    // The seats that won the match over: both partners at a partnership table (R42, T4).
    var won = function (seat) {
      if (!over || state.winner === null || state.winner === undefined) return false;
      return sideTable ? seat % 2 === state.winner % 2 : seat === state.winner;
    };
    $all("li[data-seat-name]", board).forEach(function (li) {
      var seat = Number(li.dataset.seatName);
      var score = state.scores[seat];
      var out = $(".score", li);
      if (out) {
        out.textContent = score;
        out.setAttribute("aria-label", (out.getAttribute("aria-label") || "").replace(/-?\d+/, score));
      }
      $all(".badge.poser, .badge.leader, .badge.winner, .love-tag", li).forEach(function (el) { el.remove(); });
      // Section 0: a score of 0; the winner of a match over is never on love (a sudden-death
      // hand, T3, may end it on 0-0-0-0 after a reset, R31a), as SeatView.on_love.
      var love = score === 0 && !pips && !won(seat);
      li.classList.toggle("is-love", love);
      li.classList.toggle("is-winner", won(seat));
      if (leader !== null && leader !== undefined && leader === (sideTable ? seat % 2 : seat)) {
        li.insertBefore(badge("badge leader", board.dataset.badgeLeader, board.dataset.titleLeader), out);
      }
      if (!over && nh.poser === seat) li.insertBefore(badge("badge poser", board.dataset.badgePoses), out);
      if (won(seat) && board.dataset.badgeWinner) li.insertBefore(badge("badge winner", board.dataset.badgeWinner), out);
      if (love) li.insertBefore(badge("love-tag", board.dataset.badgeLove, board.dataset.titleLove), out);
    });
    $all(".partnerships [data-side]", p).forEach(function (li) {
      var out = $(".score", li);
      if (out) out.textContent = state.scores[Number(li.dataset.side)];
    });
    // The next hand: title, who poses and why, the forced pose, replay/play-off notes.
    section.className = "next-hand " + nh.kind;
    // The server's last event is not the last hand now: the reset of the queued hands, if any.
    var lastEvent = $("#last-event", section);
    // A match over resets only by a sudden-death hand (T3, R31a): said too, as the result card.
    var event = explainReset(previewScored, section.dataset);
    if (!lastEvent && event) {
      lastEvent = document.createElement("p");
      lastEvent.className = "last-event";
      lastEvent.id = "last-event";
      section.insertBefore(lastEvent, section.firstChild);
    }
    if (lastEvent) {
      lastEvent.textContent = event;
      lastEvent.hidden = !event;
    }
    var note = $("#unsent-note", section);
    // The server has every hand drawn here (its panel could not be loaded): never "unsent".
    note.textContent = previewRecorded ? (section.dataset.recorded || "") : section.dataset.unsent;
    note.hidden = !note.textContent;
    var h2 = $("h2", section);
    var desc = h2.nextElementSibling;
    $all(".explanation, #forced-note", section).forEach(function (el) { el.remove(); });
    if (over) {
      var sidePanel = panel();
      var side = sidePanel && sidePanel.dataset.partners && state.winner !== null && state.winner !== undefined
        ? sidePanel.getAttribute("data-team-" + (state.winner % 2)) : "";
      // R42: a partnership match is won by the partnership, not by the seat of its last hand.
      h2.textContent = side
        ? fill(section.dataset.overSide, { side: side })
        : fill(section.dataset.over, { name: seatName(state.winner) });
      // T3: MatchView.sudden_death_won, the words of the result card.
      desc.textContent = state.suddenDeath && section.dataset.overSudden
        ? fill(section.dataset.overSudden, { name: side || seatName(state.winner) }) : "";
    } else {
      h2.textContent = nh.title;
      desc.textContent = nh.description + " ";
      var rule = document.createElement("span");
      rule.className = "rule";
      rule.textContent = "(" + nh.rule + ")";
      desc.appendChild(rule);
      if (nh.explanation) {
        var x = document.createElement("p");
        x.className = "explanation";
        x.textContent = nh.explanation;
        section.appendChild(x);
      }
      if (nh.forced) {
        var hint = document.createElement("p");
        hint.className = "hint";
        hint.id = "forced-note";
        hint.textContent = fill(section.dataset.forcedNote, { tile: nh.forcedTile });
        section.appendChild(hint);
      }
    }
    // What error messages and the form name: the poser, the forced tile, the hand number.
    p.dataset.poserLabel = nh.poser === null ? "" : seatName(nh.poser);
    p.dataset.forcedTile = nh.forcedTile || "6-6";
    if (over) { hideEntry(p); return; } // no further hands (R33): the server decides
    if (!$("#hand-form", p)) return;
    var button = $("#confirm-hand", p);
    if (button && button.dataset.label) button.textContent = fill(button.dataset.label, { n: state.next.number });
    var mark = $("#forced-mark", p);
    if (mark) mark.hidden = !nh.forced;
    $all('input[name="poser"]', p).forEach(function (radio) {
      radio.closest("label").classList.toggle("suggested", nh.poser !== null && Number(radio.value) === nh.poser);
    });
    var group = $('fieldset[data-field="poser"]', p);
    if (group) {
      group.dataset.mustPose = nh.poser === null ? "" : String(nh.poser);
      group.dataset.poseRule = nh.poser === null ? "" : nh.rule;
    }
  }

  // The form's defaults for the next hand: who poses (none when forced) and the pose tile.
  function presetForm(p, next) {
    var nh = describeNext(next, ($("#next-hand", p) || p).dataset);
    $all('input[name="poser"]', p).forEach(function (radio) {
      radio.checked = nh.poser !== null && Number(radio.value) === nh.poser;
      radio.defaultChecked = radio.checked;
    });
    var select = $("#pose-tile", p);
    if (!select) return;
    tileChoices(select, nh.forced ? nh.forcedTile : null);
  }

  // The pose tile's choices: under a forced pose (R5) only the tiles R5 allows, the forced
  // tile chosen (6-6 alone when every tile is dealt), as the server renders them; otherwise
  // every tile in play after "choose the tile posed". The server checks the record anyway.
  function tileChoices(select, forcedTile) {
    var words = function (v) { return (v || "").split(" ").filter(Boolean); };
    var all = words(select.dataset.tiles);
    var allowed = words(select.dataset.forcedTiles);
    var lock = !!forcedTile && allowed.length > 0;
    var values = lock ? allowed : all;
    if (!values.length) return; // an older panel without the lists: leave it as it is
    select.textContent = "";
    if (!lock) {
      var blank = document.createElement("option");
      blank.value = "";
      blank.textContent = select.dataset.choose || "—";
      select.appendChild(blank);
    }
    values.forEach(function (t) {
      var o = document.createElement("option");
      o.value = t;
      o.textContent = t;
      select.appendChild(o);
    });
    select.value = lock ? (allowed.indexOf(forcedTile) !== -1 ? forcedTile : allowed[0]) : "";
    if (lock) select.dataset.locked = "1";
    else delete select.dataset.locked;
    $all("option", select).forEach(function (o) { o.defaultSelected = o.value === select.value; });
  }

  function stateLabel(status) {
    return root.dataset["state" + status.charAt(0).toUpperCase() + status.slice(1)] || status;
  }

  // Hands this phone recorded that the panel no longer has (undone since, by the director
  // or another device, while the phone was closed or busy): said as a live undo is, with
  // the reason from the record.
  function sayUndone(p, entries) {
    if (!entries.length) return;
    var rows = voidRows(p);
    var words = entries.map(function (e) {
      var tr = (rows[e.number] || [])[0];
      if (!tr) return "";
      return fill(tr.dataset.voidBy === "director" ? root.dataset.msgLiveUndoneDirector
        : root.dataset.msgLiveUndone, { number: tr.dataset.hand, reason: tr.dataset.voidReason });
    }).filter(Boolean).join(" ");
    if (words) setStatus("notice", words);
  }

  // Show the queue; with advance, prepare the form for the next hand (offline preview).
  function showQueue(advance) {
    return queue.all().then(function (entries) {
      queueReady = true;
      var p = panel();
      var snap = snapshot();
      var base = Math.max(snap && snap.state ? snap.state.hands : Number(p.dataset.number || 1) - 1,
        Number(p.dataset.lastNumber || 0));
      // Confirmed hands that the panel already shows are done: numbered within it, or
      // answered at a match version the panel has reached (a hand the director undid since
      // is not in the panel any more, and must not be drawn on top of it).
      var shown = Number(p.dataset.version || 0);
      var stale = entries.filter(function (e) {
        return e.status === "confirmed" && (e.number <= base || (!!e.version && shown >= e.version));
      });
      entries = entries.filter(function (e) { return stale.indexOf(e) === -1; });
      stale.forEach(function (e) { queue.remove(e.id); });
      sayUndone(p, stale.filter(function (e) { return isHand(e) && e.number > base; }));
      queueSize = entries.filter(function (e) { return e.status !== "confirmed"; }).length;
      syncUndo(false);
      var box = $("#offline-queue");
      if (!box) return entries;
      box.hidden = entries.length === 0;
      var list = $("#queue-list", box);
      list.textContent = "";
      entries.forEach(function (e) {
        var li = document.createElement("li");
        li.className = "queue-" + e.status;
        li.dataset.number = e.number;
        li.dataset.status = e.status;
        li.dataset.kind = e.kind || "hand";
        var handWordsQueued = isHand(e) ? queuedHandWords(e.payload) : "";
        li.textContent = isHand(e) ? "#" + e.number + " — " + (handWordsQueued ? handWordsQueued + " — " : "") +
          stateLabel(e.onForm ? "form" : e.status)
          : fill(e.kind === "dispute" ? root.dataset.msgQueueDispute : root.dataset.msgQueueTap,
            { seat: seatName(e.payload.seat), number: e.number }) + " — " + stateLabel(e.status);
        // Another device's hand under this number is named below the list (#queue-problem),
        // not the 409's general words; a hand on the form has its poser flagged there.
        if (e.error && !e.onForm && !(isHand(e) && e.status === "refused" && serverHand(e.number))) {
          var why = document.createElement("span");
          why.className = "queue-error";
          why.textContent = " " + (refusalText(e.error) || "") + (e.error.rule ? " (" + e.error.rule + ")" : "");
          li.appendChild(why);
        }
        list.appendChild(li);
      });
      var refused = entries.filter(function (e) { return e.status === "refused"; })[0];
      $("#queue-resolve", box).hidden = !refused;
      var renumber = $("#queue-renumber", box);
      var discard = $("#queue-discard", box);
      if (discard && !discard.dataset.hand) discard.dataset.hand = discard.textContent;
      if (refused) {
        // A refused tap or dispute (a wrong PIN...) is only discarded: the player taps again.
        if (discard) {
          discard.textContent = isHand(refused) ? discard.dataset.hand
            : (root.dataset.msgDiscardTap || discard.dataset.hand);
        }
        // Another device's hand under this number: name it next to this phone's, so the
        // referee tells whether it is the same hand (discard) or one played after it.
        var theirs = isHand(refused) && !refused.onForm ? serverHand(refused.number) : "";
        var server = pristine || p;
        var held = !!(server && server.dataset.hold);
        // A hand on the form: the status line said what was done; here, what is to fix.
        var problem = refused.onForm
          ? "#" + refused.number + ": " + (refused.error ? refused.error.message : "")
          : theirs ? fill(held ? root.dataset.msgRefusedHold : root.dataset.msgRefusedOther,
            { number: refused.number, theirs: theirs.replace(/\.$/, ""),
              ours: queuedHandWords(refused.payload).replace(/\.$/, "") })
            : "#" + refused.number + ": " + ((refused.error && refusalText(refused.error)) || root.dataset.msgConflict);
        if (refused.dropped && refused.dropped.seats.length) {
          problem += " " + fill(root.dataset.msgTapsDropped, { number: refused.dropped.number,
            names: joinNames(refused.dropped.seats.map(seatName)) });
        }
        $("#queue-problem", box).textContent = problem;
        // Offered only when it can be taken: not while the server holds its hand for the
        // players' confirmation (issue 15), nor for a hand already on the form.
        if (renumber) renumber.hidden = !isHand(refused) || !!refused.onForm || held;
      }
      // The next hand's number and what the table does next, from the queue (hands only).
      var handEntries = entries.filter(isHand);
      var open = entries.filter(window.refereeQueue.waiting); // as "My matches" counts them
      var last = handEntries.length ? handEntries[handEntries.length - 1] : null;
      var state = preview(entries);
      var next = $("#offline-next", box);
      if (state && !state.over && open.length && !refused) {
        var poser = state.next.poser === null ? root.dataset.msgForced : seatName(state.next.poser);
        // Back online the hands are being sent, not waiting for a connection: say so.
        var words = navigator.onLine === false ? root.dataset.msgOfflineNext
          : (root.dataset.msgUnsentNext || root.dataset.msgOfflineNext);
        next.textContent = fill(words, {
          number: state.next.number, poser: poser, value: state.next.value,
          scores: state.scores.map(function (sc, i) { return seatName(i) + " " + sc; }).join(", ")
        });
      } else {
        next.textContent = "";
      }
      tableConfirm(entries, state);
      if (refused && refused.onForm) putOnForm(refused);
      // While the form still shows the hand just submitted, the panel waits for its answer.
      if (formHolds === null) {
        if (state) drawUnsent(p, state);
        else if (p.dataset.unsent === "1" && pristine) {
          // The queue drained or stopped: the server's panel takes over again.
          var fresh = pristine.cloneNode(true);
          p.replaceWith(fresh);
          initPanel();
          return entries;
        }
      }
      if (open.length && last && !refused && formHolds === null) {
        var number = state ? state.next.number : last.number + 1;
        p.dataset.number = String(number);
        root.dataset.number = p.dataset.number;
        if (advance && $("#hand-form", p)) {
          $("#hand-form", p).reset();
          if (state) presetForm(p, state.next);
          else if ($("#pose-tile", p)) tileChoices($("#pose-tile", p), null); // not known: any tile
          updateEnd();
        }
      }
      return entries;
    });
  }

  // -- confirmation at the table (issue 15) ------------------------------------------------------
  //
  // Under the tournament's confirmation setting each seated player taps their name on this
  // phone after a hand is recorded (PIN first if they have one), or disputes it. Taps and
  // disputes are queue entries like the hands, after the hand they confirm, so they are sent
  // in order and survive a reload or a closed browser too.

  function isHand(e) { return window.refereeQueue.isHand(e); }
  // The order entries are sent in: a hand, then the taps and disputes of that hand, then the
  // next hand. A player who taps again after a refusal is sent before a hand queued meanwhile.
  function byTurn(a, b) {
    return (a.number - b.number) || ((isHand(a) ? 0 : 1) - (isHand(b) ? 0 : 1)) || (a.id - b.id);
  }
  var tapHeldFor = null; // the hand a refused tap was for: later hands wait for the player

  // Why a player's tap or dispute was refused, worded by the page (data-msg-* of the block),
  // naming the player; shown by the names (a tap) or in the dispute form (a dispute).
  function tapRefused(e, err) {
    var box = confirmBox();
    if (!box) return;
    var seat = seatName(e.payload.seat);
    var dispute = e.kind === "dispute";
    var words = {
      bad_pin: dispute ? box.dataset.msgDisputeBadPin : box.dataset.msgBadPin,
      pin_required: dispute ? box.dataset.msgDisputePinRequired : box.dataset.msgPinRequired,
      pin_locked: box.dataset.msgPinLocked
    }[err.code];
    var message = words ? fill(words, { seat: seat })
      : (localise(err).message || err.message || root.dataset.msgFailed) +
        (err.rule ? " (" + err.rule + ")" : "");
    var slot = $(dispute ? "#dispute-error" : "#confirm-error", box);
    if (err.code === "hand_changed") refreshPanel(); // show the hand as it stands now
    if (!slot) return;
    slot.textContent = message;
    slot.hidden = false;
    slot.dataset.seat = String(e.payload.seat);
    if (dispute) {
      $("#dispute", box).open = true; // the player's version is still in the form
      var pin = $("#dispute-pin", box);
      if (pin && err.code !== "pin_locked") pin.focus();
    }
  }
  function entryUrl(e) {
    if (e.kind === "confirm") return confirmUrl;
    if (e.kind === "dispute") return disputeUrl;
    return handsUrl;
  }
  // The block is outside the panel (it survives panel refreshes); the panel carries its data.
  function confirmBox() { return document.getElementById("table-confirm"); }
  function confirmData() { return $("#table-confirm-data", panel()); }

  // What the table waits for: {number, tapped, disputed, result} or null.
  function awaiting(entries, state) {
    var box = confirmData();
    if (!box || !confirmBox()) return null;
    var mode = box.dataset.mode;
    var hands = entries.filter(function (e) { return isHand(e) && e.status !== "refused"; });
    var lastHand = hands.length ? hands[hands.length - 1] : null;
    var number;
    var tapped = {};
    var disputed = false;
    var result = false;
    if (lastHand && lastHand.number > Number(box.dataset.number || 0) && tapHeldFor === null) {
      number = lastHand.number; // a hand the server has not stored yet (offline)
      result = !!(state && state.over);
      if (mode === "match_end" && !result) return null;
    } else if (box.dataset.hold) {
      number = Number(box.dataset.number);
      disputed = box.dataset.hold === "disputed";
      // Under "match_end" only the hand that ends the match waits, so a disputed hold there is
      // the match's result (the heading says so, not "confirm hand N").
      // Under "every_hand" a dispute of the hand that ended the match is the match's result
      // too: the server then holds its final (data-final), as under "match_end".
      result = box.dataset.hold === "result" ||
        (disputed && (mode === "match_end" || !!(state && state.over) || heldFinal(number)));
      JSON.parse(box.dataset.confirmedSeats || "[]").forEach(function (seat) { tapped[seat] = true; });
    } else {
      return null;
    }
    // A tap is pending until the server takes it (queued on the phone, or on its way): it
    // counts for the next hand offline, but the name is not shown as confirmed yet.
    var pendingTaps = {};
    var inFlight = false;
    entries.forEach(function (e) {
      if (e.number !== number || e.status === "refused") return;
      if (e.kind === "confirm" && e.status !== "confirmed" && !tapped[e.payload.seat]) {
        pendingTaps[e.payload.seat] = true;
        if (e.status === "sent") inFlight = true;
      } else if (e.kind === "confirm") tapped[e.payload.seat] = true;
      if (e.kind === "dispute") disputed = true;
    });
    var count = Object.keys(tapped).length + Object.keys(pendingTaps).length;
    if (!disputed && !inFlight && count >= Number(box.dataset.seats)) return null;
    return { number: number, tapped: tapped, pending: pendingTaps, disputed: disputed,
      result: result, mode: mode };
  }

  // Undo is offered only while nothing waits on this phone (README "Conflicts and refusals"):
  // the last hand the server has is not the last hand of the table while one is queued, and
  // the server would refuse it (submitVoid ignores the tap). Hidden, not merely inert.
  function syncUndo(disputed) {
    var undo = $("#undo", panel());
    if (undo) undo.hidden = ended || queueSize > 0 || disputed;
  }

  function tableConfirm(entries, state) {
    var box = confirmBox();
    if (!box) return;
    var wait = awaiting(entries, state);
    if (!confirmData()) wait = null; // the match no longer waits for anyone (finished, void)
    var form = $("#hand-form", panel());
    syncUndo(!!(wait && wait.disputed)); // a dispute freezes the match
    box.hidden = !wait;
    if (form) form.hidden = ended || !!(wait && (wait.disputed || wait.mode === "every_hand" || wait.result));
    if (!wait) return;
    box.dataset.waitNumber = String(wait.number);
    // Frozen by a dispute, nobody taps: the heading says the hand is disputed.
    var title = wait.disputed
      ? (wait.result ? box.dataset.msgResultDisputed : box.dataset.msgTitleDisputed)
      : (wait.result ? box.dataset.msgResult : box.dataset.msgTitle);
    $("#table-confirm-title", box).textContent = fill(
      title || (wait.result ? box.dataset.msgResult : box.dataset.msgTitle), { number: wait.number });
    // What the players confirm, in words and (a block) with every count: they confirm the
    // hand, not a number.
    var shown = $("#table-confirm-result", box);
    if (shown) {
      var hand = recordedVersion(entries, wait.number);
      var text = handWords(hand);
      if (text && hand.counts && hand.counts.every(function (c) { return typeof c === "number"; })) {
        text += " " + fill(box.dataset.msgCounts, { counts: hand.counts.map(function (c, i) {
          return "ABCD".charAt(i) + " " + c;
        }).join(" · ") });
      }
      shown.textContent = text;
      shown.hidden = !text;
    }
    var finalBox = $("#table-confirm-final", box);
    if (finalBox) drawFinal(finalBox, wait.result ? heldResult(state, wait.number) : null);
    $all("[data-confirm-seat]", box).forEach(function (b) {
      var done = !!wait.tapped[b.dataset.confirmSeat];
      var waiting = !done && !!wait.pending[b.dataset.confirmSeat];
      b.setAttribute("aria-pressed", done ? "true" : "false");
      b.classList.toggle("is-confirmed", done);
      b.classList.toggle("is-pending", waiting);
      if (waiting) b.setAttribute("aria-busy", "true");
      else b.removeAttribute("aria-busy");
      b.disabled = done || waiting || wait.disputed;
    });
    var refusal = $("#confirm-error", box);
    if (refusal && (wait.disputed || box.dataset.waitNumber !== refusal.dataset.number)) {
      // A refusal belongs to its hand: gone once the table moved on or froze.
      if (refusal.dataset.number) { refusal.hidden = true; refusal.textContent = ""; }
      refusal.dataset.number = box.dataset.waitNumber;
    }
    var frozen = $("#table-frozen", box);
    frozen.hidden = !wait.disputed;
    frozen.textContent = wait.disputed ? fill(box.dataset.msgFrozen, { number: wait.number }) : "";
    $("#dispute", box).hidden = wait.disputed;
    $("#confirm-pin", box).closest(".field").hidden = wait.disputed;
    $("#table-confirm-hint", box).hidden = wait.disputed;
    // Prefilled once per recorded version: what a player typed is never overwritten.
    var version = wait.number + ":" + JSON.stringify(recordedVersion(entries, wait.number));
    if (!wait.disputed && !$("#dispute", box).open && box.dataset.prefilled !== version) {
      prefillDispute(entries, wait.number);
      box.dataset.prefilled = version;
    }
    disputeEnd();
  }

  // The result the players confirm at the end of the match: the server's while it holds it
  // (#table-confirm-data data-final: scores, placings T4, winner, six-loves R31c), or drawn
  // from the reducer's state while the hand that ended the match still waits on this phone
  // (no placings then: the server places the players when it has the hand).
  // The result the server holds for hand ``number`` (the hand that ended the match), or null.
  function heldFinal(number) {
    var data = confirmData();
    var server = null;
    try { server = data && data.dataset.final ? JSON.parse(data.dataset.final) : null; } catch (e) { server = null; }
    return server && Number(server.number) === Number(number) ? server : null;
  }

  function heldResult(state, number) {
    var server = heldFinal(number);
    if (server) return server;
    if (!state || !state.over) return null;
    var six = [];
    (state.stats || []).forEach(function (row, seat) { if (row && row[9] > 0) six.push(seat); }); // six_love_received
    return { number: number, scores: state.scores, winner: state.winner, placings: null, six_love: six };
  }

  function cell(tag, text) {
    var el = document.createElement(tag);
    el.textContent = text;
    return el;
  }

  // Every seat's final score in placing order (at a partnership table each partnership's, R42),
  // the winner and the six-love line, in the block's words (data-msg-*).
  function drawFinal(el, result) {
    el.textContent = "";
    el.hidden = !result;
    if (!result) return;
    var words = confirmBox().dataset;
    var places = [];
    try { places = JSON.parse(words.placings || "[]"); } catch (e) { places = []; }
    var partners = isPartners();
    var winner = result.winner;
    if (winner !== null && winner !== undefined) {
      var title = document.createElement("p");
      title.className = "final-winner";
      title.appendChild(cell("strong", partners
        ? fill(words.msgFinalWinnerSide, { side: sideName(winner) })
        : fill(words.msgFinalWinner, { name: seatName(winner) })));
      el.appendChild(title);
    }
    var placings = result.placings || null;
    var rows = (partners ? [0, 1] : result.scores.map(function (sc, seat) { return seat; }));
    if (placings) rows.sort(function (a, b) { return (placings[a] - placings[b]) || (a - b); });
    var table = document.createElement("table");
    table.className = "final-scores";
    table.appendChild(cell("caption", words.msgFinalCaption));
    var head = document.createElement("tr");
    if (placings) head.appendChild(cell("th", words.msgPlace));
    head.appendChild(cell("th", partners ? words.msgPartnership : words.msgPlayer));
    head.appendChild(cell("th", words.msgScore));
    $all("th", head).forEach(function (th) { th.scope = "col"; });
    var thead = document.createElement("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var body = document.createElement("tbody");
    rows.forEach(function (k) {
      var tr = document.createElement("tr");
      if (k === winner || (partners && winner !== null && winner !== undefined && k === winner % 2)) {
        tr.className = "is-winner";
      }
      if (placings) tr.appendChild(cell("td", places[placings[k] - 1] || String(placings[k])));
      var who = cell("th", partners ? sideName(k) : seatName(k));
      who.scope = "row";
      tr.appendChild(who);
      var score = cell("td", String(result.scores[k]));
      score.className = "num";
      tr.appendChild(score);
      body.appendChild(tr);
    });
    table.appendChild(body);
    el.appendChild(table);
    var six = result.six_love || [];
    if (six.length) {
      var love = document.createElement("p");
      love.className = "final-six-love";
      love.textContent = fill(words.msgSixLove, { names: six.map(seatName).join(", ") });
      el.appendChild(love);
    }
  }

  // The dispute form starts from the recorded version (the player changes what they dispute).
  // The dispute form shows the fields of the end chosen: who dominoed for a domino, the counts
  // for a block (and for a domino under pip scoring, where a domino carries the counts, R40).
  function disputeEnd() {
    var box = confirmBox();
    if (!box) return;
    var end = ($('input[name="dispute_end"]:checked', box) || {}).value || "block";
    var p = panel();
    var countsOnDomino = !!p && p.dataset.countsOnDomino === "1";
    $("#dispute-winner", box).hidden = end !== "domino";
    $("#dispute-counts", box).hidden = end !== "block" && !countsOnDomino;
  }

  function prefillDispute(entries, number) {
    var box = confirmBox();
    var recorded = recordedVersion(entries, number);
    if (!recorded) { disputeEnd(); return; }
    var end = $('input[name="dispute_end"][value="' + recorded.end + '"]', box);
    if (end) end.checked = true;
    if (recorded.winner !== null && recorded.winner !== undefined) {
      var w = $('input[name="dispute_winner"][value="' + recorded.winner + '"]', box);
      if (w) w.checked = true;
    }
    $all("input[data-dispute-count]", box).forEach(function (el) {
      var c = recorded.counts ? recorded.counts[Number(el.dataset.disputeCount)] : null;
      el.value = c === null || c === undefined ? "" : String(c);
    });
    disputeEnd();
  }

  function recordedVersion(entries, number) {
    // A hand the server refused is not the one the players confirm (another device's is).
    var queued = (entries || []).filter(function (e) {
      return isHand(e) && e.number === number && e.status !== "refused";
    })[0];
    if (queued) return queued.payload;
    try {
      var data = confirmData();
      var last = data ? JSON.parse(data.dataset.lastHand || "null") : null;
      return last && last.number === number ? last : null;
    } catch (e) { return null; }
  }

  // The hand the players were shown (scoring.services.confirmations._same_hand): the key this
  // phone is recording it with while it waits here, else the stored hand's id from the page,
  // else the key of the hand this phone recorded. A tap for a hand a director undid and
  // recorded again is then refused (409 hand_changed), never counted for a hand nobody saw.
  function handShown(entries, number) {
    var mine = (entries || []).filter(function (e) {
      return isHand(e) && e.number === number && e.status !== "refused";
    });
    var waiting = mine.filter(function (e) { return e.status !== "confirmed"; })[0];
    if (waiting) return { hand_key: waiting.key };
    try {
      var data = confirmData();
      var last = data ? JSON.parse(data.dataset.lastHand || "null") : null;
      if (last && last.number === number && last.id) return { hand_id: last.id };
    } catch (e) { /* no page data: the key below, or the number alone */ }
    return mine.length ? { hand_key: mine[mine.length - 1].key } : {};
  }

  function queueTap(kind, payload) {
    return queue.all().then(function (entries) {
      var shown = handShown(entries, payload.number);
      Object.keys(shown).forEach(function (k) { payload[k] = shown[k]; });
      var entry = { match: matchId, kind: kind, key: uuid4(), number: payload.number,
        payload: payload, status: "queued", error: null };
      return queue.add(entry);
    }).then(function () { return showQueue(false); }).then(drain);
  }

  function tapSeat(button) {
    var box = confirmBox();
    var pinEl = $("#confirm-pin", box);
    var pin = pinEl.value.trim();
    pinEl.value = "";
    var payload = { number: Number(box.dataset.waitNumber), seat: Number(button.dataset.confirmSeat) };
    if (pin) payload.pin = pin;
    button.disabled = true;
    var refusal = $("#confirm-error", box);
    if (refusal && refusal.dataset.seat === button.dataset.confirmSeat) {
      refusal.hidden = true;
      refusal.textContent = "";
    }
    queueTap("confirm", payload);
  }

  // Whether a claimed version says what the recorded one says (end, winner, counts, llave).
  function sameVersion(claimed, recorded) {
    if (!recorded || recorded.end === undefined) return false;
    var counts = function (c) { return JSON.stringify(c === undefined ? null : c); };
    var winner = function (v) { return v === undefined || v === null ? null : Number(v); };
    return claimed.end === recorded.end &&
      winner(claimed.winner) === winner(recorded.end === "domino" ? recorded.winner : null) &&
      counts(claimed.counts) === counts(recorded.counts) &&
      !!claimed.llave === !!recorded.llave;
  }

  function submitDispute() {
    var box = confirmBox();
    var seat = $('input[name="dispute_seat"]:checked', box);
    var error = $("#dispute-error", box);
    if (!seat) { error.textContent = box.dataset.msgPickSeat; error.hidden = false; return; }
    error.hidden = true;
    var number = Number(box.dataset.waitNumber);
    return queue.all().then(function (entries) {
      var recorded = recordedVersion(entries, number) || {};
      var end = ($('input[name="dispute_end"]:checked', box) || {}).value || "block";
      var w = $('input[name="dispute_winner"]:checked', box);
      var counts = $all("input[data-dispute-count]", box).map(function (el) {
        return el.value.trim() === "" ? null : Number(el.value);
      });
      var claimed = { poser: recorded.poser, pose_tile: recorded.pose_tile, end: end,
        winner: end === "domino" && w ? Number(w.value) : null,
        counts: end === "block" || counts.some(function (c) { return c !== null; }) ? counts : null,
        llave: !!recorded.llave && end === "domino" };
      if (end === "domino" && claimed.counts && claimed.counts.some(function (c) { return c === null; })) {
        claimed.counts = null;
      }
      var payload = { number: number, seat: Number(seat.value), claimed: claimed,
        note: $("#dispute-note", box).value.trim() };
      // The form starts as the recorded hand: sent unchanged with no note it disputes nothing
      // and the server refuses it (dispute_unchanged); say so here, before it is queued.
      if (!payload.note && sameVersion(claimed, recorded)) {
        error.textContent = box.dataset.msgDisputeSame;
        error.hidden = false;
        return;
      }
      // The disputing player's own PIN box (the one above the names is for confirming).
      var pinEl = $("#dispute-pin", box);
      var pin = pinEl ? pinEl.value.trim() : "";
      if (pinEl) pinEl.value = "";
      if (pin) payload.pin = pin;
      error.hidden = true;
      error.textContent = "";
      $("#dispute", box).open = false;
      return queueTap("dispute", payload);
    });
  }

  function scheduleRetry(after) {
    if (retryTimer) return;
    retryTimer = window.setTimeout(function () { retryTimer = null; drain(); },
      Math.max(5000, after || 0));
  }

  // Send the queue in order, one hand at a time; stop at the first failure or refusal.
  var drainRun = Promise.resolve();
  function drain() {
    // Already sending: run again once it is done (a hand added meanwhile is sent then).
    if (draining) return drainRun.then(drain, drain);
    draining = true;
    var sentAny = false;
    var lastSent = null; // the last entry the server took: its kind words the flash
    var retryWait = 0; // a rate limit's Retry-After (ms): the queue waits at least that long
    function step() {
      return queue.all().then(function (entries) {
        var open = entries.filter(function (x) { return x.status !== "confirmed"; }).sort(byTurn);
        var e = open[0];
        if (!e) return "done";
        if (e.status === "refused") {
          // A player's tap on the hand the server has (the other device's) still goes while
          // the referee decides about this phone's refused hand: the table confirms it.
          e = open.filter(function (x) {
            return !isHand(x) && x.status !== "refused" && x.payload && x.payload.hand_id;
          })[0];
          if (!e) return "stopped";
        }
        // A player's tap for this hand was refused: the next hand waits until they tap again
        // (the server would refuse it with confirmation_pending under every_hand).
        if (isHand(e) && tapHeldFor !== null && e.number > tapHeldFor) return "held";
        e.status = "sent";
        return queue.put(e).then(function () { return showQueue(false); }).then(function () {
          // Online, a lost answer is retried at once with the same key; offline, it waits.
          var url = entryUrl(e);
          return navigator.onLine === false ? send(url, e.payload, e.key)
            : sendWithRetry(url, e.payload, e.key, 0);
        }).then(function (res) {
          if (res.status >= 200 && res.status < 300) {
            e.status = "confirmed";
            e.error = null;
            // The match version the server answered with: a panel read at it or later
            // already shows this hand, and whatever happened to it since (a director's undo).
            if (res.data && res.data.match && res.data.match.version) e.version = res.data.match.version;
            sentAny = true;
            lastSent = e;
            if (isHand(e)) lastConfirmed = (res.data && res.data.hand && res.data.hand.number) || e.number;
            else if (e.number === tapHeldFor) tapHeldFor = null;
            if (formHolds === e.key) formHolds = null;
            return queue.put(e).then(step);
          }
          if (transient(res)) {
            e.status = "queued"; // unknown outcome: the same key is resent later
            retryWait = res.retryAfter || 0;
            return queue.put(e).then(function () { return "offline"; });
          }
          var err = (res.data && res.data.error) || { message: root.dataset.msgFailed + " (" + res.status + ")" };
          if (res.status === 409 && !err.message) err.message = root.dataset.msgConflict;
          if (!isHand(e)) {
            // A refused tap or dispute (a wrong or locked PIN, a frozen match) is the player's
            // to redo: dropped at once, the reason shown by the confirmation block, and the
            // player may tap again. Nothing was stored; the taps of the others go on.
            tapRefused(e, err);
            if (tapHeldFor === null || e.number < tapHeldFor) tapHeldFor = e.number;
            return queue.remove(e.id).then(function () { return showQueue(false); }).then(step);
          }
          var later = entries.filter(function (x) { return x.status !== "confirmed" && x.id !== e.id; });
          if (formHolds === e.key && !later.length) {
            // The hand just submitted, nothing queued after it: its key is spent and the
            // referee corrects the form, as before the queue existed.
            formHolds = null;
            var entered = res.status === 409 ? typedNow(true) : null;
            return queue.remove(e.id).then(function () {
              if (res.status === 409) {
                // The match changed elsewhere: say what, and keep the hand the referee entered
                // on the form for them to check and record again.
                return refreshPanel(null, false, true, entered).then(function (said) {
                  if (!said) setStatus("error", "");
                  showError(err.code ? err : { message: root.dataset.msgConflict }, "number", said);
                  return "shown";
                });
              }
              setStatus("", "");
              showError(res.status === 401 || res.status === 403
                ? (res.data && res.data.error) || { message: root.dataset.msgForbidden } : err);
              updateSummary();
              return "shown";
            });
          }
          e.status = "refused";
          // The players' taps for this hand confirmed it as this phone had it: the server has
          // another hand (or none) under its number, so they are dropped, and the page says so.
          var dropped = entries.filter(function (x) {
            return !isHand(x) && x.status !== "confirmed" && x.payload && x.payload.hand_key === e.key;
          });
          if (dropped.length) {
            e.dropped = { number: e.number, seats: dropped.map(function (x) { return x.payload.seat; }) };
          }
          // The raw error is kept: the page words it again once the panel shows the server's
          // state (here the panel may be older than the hands just stored, and name the wrong
          // seat as the one that must pose).
          e.error = { code: err.code || String(res.status), message: localise(err).message || err.message,
            rule: err.rule || null, status: res.status, raw: err };
          return Promise.all(dropped.map(function (x) { return queue.remove(x.id); }))
            .then(function () { return queue.put(e); }).then(function () { return "stopped"; });
        });
      });
    }
    drainRun = step().then(function (how) {
      draining = false;
      if (how === "shown") return showQueue(false);
      if (how === "offline") {
        scheduleRetry(retryWait);
        var advance = formHolds !== null;
        formHolds = null;
        return showQueue(advance).then(function (entries) {
          var open = entries.filter(function (x) { return x.status !== "confirmed"; });
          if (advance && open.length) {
            setStatus("ok", fill(root.dataset.msgQueued, { number: open[open.length - 1].number }));
          }
        });
      }
      if (how === "done" && sentAny) {
        // A player's tap or dispute is not a new hand: say what was taken.
        var flash = lastSent && !isHand(lastSent) ? tapSentWords(lastSent)
          : root.dataset.msgRecorded.replace("%(number)s", lastConfirmed || "");
        if (resolvedNote) { flash = resolvedNote + " " + flash; resolvedNote = ""; }
        tapSaid = lastSent && !isHand(lastSent) ? flash : "";
        return refreshPanel(flash).then(function () { return showQueue(false); });
      }
      if (how === "stopped" || how === "held") {
        // Not "saved on this phone": the queue box says what was refused. What resolving a
        // refused hand did, and what a tap sent earlier said, stay said until something else
        // is: a later pass that sends nothing (the phone back online, a retry) says nothing.
        if (!resolutionShown() && !statusShows(tapSaid)) setStatus("", "");
        // A player's tap sent meanwhile is said as when nothing waits.
        var tapWords = sentAny && lastSent && !isHand(lastSent) ? tapSentWords(lastSent) : "";
        return refreshPanel(null, true, OWN).then(function () {
          if (tapWords) {
            setStatus("ok", tapWords);
            tapSaid = tapWords;
          }
          return showQueue(false);
        });
      }
      return showQueue(false);
    }, function () { draining = false; }).then(function () { catchUpOwed(); });
    return drainRun;
  }

  // The referee resolves the refused hand: discard it, or record it as the next hand. Either
  // way the hands after it are re-numbered from the server's next hand number, with new keys
  // (none of them was stored: the server refused the hand before them). The hand sent first
  // must still be posed by whom the rules now name (R5-R10, the panel's poser check): if not,
  // it is put on the form with the poser flagged for the referee to fix, never resent blindly;
  // the hands after it wait behind it. The status line says what was done.
  function resolveRefused(discard) {
    return queue.all().then(function (entries) {
      var open = entries.filter(function (e) { return e.status !== "confirmed"; });
      var idx = -1;
      open.forEach(function (e, i) { if (idx === -1 && e.status === "refused") idx = i; });
      if (idx === -1) return null;
      var refused = open[idx];
      if (!isHand(refused)) {
        // A refused tap or dispute (a wrong PIN, a frozen match): drop it; the hands stand.
        return queue.remove(refused.id)
          .then(function () { return refreshPanel(null, true, OWN); })
          .then(function () { return showQueue(false); })
          .then(drain);
      }
      var said = [];
      var head = null;
      return window.fetch(panelUrl, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (res) { return res.ok ? res.text() : null; }, function () { return null; })
        .then(function (html) {
          var number = null;
          var fresh = null;
          if (html) {
            var holder = document.createElement("div");
            holder.innerHTML = html;
            fresh = holder.querySelector("#match-panel");
            if (fresh && fresh.dataset.number) number = Number(fresh.dataset.number);
          }
          if (number === null) number = refused.number; // offline: keep the numbering
          if (discard) {
            said.push(fill(root.dataset.msgDiscarded, { number: refused.number,
              hand: queuedHandWords(refused.payload).replace(/\.$/, "") }));
          }
          // Taps for the server's own hand (hand_id) stay as they are; the others follow
          // their hand, or go with it when it is discarded or changed.
          var rest = open.slice(idx + (discard ? 1 : 0)).filter(function (e) {
            return isHand(e) || !(e.payload && e.payload.hand_id);
          });
          var work = discard ? [queue.remove(refused.id)] : [];
          var renumbered = {};
          var keys = {};
          var h = 0;
          rest.forEach(function (e) {
            if (isHand(e)) {
              var old = e.number;
              renumbered[e.number] = number + h;
              e.number = number + h;
              if (head === null) { head = e; head.oldNumber = old; }
              h += 1;
            } else {
              if (discard && e.payload.hand_key === refused.key) { work.push(queue.remove(e.id)); return; }
              e.number = renumbered[e.number] !== undefined ? renumbered[e.number] : e.number;
            }
            e.payload.number = e.number;
            var was = e.key;
            e.key = uuid4();
            if (isHand(e)) keys[was] = e.key;
            e.status = "queued";
            e.error = null;
            e.onForm = false;
            e.dropped = null;
          });
          var problem = head && fresh ? poserProblemIn(fresh, head.payload.poser) : "";
          rest.forEach(function (e) {
            if (isHand(e)) return;
            var heads = problem && e.payload.hand_key && keys[e.payload.hand_key] === head.key;
            if (heads) { work.push(queue.remove(e.id)); return; } // taps for a hand to be changed
            if (e.payload.hand_key && keys[e.payload.hand_key]) e.payload.hand_key = keys[e.payload.hand_key];
            work.push(queue.put(e));
          });
          rest.filter(isHand).forEach(function (e) {
            if (e === head && problem) {
              e.status = "refused";
              e.onForm = true;
              e.error = { code: "wrong_poser", message: problem, rule: null, local: true };
            }
            work.push(queue.put(e));
          });
          if (head && problem) {
            said.push(fill(root.dataset.msgOnForm, { old: head.oldNumber, number: head.number,
              problem: problem }));
          } else if (head && head.oldNumber !== head.number) {
            said.push(fill(root.dataset.msgRenumbered, { old: head.oldNumber, number: head.number }));
          } else if (!head) {
            said.push(root.dataset.msgNothingLeft);
          }
          return Promise.all(work);
        })
        .then(function () { return refreshPanel(null, true, OWN); })
        .then(function () { return showQueue(true); })
        .then(function () { resolvedNote = said.join(" "); })
        .then(drain)
        .then(function () {
          // Said unless the drain said it with what it sent (resolvedNote is then spent).
          if (resolvedNote) { setStatus("notice", resolvedNote); resolvedSaid = resolvedNote; }
          resolvedNote = "";
        });
    });
  }
  var resolvedNote = ""; // what resolving a refused hand did, said with what the queue sends
  var resolvedSaid = ""; // ... as the status line shows it

  var tapSaid = ""; // the words a sent tap or dispute put on the status line

  // What the status line says for a player's tap or dispute the server took.
  function tapSentWords(e) {
    return fill(e.kind === "dispute" ? root.dataset.msgDisputeSent : root.dataset.msgTapSent,
      { seat: seatName(e.payload.seat), number: e.number });
  }

  function statusShows(words) {
    var box = $("#submit-status");
    return !!words && !!box && !box.hidden && box.textContent === words;
  }

  function resolutionShown() {
    return statusShows(resolvedSaid);
  }

  // A queued hand in the page's words: who posed what, and how it ended ("D · Dora posed 5-5 ·
  // D · Dora dominoes."; a block with every count), so the referee can tell it from another.
  function queuedHandWords(payload) {
    if (!payload) return "";
    var posed = payload.poser === null || payload.poser === undefined ? ""
      : fill(root.dataset.msgQueuePosed || "%(name)s posed %(tile)s",
        { name: seatName(payload.poser), tile: payload.pose_tile || "—" });
    var result = handWords(payload);
    var counts = payload.counts;
    if (payload.end === "block" && counts && counts.every(function (c) { return typeof c === "number"; })) {
      result += " " + fill(root.dataset.msgQueueCounts || "%(counts)s", { counts: counts.map(function (c, i) {
        return "ABCDEFGH".charAt(i) + " " + c;
      }).join(" · ") });
    }
    return [posed, result].filter(Boolean).join(" · ");
  }

  // What the server has under hand number n (another device's hand), from the panel's list
  // of hands: "D · Dora posed 5-5 · C · Carla dominoes", or "" when it has none.
  function serverHand(n) {
    var p = pristine || panel();
    var row = p && $all('tr[data-hand="' + n + '"]', p).filter(function (tr) {
      return !tr.classList.contains("void");
    })[0];
    if (!row) return "";
    var posed = $(".hand-posed", row);
    var result = $(".hand-result", row);
    return [posed && posed.textContent.trim(), result && result.textContent.trim()]
      .filter(Boolean).join(" · ");
  }

  // A hand the rules refuse as it was queued (R5-R10) is on the form for the referee to fix:
  // every field as queued, the poser flagged beside it (showPoserProblem). Once per panel;
  // what the referee changed since is theirs.
  function putOnForm(entry) {
    var p = panel();
    var form = p && $("#hand-form", p);
    if (!form || p.dataset.formFor === entry.key) return;
    p.dataset.formFor = entry.key;
    if (formTouched) return;
    var pl = entry.payload;
    var fields = { poser: String(pl.poser), pose_tile: pl.pose_tile, end: pl.end };
    if (pl.end === "domino" && pl.winner !== null && pl.winner !== undefined) fields.winner = String(pl.winner);
    if (pl.llave) fields.llave = true;
    (pl.counts || []).forEach(function (c, i) { if (c !== null) fields["count-" + i] = String(c); });
    restoreTyped({ number: p.dataset.number, last: "", fields: fields, reason: "", undoOpen: false });
  }

  function startOffline() {
    if (!window.indexedDB || !window.refereeQueue) { started = true; return; }
    // An unconfirmed hand from the older one-hand sessionStorage keeps its key in the queue.
    var old = pending && pending.kind === "hand" ? pending : null;
    if (old) { pending = null; savePending(null); }
    var ready = old ? queue.add({ match: matchId, key: old.key, number: old.payload.number,
      payload: old.payload, status: "queued", error: null }) : Promise.resolve();
    var url = root.dataset.reducerUrl;
    var load = url ? import(url).then(function (m) { reducer = m; }, function () { reducer = null; })
      : Promise.resolve();
    Promise.all([ready, load])
      .then(function () { return refreshPanel(null, true, true); })
      .then(function () { return showQueue(true); })
      .then(function () { started = true; })
      .then(drain);
    window.addEventListener("online", function () { drain(); showQueue(false); });
    window.addEventListener("offline", function () { showQueue(false); });
    registerWorker();
  }

  // The service worker keeps this page, its panel and its assets for offline reloads.
  function registerWorker() {
    var swUrl = root.dataset.swUrl;
    if (!swUrl || !("serviceWorker" in navigator)) return;
    // The worker says when it holds this page's copies: from then on a reload without
    // network shows the page (#referee-app[data-offline-ready]; the offline tests wait for it
    // before cutting the network, as a copy being rewritten is not there yet).
    navigator.serviceWorker.addEventListener("message", function (ev) {
      if (ev.data && ev.data.type === "cached") root.dataset.offlineReady = "1";
    });
    if (navigator.serviceWorker.startMessages) navigator.serviceWorker.startMessages();
    navigator.serviceWorker.register(swUrl).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      var urls = [window.location.pathname + window.location.search, panelUrl, root.dataset.reducerUrl];
      // "My matches" (the header's link) and its script, so that the link opens without
      // network too and names the matches whose hands wait on this phone (referee-home.js;
      // the queue's definition it reads, referee-queue.js, is among this page's scripts).
      (root.dataset.homeUrls || "").split(" ").forEach(function (u) { if (u) urls.push(u); });
      $all('script[src], link[rel="stylesheet"], link[rel="manifest"]').forEach(function (el) {
        urls.push(el.getAttribute("src") || el.getAttribute("href"));
      });
      if (reg.active) reg.active.postMessage({ type: "cache", urls: urls });
    }).catch(function () { /* no worker (plain http): the queue still works while the page stays open */ });
  }

  // -- wiring (delegated: the panel is replaced after every hand) ------------------------------

  // A finished (or void) match says so on the live line instead of "Live: updates as hands are
  // recorded." (static/js/live.js reads #live's data-finished on every change of state); a
  // director's undo of the last hand reopens the match and the line goes back to live.
  function liveLineOver(p) {
    var live = document.getElementById("live");
    var line = document.querySelector("[data-live-status]");
    if (!live || !line) return;
    var over = p.dataset.status === "finished" || p.dataset.status === "void";
    if (over) {
      live.dataset.finished = "1";
      if (live.dataset.labelFinished && line.textContent !== live.dataset.labelFinished) {
        line.textContent = live.dataset.labelFinished;
      }
      line.className = "live-status live-status-finished muted";
    } else if (live.dataset.finished && !live.dataset.eventOver) {
      delete live.dataset.finished;
      var kind = live.dataset.liveState || "live";
      var label = live.dataset["label" + kind.charAt(0).toUpperCase() + kind.slice(1)];
      if (label) line.textContent = label;
      line.className = "live-status live-status-" + kind + " muted";
    }
  }

  function initPanel() {
    var p = panel();
    if (!p) return;
    if (p.dataset.unsent !== "1") pristine = p.cloneNode(true); // the server's panel as rendered
    formTouched = false;
    touched = {};
    countsAsked = null;
    root.dataset.number = p.dataset.number;
    if ($("#hand-form", p)) updateEnd();
    hideWriting();
    liveLineOver(p);
    showPendingBanner();
    if (queueReady) showQueue(false);
    else tableConfirm([], null); // before the queue is read (or without IndexedDB)
  }

  document.addEventListener("change", function (ev) {
    var t = ev.target;
    if (t.name === "dispute_end") disputeEnd();
    if (!panel() || !panel().contains(t)) return;
    if (t.closest && t.closest("#hand-form")) { formTouched = true; touched[fieldKey(t)] = true; }
    if (t.name === "end") updateEnd();
    else { syncWinnerCount(); updateBlockResult(); updateSummary(); }
    if (t.name === "poser" || t.name === "winner") {
      var slot = errorSlot(t.name);
      if (slot) slot.hidden = true;
    }
    if (t.name === "poser") { showPoserProblem(); updateSummary(); }
  });
  document.addEventListener("input", function (ev) {
    if (ev.target.closest && ev.target.closest("#hand-form")) {
      formTouched = true;
      touched[fieldKey(ev.target)] = true;
    }
    if (ev.target.matches && ev.target.matches("input[data-count-seat]")) {
      // A corrected count no longer carries the error it was refused with.
      var field = ev.target.dataset.field;
      var slot = field ? $('.field-error[data-error-for="' + field + '"]', panel()) : null;
      if (slot) { slot.hidden = true; slot.textContent = ""; }
      ev.target.removeAttribute("aria-invalid");
      updateBlockResult();
      updateSummary();
    }
  });
  document.addEventListener("submit", function (ev) {
    if (ev.target.id === "hand-form") { ev.preventDefault(); submitHand(); }
    if (ev.target.id === "void-form") { ev.preventDefault(); submitVoid(); }
    if (ev.target.id === "dispute-form") { ev.preventDefault(); submitDispute(); }
    // The PIN's form only holds the field: Enter must not reload the page (a tap on a name
    // confirms, with the PIN typed).
    if (ev.target.id === "confirm-form") ev.preventDefault();
  });
  document.addEventListener("click", function (ev) {
    var t = ev.target.closest ? ev.target.closest("button") : null;
    if (!t) return;
    if (t.id === "pending-retry") { ev.preventDefault(); submitPending(); }
    if (t.dataset && t.dataset.confirmSeat !== undefined) { ev.preventDefault(); tapSeat(t); }
    if (t.id === "pending-discard") {
      ev.preventDefault();
      pending = null;
      savePending(null);
      showPendingBanner();
      refreshPanel();
    }
    if (t.id === "queue-renumber") { ev.preventDefault(); resolveRefused(false); }
    if (t.id === "queue-discard") { ev.preventDefault(); resolveRefused(true); }
    if (t.id === "reset-form") {
      ev.preventDefault();
      clearErrors();
      formTouched = false; // Clear: nothing of the referee's is kept on the form
      touched = {};
      refreshPanel();
    }
  });
  // A phone that slept may show an old state: read the match when the page is visible again
  // (live.js reconnects by itself; its socket may not have noticed the sleep yet).
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") catchUp();
  });

  root.classList.add("js");
  initPanel();
  startOffline();
  if (!pending) confirmedAfterReload();
  else if (!$("#pending-banner").hidden) $("#pending-banner").scrollIntoView({ block: "start" });
})();
