"""What a browser may keep of an answer given to someone signed in (docs/security.md, "What
browsers keep").

A director's pages show players' e-mail addresses, the action log, webhooks and settings; a
referee's pages show their matches; the API answers who the caller is and which credentials
exist. On a laptop shared at a venue the next person could read those from the browser's disk
cache, and a proxy between the venue and the site could keep them. So every answer to a
request **made with credentials** gets ``Cache-Control: private, no-store`` unless its view
chose its own ``Cache-Control``:

* a **session cookie** (``SESSION_COOKIE_NAME``): a signed-in account or a referee link
  session. The cookie alone decides, as it does for the proxy cache in deploy/nginx (a
  session cookie or an ``Authorization`` header goes past it), so no session is loaded here
  and an anonymous spectator's answer is untouched;
* an ``Authorization`` header: a referee's API token (``Token``/``Bearer``).

A view that sets its own header keeps it, because it knows what its feature needs: the live
pages and API (``live.http``: ``private, no-cache`` / ``public, no-cache``, revalidated by ETag,
public data), the circuits' pages, the answers showing a secret once (``no-store``) and the
``never_cache`` pages. Static files never reach this middleware (WhiteNoise answers first).
Anonymous answers keep whatever they had, so the public pages cache as before.

A 304 is covered too: ``private, no-store`` on a revalidation answer only tells the browser
not to keep a copy, and the director dashboard (the one director page that revalidates)
keeps its ETag in its script, not in the browser's cache (``scoring.views``).
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.utils.cache import patch_cache_control


def request_has_credentials(request: HttpRequest) -> bool:
    """True when the request carries a session cookie or an ``Authorization`` header."""
    return bool(
        request.COOKIES.get(settings.SESSION_COOKIE_NAME) or request.META.get("HTTP_AUTHORIZATION")
    )


class PrivateResponsesMiddleware:
    """``Cache-Control: private, no-store`` on answers to requests made with credentials
    whose view set no ``Cache-Control`` of its own (module docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if "Cache-Control" not in response and request_has_credentials(request):
            patch_cache_control(response, private=True, no_store=True)
        return response
