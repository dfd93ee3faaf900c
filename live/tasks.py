"""Celery tasks of the live app: interfaces that take ids and call one function (STYLE.md).

Idempotent by construction: warming builds documents under ``(tournament, version)`` keys, and
building a key that already exists reads it and does nothing else.
"""

from __future__ import annotations

from celery import shared_task

from live.presenters.documents import live_cache_warm
from live.scope import PublicTournament
from tournament.models import Tournament


@shared_task(name="live.cache_warm", ignore_result=True)
def live_cache_warm_task(tournament_id: int) -> bool:
    """Build the spectator documents of the tournament's current version (a round went up)."""
    row = (
        Tournament.objects.filter(pk=tournament_id)
        .exclude(status=Tournament.Status.DRAFT)
        .values_list("slug", "version")
        .first()
    )
    if row is None:
        return False
    live_cache_warm(PublicTournament(id=tournament_id, slug=row[0], version=row[1]))
    return True
