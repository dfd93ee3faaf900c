// A co-director invitation is /invite/#<key>: the key is in the fragment, which the browser
// never sends to a server, so no access log and no Referer sees it. This script forgets it from
// the address bar (keeping it in this tab's sessionStorage, so a reload, a change of language or
// "sign out and continue" still finds it), asks the server whether the invitation still works
// (POST op=check, CSRF token from the form) and then shows the sign-up form with the key in its
// hidden field, or says why not.
(function () {
  "use strict";
  var STORE = "director-invitation-key";
  function stored(value) {
    try {
      if (value === undefined) { return window.sessionStorage.getItem(STORE) || ""; }
      if (value) { window.sessionStorage.setItem(STORE, value); } else { window.sessionStorage.removeItem(STORE); }
    } catch (e) { /* storage refused (private mode): the fragment alone still works */ }
    return "";
  }
  function takeFragment() {
    var key = window.location.hash.replace(/^#/, "");
    if (key) {
      stored(key);
      if (window.history && window.history.replaceState) {
        window.history.replaceState(null, "", window.location.pathname);
      }
    }
    return key;
  }
  var fromLink = takeFragment();
  var form = document.getElementById("invite-form");
  var status = document.getElementById("invite-status");
  var keyInput = document.getElementById("invite-key");
  if (!form || !status || !keyInput) { return; }  // a refusal: nothing to sign up for
  function say(text) { status.textContent = text; }
  function check(key) {
    keyInput.value = key;
    form.hidden = true;
    say(status.getAttribute("data-checking"));
    var body = new URLSearchParams();
    body.set("op", "check");
    body.set("key", key);
    var token = form.querySelector("input[name='csrfmiddlewaretoken']");
    fetch(form.getAttribute("action"), {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": token ? token.value : "" },
      body: body
    }).then(function (response) {
      return response.json().then(function (data) { return { ok: response.ok, data: data }; });
    }).then(function (result) {
      if (result.ok) {
        say(result.data.message);
        form.hidden = false;
        var first = document.getElementById("id_username");
        if (first) { first.focus(); }
      } else {
        stored(null);
        say((result.data.error && result.data.error.message) || status.getAttribute("data-missing"));
      }
    }).catch(function () { say(status.getAttribute("data-offline")); });
  }
  if (fromLink) {
    check(fromLink);
  } else if (!keyInput.value) {
    var kept = stored();
    if (kept) { check(kept); } else { say(status.getAttribute("data-missing")); }
  }
  // A link pasted into this open tab changes only the fragment: the page does not reload.
  window.addEventListener("hashchange", function () {
    var key = takeFragment();
    if (key) { check(key); }
  });
})();
