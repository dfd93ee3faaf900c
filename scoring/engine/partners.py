"""Folding a hand of a partnership match (RULES.md section 12, R42-R46).

Glossary:
    partnership -- seats 0 and 2 form ``AC`` (partnership 0), seats 1 and 3 form ``BD``
                   (partnership 1); a seat's partnership is ``seat % 2`` (R42).
    credited    -- the seats credited with a hand won: the domino player, the holder of the
                   unique lowest count, or both partners when they share it (R43, R46).
    named       -- the one seat R44 names as the next poser where a rule names "the winner"
                   or "the leader": the domino player or holder of the lowest count; where
                   both partners share it, or for a leading partnership, the one of them
                   reached first going round from the seat after the previous poser.

:func:`step_partners` is the partnership counterpart of the individual fold in
:mod:`scoring.engine.match`, which calls it after :func:`~scoring.engine.validate.
validate_record` (the records are the same, R46). Every seat's score is its partnership's
score, so ``scores`` stays one entry per seat; the leader of a tie run is a partnership.

Decisions (where RULES.md section 12 leaves something open; copied into the README):
    P1. R35 per player: a hand won is credited to the domino player or the holder of the
        unique lowest count only; on a lowest count shared by two partners both are credited
        (hands won, block wins, replays won, resets caused, play-offs won). Six-love given
        and received are credited to both partners (R46). The partnership counts each event
        once (``MatchState.team_stats``); a tied hand counts one tie for both partnerships
        and one for every seat that shared the lowest count.
    P2. ``NextHand.rule`` is ``R44`` where R44 chose between two partners (a shared lowest
        count, a leading partnership) and the base rule (R7, R8, R10, R41) otherwise.
    P3. ``partner_credit = net`` credits at least 0 (R45): a hand whose winners hold more
        pips than their opponents is still won (statistics, the next pose) but pays 0.
    P4. Under pip scoring with a forced opening the tied hand's poser poses again (R41);
        under ``lot_then_rotate`` the lead rotates every hand as in individual play (R6).
"""

from __future__ import annotations

from typing import Final

from dominoes.records import unchecked
from scoring.engine.match_state import (
    HandScored,
    MatchContext,
    MatchState,
    NextHand,
    PlayerStats,
    first_partner_after,
    hand_value,
    stats_row,
    team_name,
    tie_scored,
)
from scoring.engine.record import EndKind, HandRecord, lowest_seats
from scoring.engine.replay import Opener, replay_opener, replay_state, with_tie
from scoring.engine.rules import Llave, Scoring
from scoring.engine.seats import seat_name
from scoring.engine.tiles import DOUBLE_SIX

_new_state: Final = unchecked(MatchState)
_new_next: Final = unchecked(NextHand)
_new_stats: Final = unchecked(PlayerStats)


def _mirror(ac: int, bd: int) -> tuple[int, int, int, int]:
    """Every seat shows its partnership's score (R42)."""
    return (ac, bd, ac, bd)


