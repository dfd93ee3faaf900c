"""Celery tasks of the ratings app: interfaces that take ids and call one service (STYLE.md).

Both are idempotent: rating a match already rated with the same result changes nothing, and a
rebuild from any point gives the same ratings (``ratings.services``).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from celery import shared_task
from django.db import OperationalError

from ratings import services

#: A task that survives a worker's death and a database or broker blip (idempotent work).
_RETRYING: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (OperationalError, ConnectionError, TimeoutError),
    "retry_backoff": True,
    "max_retries": 5,
}


@shared_task(name="ratings.rating_update", **_RETRYING)
def rating_update(match_id: int) -> dict[str, Any]:
    return asdict(services.rating_update_for_match(match_id=match_id))


@shared_task(name="ratings.player_start_changed", **_RETRYING)
def player_start_changed(player_id: int) -> dict[str, Any]:
    return asdict(services.ratings_rebuild_for_player(player_id=player_id))


@shared_task(name="ratings.ratings_reconcile", acks_late=True, reject_on_worker_lost=True)
def ratings_reconcile() -> dict[str, Any]:
    return asdict(services.ratings_reconcile())
