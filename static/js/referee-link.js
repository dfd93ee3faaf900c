// The referee link is /ref/#<key>: the key is in the fragment, which the browser never sends
// to a server, so no access log sees it. This script POSTs it to /ref/ (CSRF header from the
// cookie the page set), forgets it from the address bar, and goes where the answer says.
(function () {
  "use strict";
  var status = document.getElementById("ref-status");
  function say(text) { if (status) { status.textContent = text; } }
  function cookie(name) {
    var parts = document.cookie ? document.cookie.split("; ") : [];
    for (var i = 0; i < parts.length; i++) {
      var eq = parts[i].indexOf("=");
      if (parts[i].slice(0, eq) === name) { return decodeURIComponent(parts[i].slice(eq + 1)); }
    }
    return "";
  }
  var opening = status ? status.textContent : "";
  function signIn() {
    var key = window.location.hash.replace(/^#/, "");
    if (window.history && window.history.replaceState) {
      window.history.replaceState(null, "", window.location.pathname);
    }
    if (!key) { say(status ? status.getAttribute("data-missing") : ""); return; }
    say(opening);
    var body = new URLSearchParams();
    body.set("key", key);
    fetch(window.location.pathname, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": cookie("csrftoken") },
      body: body
    }).then(function (response) {
      // An answer that is not the server's JSON (a proxy's error page) is no answer about the
      // link: said as such, not as "no connection" and not in English.
      return response.json().then(function (data) { return { ok: response.ok, data: data || {} }; },
        function () { return { ok: false, data: {} }; });
    }).then(function (result) {
      if (result.ok && result.data.redirect) {
        window.location.replace(result.data.redirect);
      } else {
        say((result.data.error && result.data.error.message) ||
          (status ? status.getAttribute("data-failed") : ""));
      }
    }).catch(function () { say(status ? status.getAttribute("data-offline") : ""); });
  }
  signIn();
  // A link pasted into this open tab (or a second QR scan) changes only the fragment: the
  // browser does not reload the page, so sign in again on the new fragment.
  window.addEventListener("hashchange", signIn);
})();
