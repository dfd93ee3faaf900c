/*
 * Spectators' replay of a hand entered move by move (issue 15): step forward and back through
 * the frames the server computed with the rules engine (the deal, then the position after every
 * move). Buttons and the arrow keys step; the step is announced through an aria-live region.
 */
(function () {
  "use strict";

  var root = document.getElementById("replay");
  if (!root) return;
  var data = root.dataset;
  var frames = JSON.parse(data.frames || "[]");
  var seats = JSON.parse(data.seats || "[]");
  var at = 0;
  if (!frames.length) return;

  function $(id) { return document.getElementById(id); }
  function fill(template, params) {
    return String(template || "").replace(/%\((\w+)\)s/g, function (all, key) {
      return params[key] !== undefined && params[key] !== null ? params[key] : all;
    });
  }

  function show(i) {
    at = Math.max(0, Math.min(frames.length - 1, i));
    var f = frames[at];
    var line = $("replay-line");
    line.textContent = "";
    f.line.forEach(function (pair) {
      var li = document.createElement("li");
      li.className = "tile-on-board" + (pair[0] === pair[1] ? " double" : "");
      li.textContent = pair[0] + "-" + pair[1];
      line.appendChild(li);
    });
    $("replay-ends").textContent = f.ends
      ? fill(data.msgEnds, { left: f.ends[0], right: f.ends[1] }) : data.msgEmpty;
    var list = $("replay-seats");
    list.textContent = "";
    f.hands.forEach(function (tiles, s) {
      var li = document.createElement("li");
      if (s === f.turn) li.className = "to-move";
      var who = document.createElement("strong");
      who.textContent = seats[s] || "ABCD".charAt(s);
      li.appendChild(who);
      li.appendChild(document.createTextNode(
        " · " + tiles.join(" ") + " (" + fill(data.msgCount, { n: f.counts[s] }) + ")" +
        (s === f.turn ? " · " + data.msgTurn : "")));
      list.appendChild(li);
    });
    var moves = root.querySelectorAll("#replay-moves li");
    Array.prototype.forEach.call(moves, function (li, k) {
      if (k === at - 1) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
    });
    $("replay-step").textContent = at === 0
      ? data.msgDeal
      : fill(data.msgStep, { n: at, total: frames.length - 1, text: f.text });
    root.querySelector('[data-step="first"]').disabled = at === 0;
    root.querySelector('[data-step="back"]').disabled = at === 0;
    root.querySelector('[data-step="forward"]').disabled = at === frames.length - 1;
    root.querySelector('[data-step="last"]').disabled = at === frames.length - 1;
  }

  var steps = {
    first: function () { return 0; },
    back: function () { return at - 1; },
    forward: function () { return at + 1; },
    last: function () { return frames.length - 1; }
  };
  Array.prototype.forEach.call(root.querySelectorAll("[data-step]"), function (b) {
    b.addEventListener("click", function () {
      show(steps[b.dataset.step]());
      // A disabled button loses focus: keep the keyboard user inside the controls.
      if (b.disabled) {
        var other = root.querySelector('[data-step="' + (b.dataset.step === "forward" || b.dataset.step === "last" ? "back" : "forward") + '"]');
        if (other) other.focus();
      }
    });
  });
  // On the document, so the arrow keys step as soon as the page opens (nothing focused yet);
  // a key typed in another control of the page (the language menu) is left alone.
  document.addEventListener("keydown", function (ev) {
    var target = ev.target;
    if (target && /INPUT|SELECT|TEXTAREA/.test(target.tagName)) return;
    if (target && target !== document.body && !root.contains(target)) return;
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.key === "ArrowRight") { show(at + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft") { show(at - 1); ev.preventDefault(); }
    else if (ev.key === "Home") { show(0); ev.preventDefault(); }
    else if (ev.key === "End") { show(frames.length - 1); ev.preventDefault(); }
  });
  show(0);
})();
