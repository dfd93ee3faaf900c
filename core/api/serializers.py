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
