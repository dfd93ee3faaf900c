"""The steps a stage plan returns (:class:`NextStep`) and their actions, shared by the
individual planner (:mod:`brackets.services.planning`) and the pairs planner
(:mod:`brackets.services.pairs_planning`), so the pairs planner does not import the individual
one (which hands it a pairs stage): no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from brackets.engine import Placement, Seating
from brackets.engine.pairs import PairSeating

WAIT = "wait"
PUBLISH_ROUND = "publish_round"
FINISH_STAGE = "finish_stage"
FINISHED = "finished"


class SeatedTable(Protocol):
    """A table to publish: its number and the players in seat (= play) order."""

    @property
    def number(self) -> int: ...

    @property
    def seats(self) -> tuple[int, ...]: ...


@dataclass(frozen=True, slots=True)
class NextStep:
    """What follows in a stage; ``action`` is one of WAIT, PUBLISH_ROUND, FINISH_STAGE, FINISHED.

    ``follows_round_id`` is the round whose follow-up this is (it gets ``advanced_at``).
    ``eliminated`` are the places of players going out now (a knockout round's losers, or the
    stage's non-advancing players); ``advanced`` the players going on to the next stage, in
    order (their seeds there).
    """

    action: str
    message: str
    follows_round_id: int | None = None
    round_number: int | None = None
    round_kind: str | None = None
    seating: Seating | PlayoffSeating | PairSeating | None = None
    advancing: int | None = None
    playoff_players: tuple[int, ...] = ()
    rng_seed: int | None = None
    eliminated: tuple[Placement, ...] = ()
    out_round: int | None = None
    advanced: tuple[int, ...] = ()
    extra: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PlayoffTable:
    """A play-off table: like the engine's :class:`Table` but may seat 2 players (R2)."""

    number: int
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayoffSeating:
    tables: tuple[PlayoffTable, ...]
    byes: tuple[int, ...] = ()

    def players(self) -> list[int]:
        return [p for t in self.tables for p in t.seats]


def stage_complete_message(stage: str, advanced: int, out: int, *, pairs: bool = False) -> str:
    """ "Qualifying is complete: 8 players go on, 12 are out (T6)." in the page's language, with
    partnerships in a pairs stage (T10); a stage nobody leaves it for (the event's last) says
    its places are final (T5, T10)."""
    if advanced == 0:
        if pairs:
            return _("%(stage)s is complete: its places are the final places (T10).") % {
                "stage": stage
            }
        return _("%(stage)s is complete: its places are the final places (T5).") % {"stage": stage}
    if pairs:
        went = ngettext("%(n)s partnership goes on", "%(n)s partnerships go on", advanced) % {
            "n": advanced
        }
    else:
        went = ngettext("%(n)s player goes on", "%(n)s players go on", advanced) % {"n": advanced}
    gone = ngettext("%(n)s is out", "%(n)s are out", out) % {"n": out}
    if pairs:
        return _("%(stage)s is complete: %(went)s, %(gone)s (T10).") % {
            "stage": stage,
            "went": went,
            "gone": gone,
        }
    return _("%(stage)s is complete: %(went)s, %(gone)s (T6).") % {
        "stage": stage,
        "went": went,
        "gone": gone,
    }


# A next step's counts, each with its own plural form (English "1 table", Spanish "1 mesa"),
# so a message never reads "1 tables" or "bye(s)".
def tables_text(n: int, *, pairs: bool = False) -> str:
    if pairs:
        return ngettext(
            "%(n)s table of two partnerships", "%(n)s tables of two partnerships", n
        ) % {"n": n}
    return ngettext("%(n)s table", "%(n)s tables", n) % {"n": n}


def byes_text(n: int) -> str:
    return ngettext("%(n)s bye", "%(n)s byes", n) % {"n": n}
