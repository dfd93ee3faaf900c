"""The match reducer: fold hand records into match state (RULES.md sections 3, 7, 8, 9).

Glossary:
    V          -- the value of the next hand (R26): 1, or ``playoff_value`` for a play-off,
                  raised after tied hands per ``tie_value`` and capped by ``tie_value_cap``.
    p          -- what a decided hand pays: V adjusted for a llave win (R24).
    tie run k  -- the number of consecutive tied hands just played (R26, R27).
    leader     -- the unique leader of a tie run, fixed at its first tie (R28).
    replay     -- the hand after a tied hand (R27); a replay of a play-off is a play-off.
    reset      -- every score returns to 0 (R31a, R31d, R32).
    forced     -- the next pose is a forced 6-6 pose by whoever holds it (R5).

:func:`match_start` makes the state before the first hand, :func:`match_apply` validates one
:class:`~scoring.engine.record.HandRecord` against it (section 9, :mod:`scoring.engine.validate`)
and folds it, and :func:`match_fold` folds a whole sequence. States are immutable
(:mod:`scoring.engine.match_state`); nothing is stored when a record is rejected.

Decisions (where RULES.md leaves something open; copied into the README; 1, 9, 12 and 13 are
about checking records and are listed in :mod:`scoring.engine.validate`):
    2. ``opening = lot_then_rotate`` rotates every hand (R6): every later hand, including a
       replay, a hand after a reset and a play-off, is posed freely by the seat after the
       previous poser. Only ``forced_six_six`` uses R7-R10.
    3. ``tie_opener = previous_opener`` after a forced tied hand: the replay is again a forced
       6-6 pose (whoever holds 6-6 in the new deal); after a free tied hand the same seat poses
       freely again (R10 "forced or free as before").
    4. Pip scoring (R40): a hand has no fixed value, so ``NextHand.value`` and
       ``HandScored.value`` are 0 and ``paid`` is the pip credit. A tie still starts or extends
       a tie run (``is_replay``, stats ``ties``); with ``lot_then_rotate`` the lead rotates as
       usual, with ``forced_six_six`` the winner poses next (R7) and after a tied hand its
       poser poses the replay again, freely, whatever ``tie_opener`` says (R41).
       Pip scoring never resets and records no six-love.
    5. ``reset_rule = any_challenger`` applies R32 alone: ``replay_leader_loss`` is not
       consulted (a replay won by anyone but the only player with points resets by R32 anyway).
    6. ``paid`` is what stands in ``scores_after``: 0 for a tie and for any hand that resets
       (R31a, R31d, R32), even though R31d adds p before resetting.
    7. Statistics (R35): ``hands_won`` counts every decided hand won, including one that
       causes a reset; ``replays_won`` counts wins of a hand played after a tie; ``playoffs_won``
       counts wins of a play-off hand (including a replay of one); ``ties`` counts, per seat,
       tied hands in which that seat shared the lowest count; ``six_love_given`` counts the
       opponents a winner left on 0, ``six_love_received`` once per player left on 0.
    8. Under ``straight_six`` a six-love is recorded only when every other player is on 0
       (R30); under ``six_love`` the winner gives six-love to everyone on 0 (R31c, R32).
   10. ``NextHand.leader`` is the R28 leader of the current tie run, ``None`` outside a run.
   11. ``HandScored.playoff_next`` means "the next hand is a play-off": true after the reset
       that starts one (R31d, R32) and after a tied play-off, whose replay is still a play-off
       (R27); it is worth ``playoff_value`` escalated by the tie run (R26).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from dominoes.records import unchecked
from scoring.engine.errors import InvalidRuleset
from scoring.engine.fold import fold_fast
from scoring.engine.match_state import (
    HandScored,
    MatchContext,
    MatchState,
    NextHand,
    PlayerStats,
    hand_value,
    match_context,
    stats_row,
    tie_scored,
)
from scoring.engine.partners import step_partners
from scoring.engine.record import EndKind, HandRecord, lowest_seats
from scoring.engine.replay import Opener, replay_opener, replay_state
from scoring.engine.rules import Llave, Ruleset, Scoring
from scoring.engine.seats import seat_name
from scoring.engine.tiles import DOUBLE_SIX
from scoring.engine.validate import validate_record

_new_state: Final = unchecked(MatchState)
_new_next: Final = unchecked(NextHand)
_new_stats: Final = unchecked(PlayerStats)
_NO_STATS: Final = PlayerStats()


def match_start(ruleset: Ruleset, n_players: int, *, lot_winner: int = 0) -> MatchState:
    """The state before the first hand (R25, R6).

    ``lot_winner`` is the seat that won the draw for the lead; only ``lot_then_rotate`` uses it.
    Raises :class:`InvalidRuleset` when the ruleset cannot be played by ``n_players`` (R2) or
    ``lot_winner`` is not a seat.
    """
    ctx = match_context(ruleset, n_players)  # validates (R2)
    if isinstance(lot_winner, bool) or not (
        isinstance(lot_winner, int) and 0 <= lot_winner < n_players
    ):
        raise InvalidRuleset(
            code="unknown_seat",
            rule="R6",
            field="lot_winner",
            message=f"lot_winner must be a seat 0..{n_players - 1}, not {lot_winner!r} (R6).",
        )
    return _new_state(
        ruleset,
        n_players,
        (0,) * n_players,
        0,
        ctx.first_hand[lot_winner],
        False,
        None,
        (_NO_STATS,) * n_players,
        None,
        0,
        None,
        False,
        lot_winner,
        (_NO_STATS, _NO_STATS) if ctx.partners else None,
        ctx,
    )


def match_apply(state: MatchState, record: HandRecord) -> tuple[MatchState, HandScored]:
    """Validate ``record`` against ``state`` (section 9) and fold it (R25-R35, R40-R41).

    Raises :class:`InvalidRecord` (with ``code``, ``rule`` and ``field``) for a hand after the
    match is over (R33), an unknown seat, a poser or pose tile contradicting R5-R11, a count
    outside 0..max_count or a wrong number of counts, a block naming a winner (R20), a domino
    winner whose count is not 0 (R18), a llave claim under ``llave = off`` (R24) or on a block
    (R23). Nothing changes when it raises.
    """
    new_state, scored = _step(state, record, True)
    assert scored is not None
    return new_state, scored


def match_fold(
    ruleset: Ruleset, n_players: int, records: Iterable[HandRecord], *, lot_winner: int = 0
) -> MatchState:
    """Fold ``records`` from the start of a match; raises what :func:`match_apply` raises.

    Equivalent to calling :func:`match_apply` on each record, without building the per-hand
    reports. Valid records are folded by :func:`~scoring.engine.fold.fold_fast` (one state
    built at the end); anything it does not handle (an invalid record, a sporting pose) is
    folded again hand by hand here, which raises the exact error.
    """
    state = match_start(ruleset, n_players, lot_winner=lot_winner)
    seq = records if isinstance(records, list | tuple) else list(records)
    assert state.ctx is not None
    folded = fold_fast(state, state.ctx, seq)
    if folded is not None:
        return folded
    step = _step
    for record in seq:
        state = step(state, record, False)[0]
    return state


# -- folding ---------------------------------------------------------------------------------


def _step(
    state: MatchState, record: HandRecord, report: bool
) -> tuple[MatchState, HandScored | None]:
    ctx = state.ctx if state.ctx is not None else match_context(state.ruleset, state.n_players)
    validate_record(state, ctx, record)
    if ctx.partners:
        return step_partners(state, ctx, record, report)  # R42-R46

    n = state.n_players
    number = state.hands + 1
    scores = state.scores
    counts = record.counts
    domino = record.end == EndKind.DOMINO
    if domino:
        w = record.winner
        assert w is not None  # validate_record guarantees it (R18)
    else:
        assert counts is not None  # validate_record guarantees it (R20)
        tied = lowest_seats(counts)
        if len(tied) > 1:
            return _step_tie(state, ctx, record, tied, number, report)
        w = tied[0]

    value = state.next.value
    was_replay = state.tie_run > 0
    leader = state.leader
    reset = False
    playoff_next = False
    over = False
    six_love_to: tuple[int, ...] = ()
    notes: list[str] = []
    rule = ""  # the rule that ended the match, for the note

    if ctx.scoring is Scoring.PIPS:
        assert counts is not None  # required under pip scoring (R40)
        paid = sum(counts) - 2 * counts[w]  # the others' counts minus the winner's own (R40)
        new_scores = _add(scores, w, paid)
        over, rule = new_scores[w] >= ctx.target, "R41"
    else:
        p = value
        if record.llave:
            p = value + 1 if ctx.llave is Llave.PLUS_ONE else max(value, 2)  # R24
        if (
            ctx.leader_loss_resets
            and not ctx.any_challenger
            and was_replay
            and leader is not None
            and w != leader
        ):
            # R31(a); under straight_six it applies first too (R30). Decision 5: not under R32.
            reset, paid, new_scores = True, 0, (0,) * n
            if report:
                notes.append(
                    f"leader {seat_name(leader)} lost the replay: RESET, "
                    f"{seat_name(w)} scores nothing (R31a)"
                )
        elif ctx.scoring is Scoring.STRAIGHT_SIX:
            paid, new_scores = p, _add(scores, w, p)  # R30
            if new_scores[w] >= ctx.target:
                over, rule = True, "R30"
                if new_scores.count(0) == n - 1:
                    six_love_to = tuple(i for i in range(n) if i != w)
        elif ctx.any_challenger:
            holder = next((i for i in range(n) if i != w and scores[i] > 0), None)
            if holder is not None:  # R32: a challenger wins, everything resets
                reset, paid, new_scores = True, 0, (0,) * n
                playoff_next = ctx.playoff_on_all_ones and scores[holder] == 1
                if report:
                    notes.append(
                        f"{seat_name(holder)} had points: RESET, "
                        f"{seat_name(w)} scores nothing (R32)"
                        + ("; play-off next (R9)" if playoff_next else "")
                    )
            else:
                paid, new_scores = p, _add(scores, w, p)
                if new_scores[w] >= ctx.target:
                    over, rule = True, "R32"
                    six_love_to = tuple(i for i in range(n) if new_scores[i] == 0)
        else:
            added = _add(scores, w, p)  # R31(b)
            if added[w] >= ctx.target and 0 in added:  # R31(c)
                over, rule, paid, new_scores = True, "R31c", p, added
                six_love_to = tuple(i for i in range(n) if added[i] == 0)
            elif 0 not in added:  # R31(d): everyone has scored
                reset, paid, new_scores = True, 0, (0,) * n
                playoff_next = ctx.playoff_on_all_ones and added.count(1) == n
                if report:
                    notes.append(
                        "all ones: RESET, play-off next (R31d, R9)"
                        if playoff_next
                        else "everyone has scored: RESET (R31d)"
                    )
            else:
                paid, new_scores = p, added  # R31(e)
        if report and record.llave:
            notes.insert(0, f"llave: the hand pays {p} (R24)")

    stats = list(state.stats)
    o = stats[w]
    stats[w] = _new_stats(
        o.hands_won + 1,
        o.domino_wins + domino,
        o.block_wins + (not domino),
        o.llaves + record.llave,
        o.ties,
        o.replays_won + was_replay,
        o.resets_caused + reset,
        o.playoffs_won + state.playoff,
        o.six_love_given + len(six_love_to),
        o.six_love_received,
    )
    for i in six_love_to:
        o = stats[i]
        stats[i] = _new_stats(*stats_row(o)[:9], o.six_love_received + 1)

    following = number + 1
    if over:
        nxt = _new_next(
            following, None, False, None, 0, False, False, 0, None, f"{seat_name(w)} won", "R33"
        )
    elif ctx.rotate:  # decision 2: rotation regardless
        seat = (record.poser + 1) % n
        nxt = _new_next(
            following,
            seat,
            False,
            None,
            hand_value(ctx, 0, playoff_next),
            False,
            playoff_next,
            0,
            None,
            ctx.rotate_reason[record.poser],
            "R6",
        )
    elif playoff_next:
        nxt = _new_next(
            following,
            None,
            True,
            DOUBLE_SIX,
            ctx.playoff_value,
            False,
            True,
            0,
            None,
            "play-off: the holder of 6-6 poses (R9)",
            "R9",
        )
    elif reset and ctx.reset_forced:
        reason = "after the reset the holder of 6-6 poses (R8)"
        nxt = _new_next(following, None, True, DOUBLE_SIX, 1, False, False, 0, None, reason, "R8")
    elif reset:
        reason = ctx.reset_reason[w]
        nxt = _new_next(following, w, False, None, 1, False, False, 0, None, reason, "R8")
    else:
        reason = ctx.won_reason[w]
        value_next = 0 if ctx.scoring is Scoring.PIPS else 1
        nxt = _new_next(following, w, False, None, value_next, False, False, 0, None, reason, "R7")

    new_state = _new_state(
        state.ruleset,
        n,
        new_scores,
        number,
        nxt,
        over,
        w if over else None,
        tuple(stats),
        record.poser,
        0,
        None,
        playoff_next,
        state.lot_winner,
        None,
        ctx,
    )
    if not report:
        return new_state, None

    if domino:
        notes.insert(0, f"{seat_name(w)} dominoes (R18)")
    else:
        notes.insert(0, f"{seat_name(w)} wins the block with the lowest count (R20)")
    if ctx.scoring is Scoring.PIPS:
        notes.append(f"{seat_name(w)} is credited {paid} (R40)")
    if over:
        text = f"{seat_name(w)} reaches {ctx.target}: match over ({rule}, R33)"
        if six_love_to:
            text += f"; six-love to {', '.join(seat_name(i) for i in six_love_to)}"
        notes.append(text)
    scored = HandScored(
        number, value, paid, w, (), reset, playoff_next, new_scores, over, tuple(notes)
    )
    return new_state, scored


def _step_tie(
    state: MatchState,
    ctx: MatchContext,
    record: HandRecord,
    tied: tuple[int, ...],
    number: int,
    report: bool,
) -> tuple[MatchState, HandScored | None]:
    """R27 (R40 under pip scoring): scores stand, k grows, the replay is posed per R10
    (the shared step: :mod:`scoring.engine.replay`)."""
    # R28: the leader is fixed when the first tie of a run happens.
    leader = state.leader if state.tie_run > 0 else _unique_leader(state.scores)
    by_leader: Opener = (
        (leader, "R10", ctx.leader_reason[leader])
        if leader is not None
        else (None, "R10", "replay with no unique leader: the holder of 6-6 poses (R10, R28)")
    )
    opener = replay_opener(state, ctx, record, by_leader)
    new_state = replay_state(
        state, ctx, record, tied=tied, leader=leader, opener=opener, team_stats=None
    )
    if not report:
        return new_state, None
    notes = [f"tie {'='.join(seat_name(i) for i in tied)} (R20): scores unchanged (R27)"]
    if state.tie_run == 0:
        notes.append(
            f"leader {seat_name(leader)} (R28)" if leader is not None else "no leader (R28)"
        )
    return new_state, tie_scored(state, number, tied, notes)


def _add(scores: tuple[int, ...], seat: int, points: int) -> tuple[int, ...]:
    return (*scores[:seat], scores[seat] + points, *scores[seat + 1 :])


def _unique_leader(scores: tuple[int, ...]) -> int | None:
    """R28: the player strictly above everyone else and on at least 1, else ``None``."""
    top = max(scores)
    if top < 1 or scores.count(top) != 1:
        return None
    return scores.index(top)


__all__ = [
    "HandScored",
    "MatchState",
    "NextHand",
    "PlayerStats",
    "match_apply",
    "match_fold",
    "match_start",
    "seat_name",
]
