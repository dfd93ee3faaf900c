"""Conditional GETs for the live pages and API: the tournament version is the ETag.

``live_conditional`` wraps a view with Django's ``condition``: the ETag comes from one indexed
query (:func:`live.scope.public_tournament_find`, whose answer the process may reuse for up to
``LIVE_VERSION_MAX_AGE`` = 1 s unless the client names a newer version in ``X-Live-Version``)
and nothing is rendered when it matches, so an unchanged page answers a bodiless 304 for the
price of that query or less. The resolved tournament is
left on the request for the view, which therefore never looks it up twice.

JSON bodies are byte-identical for a version (built once, :mod:`live.cache`): strong ETags, one
per representation (identity or gzip, ``Vary: Accept-Encoding``). HTML pages carry a
per-response CSRF token in the language switcher: weak ETags, ``private``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import patch_vary_headers
from django.utils.translation import get_language
from django.views.decorators.http import condition

from dominoes.digits import parse_int
from live.scope import PublicTournament, public_tournament_find

ATTR = "live_tournament"

JSON_CACHE_CONTROL = "public, no-cache"
HTML_CACHE_CONTROL = "private, no-cache"


_ACCEPTS_GZIP = re.compile(r"\bgzip\b")


def accepts_gzip(request: HttpRequest) -> bool:
    return bool(_ACCEPTS_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")))


def json_etag(t: PublicTournament, *, gzipped: bool = False) -> str:
    return f'"t{t.id}v{t.version}{"-gz" if gzipped else ""}"'


def html_etag(t: PublicTournament) -> str:
    return f'W/"t{t.id}v{t.version}-{get_language()}"'


def version_max_age() -> float:
    return float(getattr(settings, "LIVE_VERSION_MAX_AGE", 1.0))


def version_hint(request: HttpRequest) -> int | None:
    """The version the client knows exists (``X-Live-Version``, sent by live.js); a hint, so
    anything but 1-18 ASCII digits is ignored, as if it were missing."""
    return parse_int(request.META.get("HTTP_X_LIVE_VERSION", ""))


def request_tournament(request: HttpRequest | Any) -> PublicTournament:
    """The tournament ``live_conditional`` resolved for this request (DRF or Django request)."""
    raw = getattr(request, "_request", request)
    tournament: PublicTournament | None = getattr(raw, ATTR, None)
    if tournament is None:  # no ETag was made: missing or draft
        raise Http404("No such tournament.")
    return tournament


def live_conditional(*, html: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Answer 304 when ``If-None-Match`` names the current version; set the caching headers.

    A missing or draft tournament yields no ETag, and the view answers 404 itself.
    """

    def etag(request: HttpRequest, *args: Any, slug: str, **kwargs: Any) -> str | None:
        found = public_tournament_find(
            slug=slug, max_age=version_max_age(), at_least=version_hint(request)
        )
        if found is None:
            return None
        setattr(request, ATTR, found)
        return html_etag(found) if html else json_etag(found, gzipped=accepts_gzip(request))

    def decorator(view: Callable[..., Any]) -> Callable[..., Any]:
        conditional = condition(etag_func=etag)(view)

        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            response: HttpResponseBase = conditional(request, *args, **kwargs)
            if response.status_code in (200, 304) and getattr(request, ATTR, None):
                response.headers["Cache-Control"] = (
                    HTML_CACHE_CONTROL if html else JSON_CACHE_CONTROL
                )
                patch_vary_headers(
                    response, ("Accept-Language", "Cookie") if html else ("Accept-Encoding",)
                )
            return response

        return wrapper

    return decorator


def json_bytes_response(body: bytes, *, gzipped: bool = False) -> HttpResponse:
    response = HttpResponse(body, content_type="application/json")
    if gzipped:
        response.headers["Content-Encoding"] = "gzip"
    return response
