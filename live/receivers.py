"""Warm the spectator cache when a round is published (PITFALLS.md: never release a round to
a hall of phones with a cold cache).

A :class:`brackets.models.Round` row is only ever created by publishing it, and the publishing
transaction bumps the tournament version last; so on commit of a transaction that created a
round, the current version is the published one, and the warm task builds its documents. The
task runs after commit (STYLE.md §4) and is idempotent.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from brackets.models import Round


def on_round_saved(sender: Any, *, instance: Round, created: bool, **kwargs: Any) -> None:
    if not created:
        return
    from live.tasks import live_cache_warm_task

    tournament_id = instance.stage.tournament_id
    transaction.on_commit(partial(live_cache_warm_task.delay, tournament_id), robust=True)
