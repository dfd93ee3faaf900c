"""Answers made outside DRF under ``/api/`` use the API's error shape (JSON), not a page.

* CSRF failures (``CSRF_FAILURE_VIEW``): ``POST /api/auth/login/`` and ``/api/auth/logout/``
  are protected by Django's ``csrf_protect`` (they open and close a session), which refuses
  before DRF runs.
* Sign-in lockouts (``AXES_LOCKOUT_CALLABLE``): django-axes refuses a locked-out username and
  address (429) in its middleware; under ``/api/`` the answer is JSON with ``Retry-After``.

Elsewhere both keep Django's and django-axes' own pages.
"""

from __future__ import annotations

from typing import Any

from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.csrf import csrf_failure as django_csrf_failure


def _error(status: int, code: str, message: str) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message, "fields": {}}}, status=status)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if not request.path.startswith("/api/"):
        return django_csrf_failure(request, reason)
    return _error(
        403,
        "csrf_failed",
        "CSRF check failed: GET /api/auth/login/ first, then send its csrftoken cookie and "
        f"the same value in the X-CSRFToken header ({reason}).",
    )


def lockout(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    cool_off = get_cool_off(request)
    if not request.path.startswith("/api/"):
        context = {
            "failure_limit": get_failure_limit(request, credentials),
            "username": get_client_username(request, credentials) or "",
            "cooloff_timedelta": cool_off,
        }
        return render(request, settings.AXES_LOCKOUT_TEMPLATE, context, status=429)
    response = _error(
        429,
        "throttled",
        "Too many wrong passwords for this username from this address: wait and retry.",
    )
    if cool_off:
        response["Retry-After"] = str(int(cool_off.total_seconds()))
    return response
