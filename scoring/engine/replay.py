"""The step shared by every tied hand (R27, R43): the state before the replay.

Glossary:
    replay  -- the hand after a tied hand (R27); a replay of a play-off is a play-off.
    opener  -- who poses the replay: by lot rotation (R6), the tied hand's poser under pip
               scoring (R41), the tie run's leader (R10, a rule of the caller: a seat, or under
               partnerships the partner R44 names), the previous opener "forced or free as
               before" (R10, decision 3), or the holder of 6-6 (R10).

The individual reducer (:mod:`scoring.engine.match`) and the partnership one
(:mod:`scoring.engine.partners`) differ only in who leads a tie run and how the leader's
replay is posed; everything else of a tie is this module's.
"""

from __future__ import annotations

from typing import Final

from dominoes.records import unchecked
from scoring.engine.match_state import (
    MatchContext,
    MatchState,
    NextHand,
    PlayerStats,
    hand_value,
    stats_row,
)
from scoring.engine.record import HandRecord
from scoring.engine.rules import Scoring, TieOpener
from scoring.engine.tiles import DOUBLE_SIX

_new_state: Final = unchecked(MatchState)
_new_next: Final = unchecked(NextHand)
_new_stats: Final = unchecked(PlayerStats)

Opener = tuple[int | None, str, str]  # poser (None: forced 6-6), rule, reason


def with_tie(row: PlayerStats) -> PlayerStats:
    """``row`` with one more tied hand (R35, decision 7)."""
    values = stats_row(row)
    return _new_stats(*values[:4], values[4] + 1, *values[5:])


def replay_opener(
    state: MatchState, ctx: MatchContext, record: HandRecord, leader_opener: Opener
) -> Opener:
    """Who poses the replay and why (R6, R41, R10); ``leader_opener`` is the caller's answer
    for ``tie_opener = leader``."""
    if ctx.rotate:  # R6 (decision 2)
        return (record.poser + 1) % state.n_players, "R6", ctx.rotate_reason[record.poser]
    if ctx.scoring is Scoring.PIPS:  # R41: the tied hand's poser again (decision 4)
        return record.poser, "R41", ctx.pips_again_reason[record.poser]
    if ctx.tie_opener is TieOpener.LEADER:
        return leader_opener
    if ctx.tie_opener is TieOpener.PREVIOUS_OPENER:  # decision 3: forced or free as before
        if state.next.forced:
            return None, "R10", "replay: the tied hand was a forced pose, so this one is too (R10)"
        return record.poser, "R10", ctx.again_reason[record.poser]
    return None, "R10", "replay: the holder of 6-6 poses (R10)"


def replay_state(
    state: MatchState,
    ctx: MatchContext,
    record: HandRecord,
    *,
    tied: tuple[int, ...],
    leader: int | None,
    opener: Opener,
    team_stats: tuple[PlayerStats, ...] | None,
) -> MatchState:
    """The state after a tied hand: scores stand, the tie run grows (R27), the seats sharing
    the lowest count get a tie (R35), the replay is worth V(k) (R26) and posed by ``opener``."""
    k = state.tie_run + 1
    number = state.hands + 1
    playoff = state.playoff  # R27: the replay of a play-off is still a play-off
    stats = list(state.stats)
    for i in tied:
        stats[i] = with_tie(stats[i])
    poser, rule, reason = opener
    forced = poser is None
    nxt = _new_next(
        number + 1,
        poser,
        forced,
        DOUBLE_SIX if forced else None,
        hand_value(ctx, k, playoff),
        True,
        playoff,
        k,
        leader,
        reason,
        rule,
    )
    return _new_state(
        state.ruleset,
        state.n_players,
        state.scores,
        number,
        nxt,
        False,
        None,
        tuple(stats),
        record.poser,
        k,
        leader,
        playoff,
        state.lot_winner,
        team_stats,
        ctx,
    )
