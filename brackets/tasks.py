"""Celery tasks of the brackets app: interfaces that take ids and call one service (STYLE.md).

Both are idempotent (PITFALLS.md: with ``acks_late`` + ``reject_on_worker_lost`` a task killed
mid-way is delivered again and runs twice): ``round_advance`` locks the stage and round rows
and checks the done-marker ``Round.advanced_at``; a duplicate publish trips the unique
``(stage, number)`` constraint. ``rounds_reconcile`` runs on beat and catches what a lost task
(a crash between commit and publish, a dead worker) left undone.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from celery import shared_task
from django.db import OperationalError

from brackets import services


@shared_task(
    name="brackets.round_check",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, ConnectionError, TimeoutError),
    retry_backoff=True,
    max_retries=5,
)
def round_check(round_id: int) -> dict[str, Any]:
    """Close the round if its last match finished, and advance it (see ``round_advance``)."""
    return asdict(services.round_advance(round_id=round_id))


@shared_task(name="brackets.rounds_reconcile", acks_late=True, reject_on_worker_lost=True)
def rounds_reconcile() -> list[dict[str, Any]]:
    """Advance finished rounds that were not advanced (run by beat every minute)."""
    return [asdict(r) for r in services.rounds_reconcile()]
