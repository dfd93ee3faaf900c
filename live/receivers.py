"""Handlers of domain events for the live app (``core.events``).

``round_published`` warms the spectator cache (PITFALLS.md: never release a round to a hall of
phones with a cold cache). The event is dispatched after the publishing transaction, which
bumped the tournament version last, has committed; so the current version is the published
one, and the warm task builds its documents. The task is idempotent; a lost warm only costs
the first readers an uncached build.
"""

from __future__ import annotations

from typing import Any


def on_round_published(sender: Any, *, tournament_id: int, **kwargs: Any) -> None:
    from live.tasks import live_cache_warm_task

    live_cache_warm_task.delay(tournament_id)
