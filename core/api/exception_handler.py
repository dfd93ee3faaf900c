"""One DRF exception handler: every API error has the same JSON shape.

{"error": {"code": "...", "message": "...", "fields": {"field": ["..."]}, "rule": "R7"?}}
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from core.exceptions import ApplicationError


def flatten_detail(detail: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF error detail (nested dicts/lists) → ``{"field.sub": ["message", ...]}``."""
    out: dict[str, list[str]] = {}
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            for k, v in flatten_detail(value, name).items():
                out.setdefault(k, []).extend(v)
    elif isinstance(detail, list):
        if all(not isinstance(d, (dict, list)) for d in detail):
            out.setdefault(prefix or "non_field_errors", []).extend(str(d) for d in detail)
        else:
            for i, item in enumerate(detail):
                for k, v in flatten_detail(item, f"{prefix}[{i}]").items():
                    out.setdefault(k, []).extend(v)
    else:
        out.setdefault(prefix or "non_field_errors", []).append(str(detail))
    return out


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, ApplicationError):
        return Response(exc.as_body(), status=exc.status_code)
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else {"non_field_errors": exc.messages}
        )
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        return None  # a bug: Django logs it and answers 500
    if isinstance(exc, exceptions.ValidationError):
        fields = flatten_detail(exc.detail)
        first = next(iter(fields.items()), ("", ["Invalid input."]))
        message = f"{first[0]}: {first[1][0]}" if first[0] != "non_field_errors" else first[1][0]
        body = {"code": "invalid", "message": message, "fields": fields}
    elif isinstance(exc, exceptions.APIException):
        detail = exc.detail
        message = str(detail.get("detail", detail)) if isinstance(detail, dict) else str(detail)
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else getattr(exc, "default_code", "error")
        body = {"code": code, "message": message, "fields": {}}
    else:  # pragma: no cover - DRF only returns responses for APIException
        body = {"code": "error", "message": str(exc), "fields": {}}
    response.data = {"error": body}
    if response.status_code == status.HTTP_429_TOO_MANY_REQUESTS:
        response.data["error"]["code"] = "throttled"
    return response
