"""Health probes, the home page and the HTML error pages."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

logger = logging.getLogger(__name__)


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


def _api_error(request: HttpRequest, status: int, code: str, message: str) -> HttpResponse | None:
    """Under ``/api/`` an error is the API's JSON shape (core/api/exception_handler.py)."""
    if not request.path.startswith("/api/"):
        return None
    return JsonResponse({"error": {"code": code, "message": message, "fields": {}}}, status=status)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    # No route matched (e.g. /api/matches/abc/): DRF never saw the request.
    api = _api_error(request, 404, "not_found", "No API endpoint at this address.")
    return api or render(request, "404.html", status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    api = _api_error(request, 500, "server_error", "Server error.")
    return api or render(request, "500.html", status=500)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """``CSRF_FAILURE_VIEW``: a cookie-authenticated write without its CSRF token. Under
    ``/api/`` the API's JSON shape (the session login documents the rule), else Django's page."""
    from django.views.csrf import csrf_failure as django_csrf_failure

    api = _api_error(
        request,
        403,
        "csrf_failed",
        "CSRF check failed: send the csrftoken cookie's value in the X-CSRFToken header "
        f"({reason}).",
    )
    return api or django_csrf_failure(request, reason=reason)
