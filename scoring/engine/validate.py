"""Checking a hand record against the match before it is folded (RULES.md section 9).

Glossary:
    record   -- a :class:`~scoring.engine.record.HandRecord`: poser, pose tile, domino or block,
                winner, counts, llave and sporting claims.
    forced   -- the next pose is a forced 6-6 pose by whoever holds it (R5).
    count    -- pip total of a seat's remaining tiles (R20), at most ``max_count``.

:func:`validate_record` raises :class:`InvalidRecord` (``code``, ``rule``, ``field``) for the
first check a record fails; :func:`scoring.engine.match.match_apply` calls it before folding, so
nothing changes when a record is rejected.

Decisions (where RULES.md leaves something open; copied into the README; numbered with those
of :mod:`scoring.engine.match`):
    1. Forced pose, outcome path: the engine cannot see who held 6-6, so any seat may be
       recorded as the poser of a forced hand. The pose tile must be 6-6. When the deal may
       leave 6-6 undealt (``deals_all_tiles`` false: 7-tile 2/3-player deals, block deals) the
       R5 fallbacks are accepted too: a lower double when enough tiles sleep for every higher
       double to be among them, or a non-double when every double can sleep and the tile can
       be the heaviest of the dealt tiles. Anything else is rejected (R5).
    9. A domino record may carry counts under any scoring (they are checked: one per seat,
       0..max, the winner's 0); pip scoring requires them (R40). A block always requires them.
   12. Sporting (R11) is only accepted on a forced pose and only with ``sporting_allowed``; the
       seat recorded as poser is taken as the 6-6 holder, as for any forced pose (decision 1).
   13. Checks that no R number covers (unknown seat, wrong number of counts, malformed values)
       cite ``§9``; count bounds cite R20 (a count is a pip total), and the heaviest possible
       hand includes tiles that may be drawn from a ``draw`` boneyard (R16).
"""

from __future__ import annotations

from scoring.engine.errors import InvalidRecord
from scoring.engine.match_state import MatchContext, MatchState
from scoring.engine.record import RECORD_RULE, EndKind, HandRecord
from scoring.engine.rules import Llave, Scoring
from scoring.engine.seats import seat_name
from scoring.engine.tiles import Tile


def _reject(code: str, rule: str, field: str | None, message: str) -> InvalidRecord:
    return InvalidRecord(code=code, rule=rule, field=field, message=message)


def validate_record(state: MatchState, ctx: MatchContext, record: HandRecord) -> None:
    """Section 9: every check a record must pass before it is folded."""
    if state.over:
        raise _reject(
            "match_over",
            "R33",
            None,
            f"The match is over ({seat_name(state.winner or 0)} won); no further hands (R33).",
        )
    n = state.n_players
    nh = state.next
    poser = record.poser
    if type(poser) is not int or not 0 <= poser < n:
        raise _reject(
            "unknown_seat",
            RECORD_RULE,
            "poser",
            f"poser {poser!r} is not a seat at this table (0..{n - 1}) (§9).",
        )
    if nh.poser is not None and poser != nh.poser:
        raise _reject(
            "wrong_poser",
            nh.rule,
            "poser",
            f"Seat {nh.poser} ({seat_name(nh.poser)}) must pose this hand: {nh.reason}.",
        )
    tile = record.pose_tile
    if not isinstance(tile, Tile):
        raise _reject("invalid_tile", "R1", "pose_tile", f"{tile!r} is not a tile (R1).")
    bit = tile.mask
    if not ctx.set_mask & bit:
        raise _reject(
            "tile_not_in_set",
            "R2",
            "pose_tile",
            f"{tile} is not in play: three players in the standard deal remove 0-0 (R2).",
        )
    if record.sporting:
        if not ctx.sporting_allowed:
            raise _reject(
                "sporting_not_allowed",
                "R11",
                "sporting",
                "Sporting is not allowed under this ruleset (R11; never in tournament play).",
            )
        if not nh.forced:
            raise _reject(
                "sporting_on_free_pose",
                "R11",
                "sporting",
                "Sporting only applies to a forced 6-6 pose; this hand is a free pose (R11).",
            )
    elif nh.forced and not ctx.forced_mask & bit:
        if ctx.forced_fallbacks:
            detail = (
                "lead 6-6, or if 6-6 was not dealt the highest double held, or with no double "
                f"dealt the heaviest tile held; {tile} cannot be that in this deal (R5)"
            )
        else:
            detail = f"lead 6-6, not {tile} (R5)"
        raise _reject(
            "wrong_pose_tile",
            "R5",
            "pose_tile",
            f"This hand is a forced pose ({nh.reason}): the poser must {detail}.",
        )

    counts = record.counts
    if counts is not None:
        _validate_counts(counts, n, ctx.max_count)

    end = record.end
    if end == EndKind.DOMINO:
        w = record.winner
        if w is None:
            raise _reject(
                "winner_required", "R18", "winner", "A domino record names the winner (R18)."
            )
        if type(w) is not int or not 0 <= w < n:
            raise _reject(
                "unknown_seat",
                RECORD_RULE,
                "winner",
                f"winner {w!r} is not a seat at this table (0..{n - 1}) (§9).",
            )
        if counts is not None and counts[w] != 0:
            raise _reject(
                "winner_count_not_zero",
                "R18",
                f"counts[{w}]",
                f"{seat_name(w)} dominoed, so their count must be 0, not {counts[w]} (R18).",
            )
        if counts is None and ctx.scoring is Scoring.PIPS:
            raise _reject(
                "counts_required",
                "R40",
                "counts",
                "Under pip scoring a domino record carries every seat's count (R40).",
            )
        if record.llave and ctx.llave is Llave.OFF:
            raise _reject(
                "llave_not_allowed",
                "R24",
                "llave",
                "This ruleset has llave=off: a llave claim is not allowed (R24).",
            )
    elif end == EndKind.BLOCK:
        if record.winner is not None:
            raise _reject(
                "block_names_winner",
                "R20",
                "winner",
                "A blocked hand names no winner; the engine derives it from the counts (R20).",
            )
        if counts is None:
            raise _reject(
                "counts_required",
                "R20",
                "counts",
                "A blocked hand records every seat's count (R20).",
            )
        if record.llave:
            raise _reject(
                "llave_on_block",
                "R23",
                "llave",
                "A blocked win is never a llave (R23); only a domino can be.",
            )
    else:
        raise _reject(
            "malformed", RECORD_RULE, "end", f"end must be 'domino' or 'block', not {end!r} (§9)."
        )


def _validate_counts(counts: tuple[int, ...], n: int, top: int) -> None:
    if len(counts) != n:
        raise _reject(
            "wrong_count_length",
            RECORD_RULE,
            "counts",
            f"counts must hold one count per seat ({n}), not {len(counts)} (§9).",
        )
    for i, c in enumerate(counts):
        if type(c) is not int:
            raise _reject(
                "malformed", RECORD_RULE, f"counts[{i}]", f"counts[{i}]={c!r} is not an integer."
            )
        if c < 0:
            raise _reject(
                "negative_count",
                "R20",
                f"counts[{i}]",
                f"{seat_name(i)}'s count {c} is negative; a count is a pip total (R20).",
            )
        if c > top:
            raise _reject(
                "count_out_of_range",
                "R20",
                f"counts[{i}]",
                f"{seat_name(i)}'s count {c} exceeds {top}, the heaviest possible hand in "
                "this deal (R20, §9).",
            )


__all__ = ["validate_record"]
