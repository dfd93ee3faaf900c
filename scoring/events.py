"""Names and shapes of the live events the scoring services broadcast after commit.

The tournament's group is named by ``tournament.groups.tournament_group``. Consumers and pages
subscribe to these groups; only services send to them (STYLE.md §4). The
channel layer is at-most-once, so every event carries the match and tournament versions: a
client that sees a gap re-fetches (PITFALLS.md).
"""

from __future__ import annotations

from typing import Any

MATCH_UPDATE = "match.update"


def match_group(match_id: int) -> str:
    """The name of a match's hub in a live process. Nothing is sent to it through the channel
    layer: match events go to the tournament group, and the match's hub takes its own from
    the tournament's hub (``live.hub.Source``)."""
    return f"match-{match_id}"


def match_update_event(
    *, match_id: int, tournament_id: int, version: int, tournament_version: int
) -> dict[str, Any]:
    return {
        "type": MATCH_UPDATE,
        "match_id": match_id,
        "tournament_id": tournament_id,
        "version": version,
        "tournament_version": tournament_version,
    }
