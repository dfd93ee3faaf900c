// Behaviour shared by every page. No inline handlers: the Content-Security-Policy forbids them.
(function () {
  "use strict";
  // A <select data-autosubmit> submits its form when changed (the language picker, the
  // round page's referees, the log's filter): the one handler for every page, through
  // requestSubmit so the form's submit listeners run (director.js sends a form once).
  document.querySelectorAll("select[data-autosubmit]").forEach(function (el) {
    el.addEventListener("change", function () {
      if (!el.form) return;
      if (el.form.requestSubmit) el.form.requestSubmit(); else el.form.submit();
    });
  });
})();
