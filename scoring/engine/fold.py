"""The fast path of :func:`scoring.engine.match.match_fold` (RULES.md sections 7, 8, 9, 12).

Glossary:
    fast fold  -- folding a sequence of records with plain local variables (lists of ints for
                  scores and statistics, the next pose as separate values) and building the
                  immutable :class:`~scoring.engine.match_state.MatchState` once at the end,
                  instead of one state, one ``NextHand`` and a ``PlayerStats`` per hand.
    bail out   -- :func:`fold_fast` returns ``None`` for anything it does not handle itself:
                  a record that fails any section 9 check, a sporting pose (R11), or a hand
                  after the match is over. The caller then folds the same records with the
                  reference reducer (:func:`scoring.engine.match._step`), which raises the
                  exact error naming the field and rule, so errors never differ.

Why: folding every stored hand is the service's fallback and the benchmark's measure (issue 19:
>= 300,000 hands/s per core). The reference reducer stays the single definition of the rules;
this loop mirrors it line for line (individual: ``match._step``/``match._step_tie``;
partnerships: ``partners.step_partners``/``partners._tie``), and the property tests check that
both give equal states for random valid and invalid records under random rulesets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from dominoes.records import unchecked
from scoring.engine.match_state import (
    MatchContext,
    MatchState,
    NextHand,
    PlayerStats,
    first_partner_after,
    hand_value,
    stats_row,
    team_name,
)
from scoring.engine.record import EndKind, HandRecord
from scoring.engine.rules import Llave, Scoring, TieOpener
from scoring.engine.seats import seat_name
from scoring.engine.tiles import DOUBLE_SIX, MAX_PIP, Tile

_new_state: Final = unchecked(MatchState)
_new_next: Final = unchecked(NextHand)
_new_stats: Final = unchecked(PlayerStats)
# PlayerStats are immutable, and a match's rows repeat across folds (most are a handful of
# small counters): a fold reuses the instance for a row it has built before instead of
# building ten slots again (building them was a third of a short match's fold). Bounded.
_STATS: Final[dict[tuple[int, ...], PlayerStats]] = {}
_STATS_MAX: Final = 1 << 16


def _stats_tuple(rows: list[list[int]]) -> tuple[PlayerStats, ...]:
    cache = _STATS
    out = []
    for row in rows:
        key = tuple(row)
        stats = cache.get(key)
        if stats is None:
            if len(cache) >= _STATS_MAX:
                cache.clear()
            stats = cache[key] = _new_stats(*key)
        out.append(stats)
    return tuple(out)


_INT_ONLY: Final = frozenset((int,))  # exact ints: bools and other int subclasses bail out
_DOMINO: Final = EndKind.DOMINO
_BLOCK: Final = EndKind.BLOCK
# Tile index (0-0, 0-1, ..., 6-6) of low-high is _ROW[low] + high, without a property call.
_ROW: Final = tuple(sum(MAX_PIP + 1 - r for r in range(a)) - a for a in range(MAX_PIP + 1))
_PLAYOFF_REASON: Final = "play-off: the holder of 6-6 poses (R9)"
_RESET_REASON: Final = "after the reset the holder of 6-6 poses (R8)"
_NO_LEADER_REASON: Final = "replay with no unique leader: the holder of 6-6 poses (R10, R28)"
_NO_TEAM_LEADER_REASON: Final = (
    "replay with no leading partnership: the holder of 6-6 poses (R10, R28)"
)
_FORCED_AGAIN_REASON: Final = "replay: the tied hand was a forced pose, so this one is too (R10)"
_SIX_SIX_REASON: Final = "replay: the holder of 6-6 poses (R10)"
# stats rows: 0 hands_won, 1 domino_wins, 2 block_wins, 3 llaves, 4 ties, 5 replays_won,
# 6 resets_caused, 7 playoffs_won, 8 six_love_given, 9 six_love_received (R35).


def fold_fast(
    state: MatchState, ctx: MatchContext, records: Sequence[HandRecord]
) -> MatchState | None:
    """``state`` with ``records`` folded, or ``None`` to let the reference reducer do it."""
    if not records:
        return state
    if state.over:
        return None
    n = state.n_players
    partners = ctx.partners
    scores = list(state.scores)
    stats = [list(stats_row(s)) for s in state.stats]
    team_stats = state.team_stats
    tstats = [list(stats_row(s)) for s in team_stats] if team_stats is not None else []
    hands = state.hands
    nh = state.next
    n_poser, n_forced, n_value = nh.poser, nh.forced, nh.value
    n_tile, n_replay, n_playoff = nh.forced_tile, nh.is_replay, nh.is_playoff
    n_reason, n_rule = nh.reason, nh.rule
    tie_run, leader, playoff = state.tie_run, state.leader, state.playoff
    last_poser = state.last_poser
    over = False
    winner: int | None = None

    set_mask, forced_mask, top = ctx.set_mask, ctx.forced_mask, ctx.max_count
    pips = ctx.scoring is Scoring.PIPS
    straight = ctx.scoring is Scoring.STRAIGHT_SIX
    any_challenger = ctx.any_challenger
    leader_loss_resets = ctx.leader_loss_resets and not any_challenger
    playoff_on_all_ones = ctx.playoff_on_all_ones
    llave_off = ctx.llave is Llave.OFF
    plus_one = ctx.llave is Llave.PLUS_ONE
    target = ctx.target
    rotate = ctx.rotate
    reset_forced = ctx.reset_forced
    tie_opener = ctx.tie_opener
    partner_net = ctx.partner_net
    row = _ROW
    seats = range(n)

    for record in records:
        if over:
            return None  # R33: the reference reducer raises match_over
        # -- section 9 checks: any failure bails out to the reference reducer -------------
        poser = record.poser
        if type(poser) is not int or not 0 <= poser < n:
            return None
        if n_poser is not None and poser != n_poser:
            return None
        tile = record.pose_tile
        if type(tile) is not Tile or record.sporting:
            return None
        bit = 1 << (row[tile.low] + tile.high)
        if not set_mask & bit or (n_forced and not forced_mask & bit):
            return None
        counts = record.counts
        low = 0  # the lowest count (R20), read once here for the checks and the block's winner
        if counts is not None:
            if len(counts) != n or not _INT_ONLY.issuperset(map(type, counts)):
                return None
            low = min(counts)
            if low < 0 or max(counts) > top:
                return None
        end = record.end
        llave = record.llave
        if end == _DOMINO:
            w_raw = record.winner
            if w_raw is None or type(w_raw) is not int or not 0 <= w_raw < n:
                return None
            w = w_raw
            if counts is None:
                if pips:
                    return None
            elif counts[w] != 0:
                return None
            if llave and llave_off:
                return None
            domino = True
        elif end == _BLOCK:
            if record.winner is not None or counts is None or llave:
                return None
            domino = False
        else:
            return None

        # -- who won (R20, R43) --------------------------------------------------------
        hands += 1
        tied: tuple[int, ...] = ()
        shared = False
        if domino:
            credited: tuple[int, ...] = (w,)
        else:
            assert counts is not None
            if counts.count(low) == 1:
                w = counts.index(low)
                credited = (w,)
            else:
                tied = tuple([i for i in seats if counts[i] == low])
                if partners and len(tied) == 2 and tied[1] - tied[0] == 2:
                    shared = True
                    w = first_partner_after(poser, tied[0])
                    credited = tied
                    tied = ()

        if tied:  # R27 (R43 under partnerships): scores stand, the replay is posed per R10
            k = tie_run + 1
            if tie_run == 0:
                if partners:
                    ac, bd = scores[0], scores[1]
                    leader = None if ac == bd else (0 if ac > bd else 1)
                else:
                    best = max(scores)
                    leader = scores.index(best) if best >= 1 and scores.count(best) == 1 else None
            for i in tied:
                stats[i][4] += 1
            for t in tstats:
                t[4] += 1
            n_value = hand_value(ctx, k, playoff)
            if rotate:
                n_poser, n_rule, n_reason = (poser + 1) % n, "R6", ctx.rotate_reason[poser]
            elif pips:
                n_poser, n_rule, n_reason = poser, "R41", ctx.pips_again_reason[poser]
            elif tie_opener is TieOpener.LEADER:
                if leader is None:
                    n_poser, n_rule = None, "R10"
                    n_reason = _NO_TEAM_LEADER_REASON if partners else _NO_LEADER_REASON
                elif partners:
                    n_poser, n_rule = first_partner_after(poser, leader), "R44"
                    n_reason = ctx.team_leader_reason[poser][leader]
                else:
                    n_poser, n_rule, n_reason = leader, "R10", ctx.leader_reason[leader]
            elif tie_opener is TieOpener.PREVIOUS_OPENER:
                n_rule = "R10"
                if n_forced:
                    n_poser, n_reason = None, _FORCED_AGAIN_REASON
                else:
                    n_poser, n_reason = poser, ctx.again_reason[poser]
            else:
                n_poser, n_rule, n_reason = None, "R10", _SIX_SIX_REASON
            n_forced = n_poser is None
            n_tile = DOUBLE_SIX if n_forced else None
            n_replay, n_playoff = True, playoff
            tie_run = k
            last_poser = poser
            continue

        # -- a decided hand (R29-R32, R40-R41; R44-R45 for partnerships) -------------------
        was_replay = tie_run > 0
        reset = playoff_next = False
        six_love: tuple[int, ...] = ()  # seats credited with six-love received
        if partners:
            team = w & 1
            opp = team ^ 1
            mine, theirs = scores[team], scores[opp]
            if pips:
                assert counts is not None
                own = counts[team] + counts[team + 2]
                other = counts[opp] + counts[opp + 2]
                mine += max(0, other - own) if partner_net else other
                over = mine >= target
            else:
                p = n_value
                if llave:
                    p = n_value + 1 if plus_one else max(n_value, 2)
                if leader_loss_resets and was_replay and leader is not None and team != leader:
                    reset, mine, theirs = True, 0, 0
                elif straight:
                    mine += p
                    if mine >= target:
                        over = True
                        if theirs == 0:
                            six_love = (opp, opp + 2)
                elif any_challenger:
                    if theirs > 0:
                        playoff_next = playoff_on_all_ones and theirs == 1
                        reset, mine, theirs = True, 0, 0
                    else:
                        mine += p
                        if mine >= target:
                            over, six_love = True, (opp, opp + 2)
                elif mine + p >= target and theirs == 0:
                    over, mine, six_love = True, mine + p, (opp, opp + 2)
                elif theirs > 0:
                    playoff_next = playoff_on_all_ones and mine + p == 1 and theirs == 1
                    reset, mine, theirs = True, 0, 0
                else:
                    mine += p
            scores[team] = scores[team + 2] = mine
            scores[opp] = scores[opp + 2] = theirs
            t = tstats[team]
            t[0] += 1
            t[1 if domino else 2] += 1
            t[3] += llave
            t[5] += was_replay
            t[6] += reset
            t[7] += playoff
            if six_love:
                t[8] += 1
                tstats[opp][9] += 1
                stats[team][8] += 1
                stats[team + 2][8] += 1
        else:
            if pips:
                assert counts is not None
                scores[w] += sum(counts) - 2 * counts[w]
                over = scores[w] >= target
            else:
                p = n_value
                if llave:
                    p = n_value + 1 if plus_one else max(n_value, 2)
                if leader_loss_resets and was_replay and leader is not None and w != leader:
                    reset = True
                elif straight:
                    scores[w] += p
                    if scores[w] >= target:
                        over = True
                        if scores.count(0) == n - 1:
                            six_love = tuple(i for i in seats if i != w)
                elif any_challenger:
                    holder = next((i for i in seats if i != w and scores[i] > 0), None)
                    if holder is not None:
                        reset = True
                        playoff_next = playoff_on_all_ones and scores[holder] == 1
                    else:
                        scores[w] += p
                        if scores[w] >= target:
                            over = True
                            six_love = tuple(i for i in seats if scores[i] == 0)
                else:
                    scores[w] += p
                    if scores[w] >= target and 0 in scores:
                        over = True
                        six_love = tuple(i for i in seats if scores[i] == 0)
                    elif 0 not in scores:
                        reset = True
                        playoff_next = playoff_on_all_ones and scores.count(1) == n
            if reset:
                scores = [0] * n
            stats[w][8] += len(six_love)
        for i in credited:
            s = stats[i]
            s[0] += 1
            s[1 if domino else 2] += 1
            s[3] += llave
            s[5] += was_replay
            s[6] += reset
            s[7] += playoff
        for i in six_love:
            stats[i][9] += 1

        last_poser = poser
        tie_run, leader = 0, None
        n_tile, n_replay, n_playoff = None, False, False
        if over:
            winner = w
            n_poser, n_forced, n_value, n_rule = None, False, 0, "R33"
            n_reason = f"{team_name(w & 1) if partners else seat_name(w)} won"
        elif rotate:
            n_poser, n_forced, n_rule = (poser + 1) % n, False, "R6"
            n_value = hand_value(ctx, 0, playoff_next)
            n_playoff = playoff_next
            n_reason = ctx.rotate_reason[poser]
        elif playoff_next:
            n_poser, n_forced, n_tile, n_value = None, True, DOUBLE_SIX, ctx.playoff_value
            n_playoff, n_reason, n_rule = True, _PLAYOFF_REASON, "R9"
        elif reset and reset_forced:
            n_poser, n_forced, n_tile, n_value = None, True, DOUBLE_SIX, 1
            n_reason, n_rule = _RESET_REASON, "R8"
        elif reset:
            n_poser, n_forced, n_value = w, False, 1
            if not partners:
                n_reason, n_rule = ctx.reset_reason[w], "R8"
            elif shared:
                n_reason, n_rule = ctx.shared_reset_reason[poser][w & 1], "R44"
            else:
                n_reason, n_rule = ctx.team_reset_reason[w], "R8"
        else:
            n_poser, n_forced, n_value = w, False, 0 if pips else 1
            if not partners:
                n_reason, n_rule = ctx.won_reason[w], "R7"
            elif shared:
                n_reason, n_rule = ctx.shared_reason[poser][w & 1], "R44"
            else:
                n_reason, n_rule = ctx.team_won_reason[w], "R7"
        playoff = playoff_next

    return _new_state(
        state.ruleset,
        n,
        tuple(scores),
        hands,
        _new_next(
            hands + 1,
            n_poser,
            n_forced,
            n_tile,
            n_value,
            n_replay,
            n_playoff,
            tie_run,
            leader,
            n_reason,
            n_rule,
        ),
        over,
        winner,
        _stats_tuple(stats),
        last_poser,
        tie_run,
        leader,
        playoff,
        state.lot_winner,
        _stats_tuple(tstats) if team_stats is not None else None,
        ctx,
    )


__all__ = ["fold_fast"]
