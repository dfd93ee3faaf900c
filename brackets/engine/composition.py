"""How many tables of which size a round needs, and who sits out (T1).

Glossary:
    table plan -- the table sizes of a round (4-tables first, then 3-tables) and the number of
                  byes.
    bye        -- a player left without a table; worth a match win or nothing (T1, ByePolicy).

Decisions where T1 leaves room (documented for directors in the README):

* With 3-tables allowed, a field is split into 4-tables plus the *fewest* 3-tables that make it
  divide exactly: remainder 3 → one 3-table, 2 → two, 1 → three. Nobody gets a bye when
  everyone can be seated, because a bye is a match nobody plays.
* The one field that cannot be split that way is 5: it plays as one 4-table plus **one bye**
  (not a 3-table plus two byes) — the fewest players sitting out.
* Without 3-tables the leftover ``n mod 4`` players get byes.
* Fewer than 3 players (with 3-tables) or fewer than 4 (without) cannot form a table at all:
  :class:`BracketError` ``field_too_small``.
* Byes go to the players with the fewest earlier byes, and among those to the lowest in the
  given order (lowest seeds in round 1, lowest records later).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from brackets.engine.errors import BracketError
from brackets.engine.history import History
from brackets.engine.model import PlayerId


@dataclass(frozen=True, slots=True)
class TablePlan:
    """Table sizes of a round (4s first, then 3s) and how many players get a bye (T1)."""

    sizes: tuple[int, ...]
    byes: int

    @property
    def tables(self) -> int:
        return len(self.sizes)

    @property
    def seated(self) -> int:
        return sum(self.sizes)


def plan_tables(players: int, *, allow_three: bool) -> TablePlan:
    """Split ``players`` into tables per T1.

    All 4-tables when the count divides by 4; otherwise, if ``allow_three``, the fewest
    3-tables that make it divide (5 players: one 4-table and one bye); otherwise 4-tables and
    ``players mod 4`` byes.

    >>> plan_tables(7, allow_three=True)
    TablePlan(sizes=(4, 3), byes=0)
    >>> plan_tables(7, allow_three=False)
    TablePlan(sizes=(4,), byes=3)

    Raises :class:`BracketError` ``field_too_small`` (T1) when not even one table can be formed.
    """
    smallest = 3 if allow_three else 4
    if players < smallest:
        raise BracketError(
            code="field_too_small",
            rule="T1",
            field="players",
            message=f"{players} player{'' if players == 1 else 's'} cannot form a table: "
            "a table seats 4 players"
            + (
                ", or 3 where the stage allows (T1)."
                if allow_three
                else " (T1; this stage does not allow 3-player tables)."
            ),
        )
    if not allow_three:
        return TablePlan(sizes=(4,) * (players // 4), byes=players % 4)
    threes = (4 - players % 4) % 4  # 4a + 3b = n with the fewest 3-tables b
    if 3 * threes > players:  # only n = 5 (needs three 3-tables, has 5 players)
        return TablePlan(sizes=(4,), byes=players - 4)
    fours = (players - 3 * threes) // 4
    return TablePlan(sizes=(4,) * fours + (3,) * threes, byes=0)


def choose_byes(
    order: Sequence[PlayerId], count: int, history: History | None = None
) -> tuple[PlayerId, ...]:
    """The ``count`` players who sit out, in ``order`` (T1).

    ``order`` runs best first (seed order, or record order in later rounds). Players with the
    fewest earlier byes are chosen first; among them the lowest in ``order``.
    """
    if count < 0 or count > len(order):
        raise BracketError(
            code="bad_bye_count",
            rule="T1",
            field="count",
            message=f"Cannot give {count} byes to a field of {len(order)} (T1).",
        )
    h = history or History.empty()
    chosen = bye_positions([h.byes(p) for p in order], count)
    return tuple(p for i, p in enumerate(order) if i in chosen)


def bye_positions(byes: Sequence[int], count: int) -> set[int]:
    """The positions of the ``count`` entrants who sit out (T1), given each one's earlier
    ``byes`` in order best first: the fewest earlier byes first; among them the lowest in
    order. Shared by players (:func:`choose_byes`) and partnerships (T9)."""
    ranked = sorted(range(len(byes)), key=lambda i: (byes[i], -i))
    return set(ranked[:count])
