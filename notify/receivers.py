"""Handlers of the domain events (``core.events``): each writes the webhook outbox rows of
the event (the delivery log) and enqueues their sends; a published round also enqueues the
players' table e-mails. They run after the event's commit; a handler that never ran (the
process died in between) is made up by ``notify.webhooks_backfill``."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from notify import services
from notify.models import WebhookEvent


def on_round_published(sender: Any, *, round_id: int, tournament_id: int, **kwargs: Any) -> None:
    from notify.tasks import round_emails

    services.deliveries_write(
        tournament_id=tournament_id, event=WebhookEvent.ROUND_PUBLISHED, round_id=round_id
    )
    options: dict[str, Any] = {}
    if queue := getattr(settings, "NOTIFY_TASK_QUEUE", ""):
        options["queue"] = queue
    round_emails.apply_async((round_id,), **options)


def on_match_finished(sender: Any, *, match_id: int, tournament_id: int, **kwargs: Any) -> None:
    services.deliveries_write(
        tournament_id=tournament_id, event=WebhookEvent.MATCH_FINISHED, match_id=match_id
    )


def on_hand_recorded(
    sender: Any, *, match_id: int, tournament_id: int, hand_number: int, **kwargs: Any
) -> None:
    services.deliveries_write(
        tournament_id=tournament_id,
        event=WebhookEvent.HAND_RECORDED,
        match_id=match_id,
        hand_number=hand_number,
    )
