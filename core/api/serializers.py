"""Serializers every API app shares: the one error shape (core.api.exception_handler)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class ErrorBody(serializers.Serializer[dict[str, Any]]):
    code = serializers.CharField()
    message = serializers.CharField()
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField())
    )
    rule = serializers.CharField(required=False)


class ErrorOutput(serializers.Serializer[dict[str, Any]]):
    """Every API error: ``{"error": {"code", "message", "fields", "rule"?}}``."""

    error = ErrorBody()


def error_output_with(name: str, **extra: serializers.Field[Any, Any, Any, Any]) -> type[Any]:
    """An error shape whose ``error`` also carries ``extra`` (a 409's current state, issue 20):
    ``{"error": {"code", "message", "fields", "rule"?, **extra}}``, as component ``name``."""
    body = type(f"{name}Body", (ErrorBody,), dict(extra))
    return type(name, (serializers.Serializer,), {"error": body(), "__doc__": ErrorOutput.__doc__})
