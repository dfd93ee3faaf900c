"""Names of a tournament's live channel group (tournament level, so every app above may use it).

Services send a tournament's live events to this one group after commit; live consumers
subscribe to it, and each live process fans the group's events out to its match hubs
(``live.hub``)."""

from __future__ import annotations


def tournament_group(tournament_id: int) -> str:
    return f"tournament-{tournament_id}"
