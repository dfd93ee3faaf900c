"""Reads of a tournament's webhook receivers and their delivery log, for the director's
webhooks page and the webhooks API (STYLE.md: views read through selectors)."""

from __future__ import annotations

from django.db.models import QuerySet

from notify.models import WebhookDelivery, WebhookEndpoint
from tournament.models import Tournament


def webhook_endpoint_list(*, tournament: Tournament) -> QuerySet[WebhookEndpoint]:
    """The tournament's receivers, oldest first."""
    return WebhookEndpoint.objects.filter(tournament=tournament).order_by("id")


def webhook_delivery_list(
    *,
    tournament: Tournament,
    endpoint_id: int | None = None,
    status: str | None = None,
) -> QuerySet[WebhookDelivery]:
    """The tournament's deliveries, newest first, with their receiver; only one receiver's
    and only those in one state when asked. ``status`` must be a
    :class:`WebhookDelivery.Status` value (the callers refuse any other)."""
    deliveries = WebhookDelivery.objects.filter(endpoint__tournament=tournament).select_related(
        "endpoint"
    )
    if endpoint_id is not None:
        deliveries = deliveries.filter(endpoint_id=endpoint_id)
    if status is not None:
        deliveries = deliveries.filter(status=status)
    return deliveries.order_by("-created_at", "-id")


def webhook_ping_delivery(*, endpoint: WebhookEndpoint, event_key: str) -> WebhookDelivery:
    """The delivery a ping with ``event_key`` queued to ``endpoint``."""
    return WebhookDelivery.objects.get(endpoint=endpoint, event_key=event_key)
