/*
 * Round clock (T2, T3), the one countdown of the spectators' pages, the director's dashboard and
 * the referee's phone: every <span data-clock-ends="ISO 8601"> (templates/live/_clock.html)
 * counts down to the end of the round and, at zero, shows its data-label-over ("Time!"; on the
 * phone, what T3 asks of the table). Every element is looked up on each tick, so a clock swapped
 * in by a live refresh runs at once. role="timer" keeps screen readers from announcing each tick.
 * All wording is rendered by the server. No dependencies.
 */
(function () {
  "use strict";

  function pad(n) { return (n < 10 ? "0" : "") + n; }

  function tick() {
    var now = Date.now();
    Array.prototype.forEach.call(document.querySelectorAll("[data-clock-ends]"), function (el) {
      var ends = Date.parse(el.getAttribute("data-clock-ends"));
      if (isNaN(ends)) return;
      var left = Math.max(0, Math.round((ends - now) / 1000));
      var h = Math.floor(left / 3600);
      var text = (h ? h + ":" + pad(Math.floor(left / 60) % 60) : Math.floor(left / 60)) + ":" +
        pad(left % 60);
      if (left === 0 && el.dataset.labelOver) text = el.dataset.labelOver;
      el.classList.toggle("clock-over", left === 0);
      if (el.textContent !== text) el.textContent = text;
    });
  }

  tick();
  window.setInterval(tick, 1000);
  // A page that swaps a clock in itself (static/js/referee.js) shows it at once.
  window.roundClock = { tick: tick };
})();
