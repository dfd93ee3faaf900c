"""Webhooks in the admin (staff): endpoints without their secret, the delivery log, and
players' e-mail addresses (one per entry)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin

from notify.models import EntryContact, WebhookDelivery, WebhookEndpoint

if TYPE_CHECKING:  # the admin classes are generic only for the type checker
    _Admin = admin.ModelAdmin[Any]
else:
    _Admin = admin.ModelAdmin


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(_Admin):
    list_display = ("id", "tournament", "url", "active", "created_at")
    list_filter = ("active",)
    exclude = ("secret",)  # never displayed after creation


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(_Admin):
    list_display = ("id", "endpoint", "event", "status", "attempts", "created_at")
    list_filter = ("status", "event")
    readonly_fields = ("payload",)


@admin.register(EntryContact)
class EntryContactAdmin(_Admin):
    """One address per entry (a player in one tournament): staff see which event's it is."""

    list_display = ("entry", "tournament", "email", "language")
    list_select_related = ("entry__player", "entry__tournament")
    raw_id_fields = ("entry",)

    @admin.display(ordering="entry__tournament__name")
    def tournament(self, obj: EntryContact) -> str:
        return obj.entry.tournament.name
