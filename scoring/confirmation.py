"""Confirmation at the table (issue 15): the services players and directors call, and the
dispute queue's reads. The model and the services live in :mod:`scoring.services.confirmations`
(the recording path's hooks in :mod:`scoring.services.confirmation_gates`); this module is the
import path the views use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from scoring.models import HandConfirmation, Match, ResultDispute, Seat
from scoring.services.confirmations import (
    RESOLUTIONS,
    ConfirmationResult,
    _hand_version,
    dispute_resolve,
    hand_confirm,
    hand_dispute,
    versions_differ,
)
from tournament.models import Tournament

__all__ = [
    "RESOLUTIONS",
    "ConfirmationResult",
    "DisputeRow",
    "dispute_resolve",
    "disputes_for",
    "disputes_open_count",
    "hand_confirm",
    "hand_dispute",
    "match_confirmations",
]


@dataclass(frozen=True, slots=True)
class DisputeRow:
    dispute: ResultDispute
    recorded: dict[str, Any]
    claimed: dict[str, Any]
    seat_names: Sequence[str]

    @property
    def differs(self) -> tuple[str, ...]:
        """The fields on which the player's version differs from the recorded hand: what
        the director decides on (a phone shows them before the table's columns)."""
        return versions_differ(self.recorded, self.claimed)


def disputes_for(*, tournament: Tournament, open_only: bool = True) -> list[DisputeRow]:
    """The tournament's disputes, oldest first, with both versions (three queries)."""
    qs = ResultDispute.objects.filter(match__tournament=tournament).select_related(
        # the round link titles the match in the page's language (core.templatetags.titles)
        "hand",
        "match",
        "match__table",
        "match__round_link__round__stage",
    )
    if open_only:
        qs = qs.filter(status=ResultDispute.Status.OPEN)
    disputes = list(qs.order_by("created_at", "id"))
    seats: dict[int, dict[int, str]] = {}
    for row in Seat.objects.filter(match_id__in={d.match_id for d in disputes}).select_related(
        "entry__player"
    ):
        seats.setdefault(row.match_id, {})[row.seat] = str(row.entry.player)
    out = []
    for d in disputes:
        names = seats.get(d.match_id, {})
        out.append(
            DisputeRow(
                d,
                _hand_version(d.hand),
                dict(d.claimed),
                [names.get(i, f"seat {i}") for i in range(d.match.n_players)],
            )
        )
    return out


def disputes_open_count(*, tournament_id: int) -> int:
    """How many of the tournament's disputes are open: the rows of the dispute queue, counted
    for the director's Disputes tab on every director page (one query)."""
    return ResultDispute.objects.filter(
        match__tournament_id=tournament_id, status=ResultDispute.Status.OPEN
    ).count()


def match_confirmations(*, match: Match) -> list[int]:
    """The seats that confirmed the match's last live hand (one query)."""
    return sorted(
        HandConfirmation.objects.filter(
            hand__match=match, hand__number=match.hands_count, hand__void=False
        ).values_list("seat", flat=True)
    )
