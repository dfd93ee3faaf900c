"""Celery tasks of the scoring app: interfaces that take ids and call one service (STYLE.md).

Idempotent: announcing a finished match twice is harmless because receivers of
``match_finished`` must be idempotent (PITFALLS.md: acks_late + reject_on_worker_lost may run a
task twice).
"""

from __future__ import annotations

from celery import shared_task

from scoring import services


@shared_task(
    name="scoring.match_finished_notify",
    autoretry_for=(ConnectionError, TimeoutError),
    retry_backoff=True,
    max_retries=5,
)
def match_finished_notify(match_id: int) -> bool:
    """Send ``scoring.signals.match_finished`` for a finished match (brackets advances)."""
    return services.match_finished_announce(match_id=match_id)
