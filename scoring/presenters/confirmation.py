"""The players' confirmation block of the referee page (issue 15; scoring/confirmation.py):
what the panel needs to let each seated player confirm - or dispute - the last hand on the
referee's phone, online or offline (static/js/referee.js queues the taps with the hands)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from scoring.models import HandConfirmation, Match
from tournament.models import Tournament


def confirmation_panel(
    match: Match, view: Any, hands: Sequence[Any], *, may_write: bool
) -> dict[str, Any] | None:
    """The block's context, or None when the match plays without confirmation (or the caller
    may not act at this table). A scheduled match shows the tournament's setting (frozen when
    its first hand starts it)."""
    mode = match.confirmation
    if match.status == Match.Status.SCHEDULED:
        mode = match.tournament.confirmation
    if not may_write or mode in ("", Tournament.Confirmation.OFF):
        return None
    if match.status not in (Match.Status.SCHEDULED, Match.Status.IN_PROGRESS):
        return None
    live = [h for h in hands if not h.void]
    last = live[-1] if live else None
    confirmed: list[int] = []
    if last is not None and match.confirmation_hold:
        confirmed = sorted(
            HandConfirmation.objects.filter(hand_id=last.pk).values_list("seat", flat=True)
        )
    recorded = (
        {
            "number": last.number,
            "poser": last.poser,
            "pose_tile": last.pose_tile,
            "end": last.end,
            "winner": last.winner if last.end == "domino" else None,
            "counts": last.counts,
        }
        if last is not None
        else None
    )
    return {
        "mode": mode,
        "hold": match.confirmation_hold,
        "number": last.number if last is not None else "",
        "confirmed_json": json.dumps(confirmed),
        "last_json": json.dumps(recorded),
        "seats": view.seats,
        "max_count": view.max_count,
    }
