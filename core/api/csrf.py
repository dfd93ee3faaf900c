"""CSRF failures under ``/api/`` answer the API's error shape (JSON 403), not Django's page.

``POST /api/auth/login/`` and ``/api/auth/logout/`` are protected by Django's ``csrf_protect``
(they open and close a session): a request without the ``csrftoken`` cookie and a matching
``X-CSRFToken`` header fails before DRF, so without this a client got an HTML page.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.csrf import csrf_failure as django_csrf_failure


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    if not request.path.startswith("/api/"):
        return django_csrf_failure(request, reason)
    message = (
        "CSRF check failed: GET /api/auth/login/ first, then send its csrftoken cookie and "
        f"the same value in the X-CSRFToken header ({reason})."
    )
    return JsonResponse(
        {"error": {"code": "csrf_failed", "message": message, "fields": {}}}, status=403
    )
