"""The referee page's partnerships (R42, R43): who plays with whom, and the names the page
uses to explain a hand's outcome before it is submitted.

Under ``teams = partners`` seats A and C form partnership AC and seats B and D form BD (R42).
In a pairs event (T9) the partnership's registered name, if any, is shown with the players.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from scoring.engine import Ruleset
from scoring.engine.rules import Teams

SIDES = ("AC", "BD")


@dataclass(frozen=True)
class SideView:
    """One partnership at the table: ``AC`` (seats 0 and 2) or ``BD`` (seats 1 and 3)."""

    index: int
    letters: str
    names: tuple[str, str]
    pair_name: str
    score: int
    is_winner: bool

    @property
    def label(self) -> str:
        """``AC · Ana & Carla`` (with the registered name in a pairs event)."""
        players = " & ".join(self.names)
        who = f"{self.pair_name} ({players})" if self.pair_name else players
        return f"{self.letters} · {who}"


def partnership_sides(
    match: Any, ruleset: Ruleset, names: Sequence[str], scores: Sequence[int]
) -> tuple[SideView, ...]:
    """The two partnerships of a partnership match, ``()`` for an individual one (R42)."""
    if ruleset.teams is not Teams.PARTNERS or match.n_players != 4 or len(names) != 4:
        return ()
    pair_names = _pair_names(match)
    winner = match.winner_seat if match.status == "finished" else None
    return tuple(
        SideView(
            index=k,
            letters=SIDES[k],
            names=(names[k], names[k + 2]),
            pair_name=pair_names.get(k, ""),
            score=scores[k] if k < len(scores) else 0,
            is_winner=winner is not None and winner % 2 == k,
        )
        for k in (0, 1)
    )


def _pair_names(match: Any) -> dict[int, str]:
    """Registered partnership names of seats A and B in a pairs event (one query)."""
    tournament = getattr(match, "tournament", None)
    if tournament is None or getattr(tournament, "entry_format", "") != "pairs":
        return {}
    from tournament.models import PartnershipMember

    seats: dict[int, int] = dict(match.seats.values_list("seat", "entry_id"))
    names: dict[int, str] = dict(
        PartnershipMember.objects.filter(entry_id__in=list(seats.values())).values_list(
            "entry_id", "partnership__name"
        )
    )
    return {k: names.get(seats.get(k, 0), "") or "" for k in (0, 1)}


def partnership_result(sides: Sequence[SideView]) -> str:
    """The finished match's result by partnership (R42), or ``""``."""
    won = [s for s in sides if s.is_winner]
    if not won:
        return ""
    return _("%(side)s win the match (R42)") % {"side": won[0].label}
