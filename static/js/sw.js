/*
 * Service worker of the referee page (served at /sw.js by core.views.service_worker, so its
 * scope is the whole site; it only ever answers for what it cached, see below).
 *
 *   - Static files (/static/...): cache first, refreshed in the background, so the page's
 *     scripts and styles load with no network.
 *   - Referee pages: the page asks (postMessage {type: "cache", urls}) for its own URL, its
 *     panel and its assets to be cached. A navigation to a cached page goes to the network
 *     first and falls back to the cached copy when the network fails.
 *   - Nothing else is touched: API calls (POST /api/...) always go to the network; the page
 *     queues hands in IndexedDB itself (static/js/referee.js).
 */
"use strict";

var CACHE = "ct-referee-v1";

self.addEventListener("install", function () { self.skipWaiting(); });

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (n) {
        return n.indexOf("ct-referee-") === 0 && n !== CACHE;
      }).map(function (n) { return caches.delete(n); }));
    }).then(function () { return self.clients.claim(); })
  );
});

self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type !== "cache" || !Array.isArray(data.urls)) return;
  var urls = data.urls.filter(function (u) {
    try { return new URL(u, self.location.href).origin === self.location.origin; } catch (e) { return false; }
  });
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return Promise.all(urls.map(function (u) {
      return fetch(u, { credentials: "same-origin" }).then(function (res) {
        if (res.ok && !res.redirected) return cache.put(u, res); // never the sign-in page
        return null;
      }).catch(function () { return null; });
    }));
  }).then(function () {
    if (event.source) event.source.postMessage({ type: "cached", urls: urls });
  }));
});

function isStatic(url) { return url.pathname.indexOf("/static/") === 0; }

self.addEventListener("fetch", function (event) {
  var req = event.request;
  if (req.method !== "GET") return;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (isStatic(url)) {
    event.respondWith(caches.open(CACHE).then(function (cache) {
      return cache.match(req, { ignoreSearch: true, ignoreVary: true }).then(function (hit) {
        var fresh = fetch(req).then(function (res) {
          if (res.ok) cache.put(req, res.clone());
          return res;
        });
        if (hit) { fresh.catch(function () { return null; }); return hit; }
        return fresh;
      });
    }));
    return;
  }
  // Pages the referee page asked to keep: network first, the cached copy when offline.
  event.respondWith(caches.open(CACHE).then(function (cache) {
    return cache.match(req, { ignoreSearch: true, ignoreVary: true }).then(function (hit) {
      if (!hit) return fetch(req);
      return fetch(req).then(function (res) {
        // A redirect (the referee link ended: the sign-in page) is answered, never kept.
        if (res.ok && !res.redirected) cache.put(req, res.clone());
        return res;
      }, function () { return hit; });
    });
  }));
});
