"""Shapes of the webhooks API (directors only)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from notify.models import WebhookDelivery, WebhookEndpoint


class WebhookEndpointOutput(serializers.ModelSerializer[WebhookEndpoint]):
    """A receiver of the tournament's events. ``secret`` is filled ONCE, in the answer that
    creates the endpoint (receivers check each request's signature with it,
    docs/webhooks.md); every other answer gives null."""

    secret = serializers.SerializerMethodField(
        help_text="The signing secret: only in the answer that creates the endpoint."
    )
    events = serializers.ListField(child=serializers.CharField())

    class Meta:
        model = WebhookEndpoint
        fields = [
            "id",
            "url",
            "events",
            "description",
            "active",
            "secret",
            "created_at",
            "disabled_at",
        ]

    def get_secret(self, endpoint: WebhookEndpoint) -> str | None:
        shown: dict[int, str] = self.context.get("secrets", {})
        return shown.get(endpoint.pk)


class WebhookCreateInput(serializers.Serializer[Any]):
    """A new endpoint; the service checks the URL (http or https, a public address), the
    events and the limits, and answers 400 naming the field."""

    url = serializers.CharField(allow_blank=True, trim_whitespace=True, max_length=500)
    events = serializers.ListField(
        child=serializers.CharField(max_length=32), allow_empty=True, max_length=10
    )
    description = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=120
    )


class WebhookDeliveryOutput(serializers.ModelSerializer[WebhookDelivery]):
    """One event for one endpoint: the outbox row and its delivery log (the ``id`` is the
    ``X-Cutthroat-Delivery`` header, the same on every attempt)."""

    endpoint = serializers.IntegerField(source="endpoint_id", read_only=True)

    class Meta:
        model = WebhookDelivery
        fields = [
            "id",
            "endpoint",
            "event",
            "status",
            "attempts",
            "payload",
            "created_at",
            "next_attempt_at",
            "last_attempt_at",
            "delivered_at",
            "last_status_code",
            "last_error",
        ]
