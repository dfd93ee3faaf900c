"""How the director pages name a pairs event's tables, stages and rounds (T9, T10, R42).

A pairs table is two partnerships, AC (seats 0 and 2) against BD (seats 1 and 3), and both
partners hold their partnership's placing (``1, 3, 1, 3``): the pages list each partnership
once per table with its place there (1st or 2nd), instead of four players reading 1st, 1st,
3rd, 3rd. A pairs knockout plays down to one match between two partnerships, so its stage and
its last round are not "a final table". Individual events keep their rows and words.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.translation import gettext as _

from brackets.models import Round, Stage
from brackets.selectors.pair_roster import NamedPair
from brackets.selectors.pairs import side_places
from core.choice_labels import choice_label
from tournament.partnerships import partnership_label

if TYPE_CHECKING:
    from brackets.presenters.seat_line import SeatLine

SIDES = ("AC", "BD")


@dataclass(frozen=True, slots=True)
class SideLine:
    """One partnership at a pairs table (R42), named once (T9), with its place there."""

    letters: str
    """``AC`` (seats 0 and 2) or ``BD`` (seats 1 and 3)."""
    name: str
    """The partnership's registered name, "" if none."""
    seats: tuple[SeatLine, SeatLine]
    """The partners in seat order (A then C, or B then D): who sits where at this table."""
    players: tuple[SeatLine, SeatLine]
    """The same two in the partnership's registered order (T9): how a page listing
    partnerships names them, the same in every round though partners swap seats (T8)."""
    points: int | None
    """The partnership's score (both partners show it, R42)."""
    placing: int | None
    """1 or 2 at the finished table (1 and 1 when level, T3); ``None`` before."""
    won: bool
    goes_on: bool = False

    @property
    def label(self) -> str:
        """ "Los Primos (Ana & Bea)" or "Ana & Bea": the players who sat at this table, in
        registered order."""
        return partnership_label(self.name, [s.name for s in self.players])

    @property
    def seed(self) -> int | None:
        """The partnership's one seed where the seats carry it (the round preview, T8 over
        partnerships): both partners hold it."""
        return self.seats[0].seed

    @property
    def clubs(self) -> str:
        """The partners' clubs, each once: "Club A" or "Club A / Club B" ("" for none)."""
        return " / ".join(dict.fromkeys(s.club for s in self.seats if s.club))


def pair_sides(
    seats: Sequence[SeatLine], named: Sequence[NamedPair] | None, *, finished: bool
) -> tuple[SideLine, ...]:
    """The two partnerships of a four-seat table, AC then BD; ``()`` for any other table.
    ``named``: the table's two partnerships, AC then BD, as
    :meth:`brackets.selectors.pair_roster.Roster.table_pairs` names them (registered name,
    players in registered order); ``None`` leaves them unnamed, in seat order."""
    if len(seats) != 4:
        return ()
    places = side_places(seats, finished=finished)
    return tuple(
        SideLine(
            letters=SIDES[k],
            name=named[k].name if named else "",
            seats=(seats[k], seats[k + 2]),
            players=_registered_order((seats[k], seats[k + 2]), named[k] if named else None),
            points=seats[k].points,
            placing=places[k],
            won=places[k] == 1 and places[1 - k] == 2,
            goes_on=seats[k].goes_on or seats[k + 2].goes_on,
        )
        for k in (0, 1)
    )


def _registered_order(
    pair: tuple[SeatLine, SeatLine], named: NamedPair | None
) -> tuple[SeatLine, SeatLine]:
    """A side's two seats in the partnership's registered order (``named.entry_ids``)."""
    if named is None:
        return pair
    order = {e: i for i, e in enumerate(named.entry_ids)}
    first, second = sorted(pair, key=lambda s: order.get(s.entry_id, len(order)))
    return first, second


def round_kind_label(kind: str, *, pairs: bool) -> str:
    """The round's kind, translated; a pairs stage's final is one match between two
    partnerships, not a final table of four players (T10)."""
    if pairs and kind == Round.Kind.FINAL:
        return _("The final (two partnerships)")
    return choice_label(Round.Kind, kind)


def stage_kind_label(stage: Stage, field: int | None) -> str:
    """A stage's kind as the director's pages name it. ``field``: the players (partnerships)
    it starts from, when known (the previous stage's cut, or who it was seeded with). A
    knockout whose field is its final table is "Final table only" (T6), not a "table
    knockout to a final table" (user test); a pairs stage as :func:`pairs_stage_kind_label`."""
    if stage.pairs:
        return pairs_stage_kind_label(stage, field)
    if stage.kind == Stage.Kind.KNOCKOUT and field and field == stage.final_table_size:
        return _("Final table only")
    return choice_label(Stage.Kind, stage.kind)


def pairs_stage_kind_label(stage: Stage, previous_cut: int | None) -> str:
    """A pairs stage's kind (T10): its knockout plays partnerships two to a table down to the
    final between two; with a previous cut of two the stage is that final alone."""
    if stage.kind != Stage.Kind.KNOCKOUT:
        return choice_label(Stage.Kind, stage.kind)
    if previous_cut == 2:
        return _("The final only (top two partnerships)")
    return _("Partnership knockout to the final")
