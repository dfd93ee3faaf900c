/*
 * Director pages (brackets): seed-order reordering (arrows and drag), confirmations, the
 * round clock, print buttons, forms sent once. No dependencies.
 *
 * The pages work without this script: each arrow is a submit button that saves one move,
 * and every form posts normally. With it, arrows and drag move rows locally and "Save seed
 * order" posts the whole order once (the hidden "order" inputs travel with their rows).
 */
(function () {
  "use strict";

  // -- seed order ---------------------------------------------------------------------------
  var form = document.querySelector("form[data-reorder]");
  var body = document.getElementById("seed-rows");
  var status = document.getElementById("order-status");

  // Seeds 1, 2, ... in the new order; in a pairs stage one per partnership (T9), shown on its
  // first row (its partner's row keeps it for screen readers only).
  function renumber() {
    if (!body) return;
    var rows = body.querySelectorAll("tr");
    var seed = 0;
    var unit = null;
    for (var i = 0; i < rows.length; i++) {
      var mine = rows[i].dataset.unit || null;
      if (mine === null || mine !== unit) seed += 1;
      unit = mine;
      var cell = rows[i].querySelector(".seed-no");
      if (!cell) continue;
      var hidden = cell.querySelector(".visually-hidden");
      (hidden || cell).textContent = String(seed);
    }
  }

  function dirty(row) {
    if (row) row.classList.add("moved");
    if (status) status.textContent = "Unsaved changes: save the seed order.";
  }

  // The rows that move as one with ``row``: its partnership's in a pairs stage, else itself.
  function group(row) {
    var unit = row.dataset.unit;
    if (!unit) return [row];
    return Array.prototype.filter.call(body.querySelectorAll("tr"), function (r) {
      return r.dataset.unit === unit;
    });
  }

  if (form && body) {
    form.addEventListener("click", function (event) {
      var button = event.target.closest ? event.target.closest("button.js-move") : null;
      if (!button) return;
      event.preventDefault();
      var row = button.closest("tr");
      // A pairs stage (T9): a partnership's rows move together, past a whole partnership.
      var mine = group(row);
      var first = mine[0];
      var last = mine[mine.length - 1];
      var i;
      if (button.dataset.dir === "up" && first.previousElementSibling) {
        var above = group(first.previousElementSibling)[0];
        for (i = 0; i < mine.length; i++) body.insertBefore(mine[i], above);
      } else if (button.dataset.dir === "down" && last.nextElementSibling) {
        var below = group(last.nextElementSibling);
        for (i = 0; i < below.length; i++) body.insertBefore(below[i], first);
      } else {
        return;
      }
      renumber();
      dirty(row);
      button.focus();
    });

    // Enter in the reason field submits with the form's first submit button, an arrow; its
    // "move" must not travel with the full order, so save with the save button instead.
    form.addEventListener("submit", function (event) {
      if (!event.submitter || event.submitter.name !== "move") return;
      event.preventDefault();
      var save = document.getElementById("save-order");
      if (save && form.requestSubmit) form.requestSubmit(save);
    });

    var dragged = null;
    body.addEventListener("dragstart", function (event) {
      dragged = event.target.closest("tr");
      if (!dragged) return;
      dragged.classList.add("dragging");
      event.dataTransfer.effectAllowed = "move";
      event.dataTransfer.setData("text/plain", dragged.dataset.entry || "");
    });
    body.addEventListener("dragover", function (event) {
      if (!dragged) return;
      event.preventDefault();
      var over = event.target.closest("tr");
      var marked = body.querySelector(".drop-target");
      if (marked && marked !== over) marked.classList.remove("drop-target");
      if (over && over !== dragged) over.classList.add("drop-target");
    });
    body.addEventListener("drop", function (event) {
      if (!dragged) return;
      event.preventDefault();
      var over = event.target.closest("tr");
      if (over && over !== dragged) {
        var rect = over.getBoundingClientRect();
        var after = event.clientY > rect.top + rect.height / 2;
        body.insertBefore(dragged, after ? over.nextElementSibling : over);
        renumber();
        dirty(dragged);
      }
    });
    body.addEventListener("dragend", function () {
      if (dragged) dragged.classList.remove("dragging");
      var marked = body.querySelector(".drop-target");
      if (marked) marked.classList.remove("drop-target");
      dragged = null;
    });
  }

  // -- confirmations ------------------------------------------------------------------------
  document.addEventListener("submit", function (event) {
    var target = event.target;
    // The button pressed may ask on its own (one form, two decisions of different weight).
    var button = event.submitter;
    // ... or the option chosen in its select (the Lifecycle page's "Finished": irreversible
    // for the referee links, unlike the other moves).
    var chosen = target.querySelector && target.querySelector("select option[data-confirm]:checked");
    var message = (button && button.dataset && button.dataset.confirm) ||
      (target.dataset && target.dataset.confirm) || (chosen && chosen.dataset.confirm);
    if (message && !window.confirm(message)) {
      event.preventDefault();
      return;
    }
    // A form whose select applies at once (site.js submits it on change) is sent once: a
    // press of its button (there for pages without JavaScript) while the page reloads sent
    // it again (the round page's referee: "Referee changed" twice in the same second).
    if (target.querySelector && target.querySelector("select[data-autosubmit]")) {
      if (target.dataset.sending) {
        event.preventDefault();
        return;
      }
      target.dataset.sending = "1";
    }
  });
  // Back to a page kept in the browser's cache: its forms may be sent again.
  window.addEventListener("pageshow", function () {
    var sent = document.querySelectorAll("form[data-sending]");
    for (var s = 0; s < sent.length; s++) delete sent[s].dataset.sending;
  });

  // -- stage form: show the settings of the chosen kind -------------------------------------
  var kind = document.getElementById("id_kind");
  if (kind && kind.form) {
    var showKind = function () {
      var sets = kind.form.querySelectorAll("fieldset[data-kind]");
      for (var k = 0; k < sets.length; k++) {
        sets[k].hidden = sets[k].dataset.kind.split(" ").indexOf(kind.value) < 0;
      }
    };
    kind.addEventListener("change", showKind);
    showKind();
  }

  // -- print --------------------------------------------------------------------------------
  var printButtons = document.querySelectorAll(".js-print");
  for (var p = 0; p < printButtons.length; p++) {
    printButtons[p].addEventListener("click", function () { window.print(); });
  }

  // -- round progress: refresh the tables while the round is in play ----------------------
  var live = document.querySelector("[data-live-refresh]");
  if (live && window.fetch && window.DOMParser) {
    var every = Math.max(10, Number(live.dataset.liveRefresh) || 20) * 1000;
    var stamp = document.getElementById("live-stamp");
    var busy = function () {
      var el = document.activeElement;
      var typing = el && (el.tagName === "INPUT" || el.tagName === "SELECT" || el.tagName === "TEXTAREA");
      return typing || document.querySelector("details[open]") !== null;
    };
    window.setInterval(function () {
      if (document.visibilityState === "hidden" || busy()) return;
      window.fetch(window.location.href, {
        credentials: "same-origin", headers: { "Accept": "text/html" }, cache: "no-cache"
      })
        .then(function (res) { return res.ok ? res.text() : null; })
        .then(function (html) {
          if (html === null || busy()) return;
          var doc = new DOMParser().parseFromString(html, "text/html");
          var fresh = doc.getElementById("round-live");
          // The round finished or closed: the actions change, so show the whole page again.
          if (!fresh || fresh.dataset.complete !== live.dataset.complete || !fresh.dataset.liveRefresh) {
            window.location.reload();
            return;
          }
          var rows = doc.getElementById("round-rows");
          var count = doc.getElementById("finished-count");
          if (rows) document.getElementById("round-rows").innerHTML = rows.innerHTML;
          if (count) document.getElementById("finished-count").textContent = count.textContent;
          // Issue 15: a table disputed (or resolved) since the page was drawn.
          var disputes = doc.getElementById("round-disputes");
          var shown = document.getElementById("round-disputes");
          if (disputes && shown) shown.innerHTML = disputes.innerHTML;
          // ... and the Disputes tab's count with it.
          var tab = doc.getElementById("nav-disputes");
          var tabShown = document.getElementById("nav-disputes");
          if (tab && tabShown) tabShown.innerHTML = tab.innerHTML;
          if (stamp) stamp.textContent = "· " + new Date().toLocaleTimeString(document.documentElement.lang || undefined, { hour12: false });
        })
        .catch(function () { if (stamp) stamp.textContent = "· offline?"; });
    }, every);
  }

  // -- round clock --------------------------------------------------------------------------
  var face = document.querySelector(".clock-face[data-ends-at]");
  if (face) {
    var ends = Date.parse(face.dataset.endsAt);
    // Correct for a wrong device clock with the server's time at render.
    var skew = Date.parse(face.dataset.now) - Date.now();
    var out = face.querySelector(".clock-remaining");
    var tick = function () {
      var left = Math.round((ends - (Date.now() + skew)) / 1000);
      var sign = left < 0 ? "+" : "";
      var secs = Math.abs(left);
      var text = sign + Math.floor(secs / 60) + ":" + String(secs % 60).padStart(2, "0");
      out.textContent = left < 0 ? (face.dataset.labelOver || "Time!") + " " + text : text;
      face.classList.toggle("overtime", left < 0);
    };
    if (!isNaN(ends)) { tick(); window.setInterval(tick, 1000); }
  }
})();
