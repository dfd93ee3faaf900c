/*
 * Tournament form: show the chosen preset's value beside every override ("— preset: 6 —"),
 * so a director sees what "the preset's value" means before saving. Works without it: the
 * help text of every field lists each preset's value.
 */
(function () {
  "use strict";
  var form = document.getElementById("tournament-form");
  var data = document.getElementById("ruleset-presets");
  var preset = document.getElementById("id_ruleset_preset");
  if (!form || !data || !preset) return;
  var presets = JSON.parse(data.textContent);
  // The server's words for each value, translated ("no cap (R26)", never "null").
  var labelsEl = document.getElementById("ruleset-preset-labels");
  var labels = labelsEl ? JSON.parse(labelsEl.textContent) : { prefix: "preset", values: {} };

  function show(key, value) {
    var words = (labels.values[preset.value] || {})[key];
    if (words !== undefined) return words;
    if (value === null) return "—";
    if (value === true) return "yes";
    if (value === false) return "no";
    return String(value);
  }

  function update() {
    var values = presets[preset.value] || {};
    Object.keys(values).forEach(function (key) {
      var el = document.getElementById("id_rule_" + key);
      if (!el) return;
      var text = labels.prefix + ": " + show(key, values[key]);
      if (el.tagName === "SELECT") {
        var first = el.options[0];
        if (first && first.value === "") first.textContent = "— " + text + " —";
      } else {
        el.placeholder = text;
      }
    });
  }
  preset.addEventListener("change", update);
  update();
})();
