"""The referee page's partnerships (R42, R43): who plays with whom, and the names the page
uses to explain a hand's outcome before it is submitted.

Under ``teams = partners`` seats A and C form partnership AC and seats B and D form BD (R42).
In a pairs event (T9) the partnership's registered name, if any, is shown with the players.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from scoring.engine import Ruleset
from scoring.engine.rules import Teams
from tournament.partnerships import partnership_label

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
        return f"{self.letters} · {partnership_label(self.pair_name, self.names)}"


def partnership_sides(
    match: Any,
    ruleset: Ruleset,
    names: Sequence[str],
    scores: Sequence[int],
    pair_names: Mapping[int, str] | None = None,
) -> tuple[SideView, ...]:
    """The two partnerships of a partnership match, ``()`` for an individual one (R42).
    ``pair_names`` (seat 0 and 1 -> registered partnership name) when the caller loaded them
    for many matches at once (:func:`pair_names_by_match`); else one query here."""
    if ruleset.teams is not Teams.PARTNERS:
        return ()
    return table_sides(match, names, scores, pair_names)


def table_sides(
    match: Any,
    names: Sequence[str],
    scores: Sequence[int],
    pair_names: Mapping[int, str] | None = None,
) -> tuple[SideView, ...]:
    """:func:`partnership_sides` of a match the caller knows is a partnership match (R42):
    the live pages read it off the match (its frozen ruleset, or a pairs stage, T9) without
    parsing a ruleset or loading the tournament per match. ``()`` unless four seats."""
    if match.n_players != 4 or len(names) != 4:
        return ()
    if pair_names is None:
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
    """Registered partnership names of seats A and B in a pairs event (one query beyond the
    match's seats): :func:`pair_names_by_match` for one match."""
    return pair_names_by_match([match]).get(match.pk, {})


def pair_names_by_match(matches: Sequence[Any]) -> dict[int, dict[int, str]]:
    """Match id -> seat 0 and 1 -> registered partnership name, for the matches of pairs
    events (T9); one query for them all when their ``seats`` are prefetched."""
    seats = {
        m.pk: {s.seat: s.entry_id for s in m.seats.all()}
        for m in matches
        if getattr(getattr(m, "tournament", None), "entry_format", "") == "pairs"
    }
    if not seats:
        return {}
    names = pair_names_by_entry([e for by_seat in seats.values() for e in by_seat.values()])
    return {
        pk: {k: names.get(by_seat.get(k, 0), "") or "" for k in (0, 1)}
        for pk, by_seat in seats.items()
    }


def pair_names_by_entry(entry_ids: Sequence[int]) -> dict[int, str]:
    """Entry id -> its partnership's registered name ("" if none) in a pairs event (T9), for
    the players of ``entry_ids`` who play for one; one query (none for no ids)."""
    if not entry_ids:
        return {}
    from tournament.models import PartnershipMember

    return {
        entry_id: name or ""
        for entry_id, name in PartnershipMember.objects.filter(
            entry_id__in=list(entry_ids)
        ).values_list("entry_id", "partnership__name")
    }


def partnership_result(sides: Sequence[SideView]) -> str:
    """The finished match's result by partnership (R42), or ``""``."""
    won = [s for s in sides if s.is_winner]
    if not won:
        return ""
    return _("%(side)s win the match (R42)") % {"side": won[0].label}
