"""Celery tasks of the live app: interfaces that take ids and call one function (STYLE.md).

Idempotent by construction: warming builds documents under ``(tournament, version)`` keys, and
building a key that already exists reads it and does nothing else.
"""

from __future__ import annotations

from celery import shared_task

from live.presenters.documents import live_cache_warm_step, warm_steps
from live.scope import PublicTournament
from tournament.models import Tournament


@shared_task(name="live.cache_warm", ignore_result=True)
def live_cache_warm_task(tournament_id: int, step: int = 0) -> bool:
    """Build the spectator documents of the tournament's current version (a round went up),
    one step of :func:`warm_steps` per task: each step queues the next.

    In steps because a whole warm of a 1,000-player event held a worker child for 1.3-3.4 s,
    and with both children warming (the rounds of other events) a round check waited for one
    of them: the next round went up 2-3 s late (bench/bench_rounds.py). A step takes a
    fraction of a second, so a round check (its own queue) waits for one step at most."""
    row = (
        Tournament.objects.filter(pk=tournament_id)
        .exclude(status=Tournament.Status.DRAFT)
        .values_list("slug", "version")
        .first()
    )
    steps = warm_steps()
    if row is None or not 0 <= step < len(steps):
        return False
    live_cache_warm_step(
        PublicTournament(id=tournament_id, slug=row[0], version=row[1]), steps[step]
    )
    if step + 1 < len(steps):
        live_cache_warm_task.delay(tournament_id, step + 1)
    return True