def step_partners(
    state: MatchState, ctx: MatchContext, record: HandRecord, report: bool
) -> tuple[MatchState, HandScored | None]:
    """Fold one validated record of a partnership match (R43-R46 over R25-R41)."""
    number = state.hands + 1
    counts = record.counts
    domino = record.end == EndKind.DOMINO
    shared = False
    if domino:
        w = record.winner
        assert w is not None  # validate_record guarantees it (R18)
        credited: tuple[int, ...] = (w,)
    else:
        assert counts is not None  # validate_record guarantees it (R20)
        lows = lowest_seats(counts)
        if len(lows) == 1:
            w = lows[0]
            credited = lows
        elif len(lows) == 2 and lows[1] - lows[0] == 2:  # two partners share the lowest (R43)
            shared = True
            w = first_partner_after(record.poser, lows[0])
            credited = lows
        else:  # players of both partnerships share the lowest: a tie (R43)
            return _tie(state, ctx, record, lows, number, report)

    team = w & 1
    opp = team ^ 1
    scores = state.scores
    mine, theirs = scores[team], scores[opp]
    value = state.next.value
    was_replay = state.tie_run > 0
    leader = state.leader  # a partnership (R42, R28)
    reset = False
    playoff_next = False
    over = False
    six_love = False
    new_mine = mine
    notes: list[str] = []
    rule = ""
    tname = team_name(team)

    if ctx.scoring is Scoring.PIPS:
        assert counts is not None  # required under pip scoring (R40)
        own = counts[team] + counts[team + 2]
        other = counts[opp] + counts[opp + 2]
        paid = max(0, other - own) if ctx.partner_net else other  # R45, decision P3
        new_mine = mine + paid
        over, rule = new_mine >= ctx.target, "R45"
    else:
        p = value
        if record.llave:
            p = value + 1 if ctx.llave is Llave.PLUS_ONE else max(value, 2)  # R24
        if (
            ctx.leader_loss_resets
            and not ctx.any_challenger
            and was_replay
            and leader is not None
            and team != leader
        ):  # R31(a) for partnerships (R44); under straight_six it applies first (R30)
            reset, paid, new_mine, theirs = True, 0, 0, 0
            if report:
                notes.append(
                    f"leader {team_name(leader)} lost the replay: RESET, "
                    f"{tname} scores nothing (R31a, R44)"
                )
        elif ctx.scoring is Scoring.STRAIGHT_SIX:
            paid, new_mine = p, mine + p  # R30
            if new_mine >= ctx.target:
                over, rule, six_love = True, "R30", theirs == 0
        elif ctx.any_challenger:
            if theirs > 0:  # R32: the other partnership has points, everything resets
                playoff_next = ctx.playoff_on_all_ones and theirs == 1
                reset, paid, new_mine, theirs = True, 0, 0, 0
                if report:
                    notes.append(
                        f"{team_name(opp)} had points: RESET, {tname} scores nothing (R32, R44)"
                        + ("; play-off next (R9)" if playoff_next else "")
                    )
            else:
                paid, new_mine = p, mine + p
                if new_mine >= ctx.target:
                    over, rule, six_love = True, "R32", True
        else:
            added = mine + p  # R31(b)
            if added >= ctx.target and theirs == 0:  # R31(c)
                over, rule, six_love, paid, new_mine = True, "R31c", True, p, added
            elif theirs > 0:  # R31(d): both partnerships have scored (R44)
                playoff_next = ctx.playoff_on_all_ones and added == 1 and theirs == 1
                reset, paid, new_mine, theirs = True, 0, 0, 0
                if report:
                    notes.append(
                        "all ones: RESET, play-off next (R31d, R9, R44)"
                        if playoff_next
                        else "both partnerships have scored: RESET (R31d, R44)"
                    )
            else:
                paid, new_mine = p, added  # R31(e)
        if report and record.llave:
            notes.insert(0, f"llave: the hand pays {p} (R24)")

    new_scores = _mirror(new_mine, theirs) if team == 0 else _mirror(theirs, new_mine)

    # R35 per player and per partnership (R46, decision P1).
    stats = list(state.stats)
    for seat in credited:
        o = stats[seat]
        stats[seat] = _new_stats(
            o.hands_won + 1,
            o.domino_wins + domino,
            o.block_wins + (not domino),
            o.llaves + record.llave,
            o.ties,
            o.replays_won + was_replay,
            o.resets_caused + reset,
            o.playoffs_won + state.playoff,
            o.six_love_given,
            o.six_love_received,
        )
    team_stats = state.team_stats
    assert team_stats is not None  # match_start sets it under partnerships
    t = team_stats[team]
    won_row = _new_stats(
        t.hands_won + 1,
        t.domino_wins + domino,
        t.block_wins + (not domino),
        t.llaves + record.llave,
        t.ties,
        t.replays_won + was_replay,
        t.resets_caused + reset,
        t.playoffs_won + state.playoff,
        t.six_love_given + six_love,
        t.six_love_received,
    )
    lost_row = team_stats[opp]
    if six_love:
        for seat in (team, team + 2):
            row = stats_row(stats[seat])
            stats[seat] = _new_stats(*row[:8], row[8] + 1, row[9])
        for seat in (opp, opp + 2):
            row = stats_row(stats[seat])
            stats[seat] = _new_stats(*row[:9], row[9] + 1)
        row = stats_row(lost_row)
        lost_row = _new_stats(*row[:9], row[9] + 1)
    new_team_stats = (won_row, lost_row) if team == 0 else (lost_row, won_row)

    following = number + 1
    if over:
        nxt = _new_next(
            following, None, False, None, 0, False, False, 0, None, f"{tname} won", "R33"
        )
    elif ctx.rotate:  # R6: rotation every hand
        nxt = _new_next(
            following,
            (record.poser + 1) % 4,
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
    elif reset:  # R8 hand_winner, R44
        if shared:
            reason, why = ctx.shared_reset_reason[record.poser][team], "R44"
        else:
            reason, why = ctx.team_reset_reason[w], "R8"
        nxt = _new_next(following, w, False, None, 1, False, False, 0, None, reason, why)
    else:  # R7 (R41 under pip scoring with a forced opening), R44
        if shared:
            reason, why = ctx.shared_reason[record.poser][team], "R44"
        else:
            reason, why = ctx.team_won_reason[w], "R7"
        value_next = 0 if ctx.scoring is Scoring.PIPS else 1
        nxt = _new_next(following, w, False, None, value_next, False, False, 0, None, reason, why)

    new_state = _new_state(
        state.ruleset,
        4,
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
        new_team_stats,
        ctx,
    )
    if not report:
        return new_state, None

    if domino:
        notes.insert(0, f"{seat_name(w)} dominoes: {tname} wins the hand (R18, R43)")
    elif shared:
        pair = f"{seat_name(team)} and {seat_name(team + 2)}"
        notes.insert(0, f"{pair} share the lowest count and are partners: {tname} wins (R43)")
        if not over and not ctx.rotate and not (reset and ctx.reset_forced) and not playoff_next:
            notes.insert(
                1,
                f"of {pair}, first from the seat after {seat_name(record.poser)} "
                f"is {seat_name(w)} (R44)",
            )
    else:
        notes.insert(0, f"{seat_name(w)} holds the lowest count: {tname} wins (R20, R43)")
    if ctx.scoring is Scoring.PIPS:
        how = "opponents' counts minus its own" if ctx.partner_net else "opponents' counts"
        notes.append(f"{tname} is credited {paid}, the {how} (R45)")
    if over:
        text = f"{tname} reaches {ctx.target}: match over ({rule}, R33)"
        if six_love:
            text += f"; six-love to {team_name(opp)}"
        notes.append(text)
    scored = HandScored(
        number, value, paid, w, (), reset, playoff_next, new_scores, over, tuple(notes), team
    )
    return new_state, scored


def _tie(
    state: MatchState,
    ctx: MatchContext,
    record: HandRecord,
    tied: tuple[int, ...],
    number: int,
    report: bool,
) -> tuple[MatchState, HandScored | None]:
    """R43 tie: scores stand, k grows (R27); the replay is posed per R10 with R44, R41 or R6
    (the shared step: :mod:`scoring.engine.replay`)."""
    if state.tie_run > 0:
        leader = state.leader  # R28: fixed at the first tie of the run
    else:
        ac, bd = state.scores[0], state.scores[1]
        leader = None if ac == bd else (0 if ac > bd else 1)  # R28 over partnerships (R42)
    by_leader: Opener = (
        (None, "R10", "replay with no leading partnership: the holder of 6-6 poses (R10, R28)")
        if leader is None
        else (
            first_partner_after(record.poser, leader),
            "R44",
            ctx.team_leader_reason[record.poser][leader],
        )
    )
    poser, rule, reason = opener = replay_opener(state, ctx, record, by_leader)
    team_stats = state.team_stats
    assert team_stats is not None
    new_state = replay_state(
        state,
        ctx,
        record,
        tied=tied,
        leader=leader,
        opener=opener,
        team_stats=tuple(with_tie(t) for t in team_stats),  # one tie for both partnerships
    )
    if not report:
        return new_state, None
    names = "=".join(seat_name(i) for i in tied)
    notes = [f"tie {names}: players of both partnerships share the lowest count (R43, R27)"]
    if state.tie_run == 0:
        notes.append(
            f"leader {team_name(leader)} (R28)" if leader is not None else "no leader (R28)"
        )
    if poser is not None and rule == "R44":
        notes.append(reason)
    return new_state, tie_scored(state, number, tied, notes)


__all__ = ["step_partners"]
