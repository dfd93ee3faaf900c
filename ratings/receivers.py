"""Handlers of domain events (``core.events``): a finished or reopened match updates the
ratings (in a task; the update is idempotent, so a repeated event is harmless, and
``ratings_reconcile`` rates a match whose event was lost); a player's changed typed rating
(where their ratings start) rebuilds from their first rated match."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction


def on_match_changed(sender: Any, *, match_id: int, **kwargs: Any) -> None:
    from ratings.tasks import rating_update

    transaction.on_commit(partial(rating_update.delay, match_id), robust=True)


def on_player_rating_typed(sender: Any, *, player_id: int, **kwargs: Any) -> None:
    from ratings.tasks import player_start_changed

    transaction.on_commit(partial(player_start_changed.delay, player_id), robust=True)
