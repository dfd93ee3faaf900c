"""Reads of a tournament's webhook receivers and their delivery log, for the director's
webhooks page and the webhooks API, and of its players' e-mail addresses (STYLE.md: views
read through selectors)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from notify.models import EntryContact, WebhookDelivery, WebhookEndpoint
from tournament.models import Entry, Tournament


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


@dataclass(frozen=True, slots=True)
class ContactRow:
    """One entered player on the e-mail addresses page: the address and language set for
    this tournament's entry ("" when none), and whether, without one, the address of the
    site account linked to the player is used (the address itself is not shown)."""

    player_id: int
    name: str
    email: str
    language: str
    account_address: bool


def contact_rows(*, tournament: Tournament) -> list[ContactRow]:
    """The tournament's entered players by name, each with its entry's own contact (two
    queries). Only this tournament's entries' addresses: a player shared with another event
    shows nothing set there (contacts belong to the entry, notify.models.EntryContact)."""
    entries = list(
        Entry.objects.filter(tournament=tournament)
        .order_by("player__name", "player_id")
        .values_list("pk", "player_id", "player__name", "player__user__email")
    )
    contacts = {
        entry_id: (email, language)
        for entry_id, email, language in EntryContact.objects.filter(
            entry__tournament=tournament
        ).values_list("entry_id", "email", "language")
    }
    return [
        ContactRow(
            player_id=player_id,
            name=name,
            email=contacts.get(entry_id, ("", ""))[0],
            language=contacts.get(entry_id, ("", ""))[1],
            account_address=bool(account_email),
        )
        for entry_id, player_id, name, account_email in entries
    ]
