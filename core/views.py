"""Health probes, the home page and the HTML error pages."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.views.decorators.cache import never_cache

logger = logging.getLogger(__name__)


def favicon(request: HttpRequest) -> HttpResponse:
    """``/favicon.ico``: the site's icon (templates/base.html names it; a browser still asks
    for this path where a response names none, as the API's JSON)."""
    return HttpResponsePermanentRedirect(static("icons/domino.svg"))


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness: the process answers. Touches no dependency."""
    return JsonResponse({"status": "ok"})


def _check_database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _check_redis() -> str | None:
    if not settings.REDIS_URL:
        return None
    import redis

    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2
        )
        client.ping()
        client.close()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


@never_cache
def readyz(request: HttpRequest) -> JsonResponse:
    """Readiness: the database and, when configured, Redis answer. 503 names what failed."""
    checks: dict[str, str] = {}
    failures: dict[str, str] = {}
    for name, check in (("database", _check_database), ("redis", _check_redis)):
        if name == "redis" and not settings.REDIS_URL:
            checks[name] = "not configured"
            continue
        error = check()
        if error is None:
            checks[name] = "ok"
        else:
            checks[name] = "failing"
            failures[name] = error
            logger.warning("readiness check %s failed: %s", name, error)
    status = 200 if not failures else 503
    body: dict[str, object] = {"status": "ok" if not failures else "unavailable", "checks": checks}
    if failures:
        body["failing"] = sorted(failures)
        body["errors"] = failures
    return JsonResponse(body, status=status)


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "core/home.html", {})


def api_error(request: HttpRequest, status: int, code: str, message: str) -> HttpResponse | None:
    """Under ``/api/`` an error is the API's JSON shape (core/api/exception_handler.py)."""
    if not request.path.startswith("/api/"):
        return None
    return JsonResponse({"error": {"code": code, "message": message, "fields": {}}}, status=status)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    # No route matched (e.g. /api/matches/abc/): DRF never saw the request.
    api = api_error(request, 404, "not_found", "No API endpoint at this address.")
    return api or render(request, "404.html", status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    api = api_error(request, 500, "server_error", "Server error.")
    return api or render(request, "500.html", status=500)


def service_worker(request: HttpRequest) -> HttpResponse:
    """``/sw.js``: the referee page's service worker (static/js/sw.js).

    Served from the root because a worker only controls pages under its own path: at
    /static/js/sw.js it could not serve the referee pages offline. Not cached by the browser's
    HTTP cache (``no-cache``), so a new worker is picked up on the next visit.
    """
    from django.contrib.staticfiles import finders

    found = finders.find("js/sw.js")
    path = found if isinstance(found, str) else None
    if path is None:
        return HttpResponse(status=404)
    with open(path, encoding="utf-8") as fh:
        body = fh.read()
    response = HttpResponse(body, content_type="application/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response
