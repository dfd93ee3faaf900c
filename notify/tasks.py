"""Celery tasks of the notify app: interfaces that take ids and call one service (STYLE.md).

``webhook_deliver`` makes one attempt; a failure is retried by a countdown when the backoff is
short and by the sweep otherwise (the row's ``next_attempt_at`` is the truth, not the message).
Every task is idempotent: a redelivered message finds its row delivered, leased or not due.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import OperationalError

from notify import emails, services


@shared_task(
    bind=True,
    name=services.WEBHOOK_DELIVER_TASK,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    max_retries=None,
)
def webhook_deliver(self: Any, delivery_id: str) -> dict[str, Any]:
    result = services.delivery_send(delivery_id=delivery_id)
    inline_max = float(getattr(settings, "WEBHOOK_RETRY_INLINE_MAX_SECONDS", 60))
    eager = bool(self.request.is_eager)  # eager (embedded): no re-enqueue loop in-process
    # Longer waits: the sweep enqueues the row when it is due (no long ETA in the broker).
    if (
        not eager
        and result.outcome in ("retry", "locked")
        and result.retry_in is not None
        and result.retry_in <= inline_max
    ):
        services.enqueue(delivery_id, countdown=result.retry_in)
    return asdict(result)


@shared_task(name="notify.webhooks_sweep", acks_late=True, reject_on_worker_lost=True)
def webhooks_sweep() -> list[str]:
    return services.outbox_sweep()


@shared_task(name="notify.webhooks_backfill", acks_late=True, reject_on_worker_lost=True)
def webhooks_backfill() -> int:
    return services.outbox_backfill()


@shared_task(name="notify.webhooks_prune", acks_late=True, reject_on_worker_lost=True)
def webhooks_prune() -> int:
    return services.outbox_prune()


@shared_task(
    name="notify.round_emails",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, ConnectionError, TimeoutError, OSError),
    retry_backoff=True,
    max_retries=5,
)
def round_emails(round_id: int) -> dict[str, int]:
    return emails.round_emails_send(round_id=round_id)
