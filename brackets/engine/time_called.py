"""Placing at a table when time is called (T3).

Glossary:
    time called -- the round's time ran out: the hand in progress is finished and the match
                   stops (T3). The match is marked "time" by the service.
    reached at  -- the hand number after which a player stood on their final score for good
                   (scores only change by winning or by a reset, so this is the last hand that
                   changed it). Earlier is better: they got there first.

Placing is by score (higher first), then who reached that score first, then hands won (T3).
Decision: among players on love (0) "reached first" is skipped — nobody *reached* love, they
were put there by the start or a reset — so love players go straight to hands won. Players level
on every key share a placing (1, 1, 3, 4) and carry ``tied_with``; the director may order a
sudden-death hand instead. A shared first place is no match win, and seed or seat order never
decides a placing (T3): when time is called before any hand was completed, everybody is level
and shares first, and nobody wins the match.

Its twin over a match's seats (the placing stored when a match ends) is
``scoring.engine.placing``; the two engines are independent, so each keeps its own.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from brackets.engine.errors import BracketError
from brackets.engine.model import PlayerId


@dataclass(frozen=True, slots=True)
class TimeCalledLine:
    """A player's standing when time is called (T3)."""

    player_id: PlayerId
    score: int
    reached_at: int
    """Hand number (1-based) after which the player stood on ``score``; 0 = from the start."""
    hands_won: int

    def __post_init__(self) -> None:
        if self.score < 0 or self.reached_at < 0 or self.hands_won < 0:
            raise BracketError(
                code="negative_count",
                rule="T3",
                field="line",
                message=f"Player {self.player_id}: score, reached_at and hands_won cannot be "
                "negative (T3).",
            )

    @classmethod
    def from_scores(
        cls, player_id: PlayerId, scores_after_hand: Sequence[int], hands_won: int
    ) -> TimeCalledLine:
        """Build the line from the player's score after each hand (hand 1 first)."""
        reached = 0
        previous = 0
        for hand, score in enumerate(scores_after_hand, start=1):
            if score != previous:
                reached = hand
            previous = score
        return cls(player_id, previous, reached, hands_won)

    def placing_key(self) -> tuple[int, int, int]:
        """Sort key, best first: score, reached first (not on love), hands won (T3)."""
        return (-self.score, self.reached_at if self.score else 0, -self.hands_won)


@dataclass(frozen=True, slots=True)
class TimeCalledPlacing:
    """A placing at a table after time was called (T3)."""

    player_id: PlayerId
    placing: int
    tied_with: tuple[PlayerId, ...] = ()
    """Players level on every T3 key: a sudden-death hand (director's call) separates them."""


def time_called_winner(placings: Sequence[TimeCalledPlacing]) -> PlayerId | None:
    """The match winner after time is called: the player placed first alone, or ``None``
    when the first place is shared (T3: a shared first is no match win)."""
    firsts = [p.player_id for p in placings if p.placing == 1]
    return firsts[0] if len(firsts) == 1 else None


def time_called_placings(lines: Sequence[TimeCalledLine]) -> tuple[TimeCalledPlacing, ...]:
    """Order a table by T3 when time is called: score, reached first, hands won.

    Returns the placings best first; level players share a placing (1, 2, 2, 4) and name each
    other in ``tied_with``. Raises :class:`BracketError` ``duplicate_player``.
    """
    if len({ln.player_id for ln in lines}) != len(lines):
        raise BracketError(
            code="duplicate_player",
            rule="T3",
            field="lines",
            message="A player is listed twice at the table (T3).",
        )
    ordered = sorted(lines, key=lambda ln: (ln.placing_key(), ln.player_id))
    out: list[TimeCalledPlacing] = []
    for i, ln in enumerate(ordered):
        level = tuple(
            o.player_id for o in ordered if o is not ln and o.placing_key() == ln.placing_key()
        )
        placing = (
            out[-1].placing if i and ordered[i - 1].placing_key() == ln.placing_key() else i + 1
        )
        out.append(TimeCalledPlacing(ln.player_id, placing, level))
    return tuple(out)


def sudden_death_placings(
    lines: Sequence[TimeCalledLine], winners: Collection[PlayerId]
) -> tuple[TimeCalledPlacing, ...]:
    """Order a table whose sudden-death hand was played (T3: the director ordered it instead of
    placing by score): the hand's winner (both partners at a partnership table) is placed first,
    the others follow in T3 order (score, reached first, hands won), level players sharing a
    placing. Without a winner among ``lines`` (a tied hand) the plain T3 order stands."""
    won = [ln for ln in lines if ln.player_id in winners]
    if not won:
        return time_called_placings(lines)
    rest = time_called_placings([ln for ln in lines if ln.player_id not in winners])
    first = tuple(
        TimeCalledPlacing(ln.player_id, 1, tuple(o.player_id for o in won if o is not ln))
        for ln in won
    )
    return first + tuple(
        TimeCalledPlacing(p.player_id, p.placing + len(won), p.tied_with) for p in rest
    )
