// Behaviour shared by every page. No inline handlers: the Content-Security-Policy forbids them.
(function () {
  "use strict";
  // A <select data-autosubmit> submits its form when changed (the language picker).
  document.querySelectorAll("select[data-autosubmit]").forEach(function (el) {
    el.addEventListener("change", function () {
      if (el.form) el.form.submit();
    });
  });
})();
