"""Webhook endpoints, their delivery outbox, and players' e-mail addresses (per entry).

The delivery table is the outbox: a row is written for every (endpoint, event) right after the
event's transaction commits, and it is the row, not a broker message, that guarantees the
delivery. A Celery task sends it; the beat sweep re-enqueues every row still pending after its
due time, so a lost message or a killed worker delays a delivery but never loses it
(docs/webhooks.md).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.models import BaseModel
from tournament.models import Entry, Player, Tournament


class WebhookEvent(models.TextChoices):
    ROUND_PUBLISHED = "round_published", "Round published"
    MATCH_FINISHED = "match_finished", "Match finished"
    HAND_RECORDED = "hand_recorded", "Hand recorded"
    # Sent on demand by the director's "Send a test event" button; no endpoint subscribes to it.
    PING = "ping", "Test event (ping)"


class WebhookEndpoint(BaseModel):
    """A receiver URL of one tournament, with the secret that signs what it is sent."""

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="webhook_endpoints"
    )
    url = models.URLField(max_length=500)
    # Kept as entered: HMAC needs the secret itself. Shown to the director once, at creation.
    secret = models.CharField(max_length=80, editable=False)
    events = models.JSONField(default=list)
    description = models.CharField(max_length=120, blank=True)
    active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    disabled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "id"]
        indexes = [models.Index(fields=["tournament", "active"])]

    def __str__(self) -> str:
        return self.url


class WebhookDelivery(BaseModel):
    """One event for one endpoint: the outbox row and its delivery log."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"  # gave up after the last retry
        CANCELLED = "cancelled", "Cancelled"  # the endpoint was disabled first

    # Sent as the X-Cutthroat-Delivery header: the same on every attempt, so receivers dedupe.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.CharField(max_length=32, choices=WebhookEvent.choices)
    # What happened, once per endpoint: a repeated domain event finds the row already there.
    event_key = models.CharField(max_length=120)
    payload = models.JSONField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField()
    # A sender's lease: while it is in the future another sender leaves the row alone.
    locked_until = models.DateTimeField(null=True, blank=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event_key"], name="webhook_event_once"),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="webhook_delivery_due",
            ),
            models.Index(fields=["endpoint", "-created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.event} → {self.endpoint_id} ({self.status})"


class EntryContact(BaseModel):
    """A player's e-mail address for one tournament's notifications (the round's table), kept
    apart from the public player identity: it is never shown on a public page nor in an
    export.

    It belongs to the entry, not to the player: players are shared between tournaments, and a
    director who enters another event's player must neither read nor change the address that
    event's director set (so each event keeps its own, and a director sees only their own
    tournament's)."""

    entry = models.OneToOneField(Entry, on_delete=models.CASCADE, related_name="contact")
    email = models.EmailField()
    # The language of the player's e-mails (a code of settings.LANGUAGES); blank: the
    # tournament's default (MailSettings), else the site's.
    language = models.CharField(max_length=8, blank=True, default="", choices=settings.LANGUAGES)

    def __str__(self) -> str:
        return f"entry {self.entry_id}: {self.email}"


class MailSettings(BaseModel):
    """A tournament's e-mail defaults: the language of the round e-mails of players whose own
    language is not known (blank: the site's ``LANGUAGE_CODE``)."""

    tournament = models.OneToOneField(
        Tournament, on_delete=models.CASCADE, related_name="mail_settings"
    )
    language = models.CharField(max_length=8, blank=True, default="", choices=settings.LANGUAGES)

    def __str__(self) -> str:
        return f"{self.tournament_id}: {self.language or '-'}"


class RoundEmail(models.Model):
    """One e-mail per (round, player): the send is recorded, so a repeated event mails once."""

    round_id = models.BigIntegerField()
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    email = models.EmailField()
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round_id", "player"], name="round_email_once"),
        ]

    def __str__(self) -> str:
        return f"round {self.round_id} → {self.email}"
