"""The round clock (T2, T3) as the director's dashboard and the referee's phone show it.

The same dict as the spectators' round JSON (``live.selectors``) gives the partial
templates/live/_clock.html, which static/js/clock.js counts down: one clock on every page.
Scoring never imports brackets, so the round's fields come in by value (the dashboard's
annotations, or the ``round_link`` relation the brackets app declares on Match).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.core.exceptions import ObjectDoesNotExist


def round_clock(
    *,
    time_limit: int | None,
    clock_started_at: datetime | None,
    time_called_at: datetime | None,
    open_tables: int | None = None,
    status: str | None = None,
) -> dict[str, Any] | None:
    """The clock of a round, or None when it has none (no time limit and time never called).
    ``clock_ends_at`` is the start plus the limit, as ``Round.clock_ends_at``; ``status`` the
    round's (``"closed"``: every result is in, and the partial shows no clock, T2, T3)."""
    if not time_limit and time_called_at is None:
        return None
    ends = (
        clock_started_at + timedelta(minutes=time_limit)
        if clock_started_at is not None and time_limit
        else None
    )
    return {
        "time_limit": time_limit,
        "clock_ends_at": ends.isoformat() if ends else None,
        "time_called_at": time_called_at.isoformat() if time_called_at else None,
        "open_tables": open_tables,
        "status": status,
    }


def match_round_clock(match: Any) -> dict[str, Any] | None:
    """The clock of the round ``match`` is played in (read through ``round_link__round``,
    which the caller selects with the match: no query), or None outside any round."""
    try:
        rnd = match.round_link.round
    except ObjectDoesNotExist:
        return None
    return round_clock(
        time_limit=rnd.time_limit,
        clock_started_at=rnd.clock_started_at,
        time_called_at=rnd.time_called_at,
        status=rnd.status,
    )
