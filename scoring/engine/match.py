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
:class:`~scoring.engine.record.HandRecord` against it (section 9) and folds it, and
:func:`match_fold` folds a whole sequence. States are immutable; nothing is stored when a record
is rejected.

Decisions (where RULES.md leaves something open; copied into the README):
    1. Forced pose, outcome path: the engine cannot see who held 6-6, so any seat may be
       recorded as the poser of a forced hand. The pose tile must be 6-6. When the deal may
       leave 6-6 undealt (``deals_all_tiles`` false: 7-tile 2/3-player deals, block deals) the
       R5 fallbacks are accepted too: a lower double when enough tiles sleep for every higher
       double to be among them, or a non-double when every double can sleep and the tile can
       be the heaviest of the dealt tiles. Anything else is rejected (R5).
    2. ``opening = lot_then_rotate`` rotates regardless (R6): every later hand, including a
       replay, a hand after a reset and a play-off, is posed freely by the seat after the
       previous poser. Only ``forced_six_six`` uses R7-R10.
    3. ``tie_opener = previous_opener`` after a forced tied hand: the replay is again a forced
       6-6 pose (whoever holds 6-6 in the new deal); after a free tied hand the same seat poses
       freely again (R10 "forced or free as before").
    4. Pip scoring (R40): a hand has no fixed value, so ``NextHand.value`` and
       ``HandScored.value`` are 0 and ``paid`` is the pip credit. A tie still starts or extends
       a tie run (``is_replay``, stats ``ties``); with ``lot_then_rotate`` the lead rotates as
       usual, with ``forced_six_six`` the winner poses next (R7) and a replay follows R10.
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
    9. A domino record may carry counts under any scoring (they are checked: one per seat,
       0..max, the winner's 0); pip scoring requires them (R40). A block always requires them.
   10. ``NextHand.leader`` is the R28 leader of the current tie run, ``None`` outside a run.
   11. ``HandScored.playoff_next`` means "the next hand is a play-off": true after the reset
       that starts one (R31d, R32) and after a tied play-off, whose replay is still a play-off
       (R27); it is worth ``playoff_value`` escalated by the tie run (R26).
   12. Sporting (R11) is only accepted on a forced pose and only with ``sporting_allowed``; the
       seat recorded as poser is taken as the 6-6 holder, as for any forced pose (decision 1).
   13. Checks that no R number covers (unknown seat, wrong number of counts, malformed values)
       cite ``§9``; count bounds cite R20 (a count is a pip total), and the heaviest possible
       hand includes tiles that may be drawn from a ``draw`` boneyard (R16).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from typing import Final, TypeVar

from scoring.engine.errors import InvalidRecord, InvalidRuleset
from scoring.engine.record import RECORD_RULE, EndKind, HandRecord, lowest_seats
from scoring.engine.rules import (
    AfterResetOpener,
    AllOnes,
    Llave,
    Opening,
    ReplayLeaderLoss,
    ResetRule,
    Ruleset,
    Scoring,
    TieOpener,
    TieValue,
)
from scoring.engine.tiles import ALL_TILES, DOUBLE_SIX, Tile

_SEAT_NAMES: Final = "ABCDEFGH"
_T = TypeVar("_T")


def seat_name(seat: int) -> str:
    """Seat letter in play order: 0 -> "A", 1 -> "B", ... (section 0)."""
    return _SEAT_NAMES[seat] if 0 <= seat < len(_SEAT_NAMES) else f"seat {seat}"


@dataclass(frozen=True, slots=True)
class NextHand:
    """What the referee screen shows before the next hand (R5-R10, R26).

    ``poser`` is ``None`` for a forced pose ("whoever holds 6-6", R5). ``rule`` is the rule that
    decided who poses; ``reason`` says why in words. ``leader`` is the R28 leader of the
    current tie run.
    """

    number: int
    poser: int | None
    forced: bool
    forced_tile: Tile | None
    value: int
    is_replay: bool
    is_playoff: bool
    tie_run: int
    leader: int | None
    reason: str
    rule: str = "R6"


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """Per-match statistics of one player (R35)."""

    hands_won: int = 0
    domino_wins: int = 0
    block_wins: int = 0
    llaves: int = 0
    ties: int = 0
    replays_won: int = 0
    resets_caused: int = 0
    playoffs_won: int = 0
    six_love_given: int = 0
    six_love_received: int = 0


@dataclass(frozen=True, slots=True)
class HandScored:
    """The result of folding one hand (R25-R35, R40-R41).

    ``value`` is V (R26), ``paid`` what stands in ``scores_after`` for the winner (decision 6),
    ``tied`` the seats sharing the lowest count of a tied block (R20), ``playoff_next`` whether
    the next hand is a play-off (decision 11), ``notes`` human notes citing rules.
    """

    number: int
    value: int
    paid: int
    winner: int | None
    tied: tuple[int, ...]
    reset: bool
    playoff_next: bool
    scores_after: tuple[int, ...]
    match_over: bool
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _Context:
    """Per (ruleset, player count) constants, computed once (see :func:`_context`)."""

    target: int
    max_count: int
    set_mask: int
    forced_mask: int
    forced_fallbacks: bool
    scoring: Scoring
    any_challenger: bool
    playoff_on_all_ones: bool
    playoff_value: int
    tie_value: TieValue
    tie_value_cap: int | None
    tie_opener: TieOpener
    leader_loss_resets: bool
    reset_forced: bool
    llave: Llave
    sporting_allowed: bool
    rotate: bool
    # Reasons shown on the referee screen, by seat (built once: folding is hot).
    won_reason: tuple[str, ...]
    reset_reason: tuple[str, ...]
    leader_reason: tuple[str, ...]
    again_reason: tuple[str, ...]
    rotate_reason: tuple[str, ...]
    first_hand: tuple[NextHand, ...]  # by lot winner (R6)


@dataclass(frozen=True, slots=True)
class MatchState:
    """A match between hands. Build it with :func:`match_start`; never mutate it.

    ``hands`` is the number of hands folded, ``tie_run`` is k (R26), ``leader`` the R28 leader
    of the current tie run, ``playoff`` whether the next hand is a play-off (R9, R27),
    ``last_poser`` the seat that posed the last hand, ``lot_winner`` the seat that won the draw
    for the lead (R6).
    """

    ruleset: Ruleset
    n_players: int
    scores: tuple[int, ...]
    hands: int
    next: NextHand
    over: bool
    winner: int | None
    stats: tuple[PlayerStats, ...]
    last_poser: int | None
    tie_run: int = 0
    leader: int | None = None
    playoff: bool = False
    lot_winner: int = 0
    ctx: _Context | None = field(default=None, repr=False, compare=False)

    @property
    def on_love(self) -> tuple[bool, ...]:
        """Which players are on 0 (section 0, R34)."""
        return tuple(s == 0 for s in self.scores)

    @property
    def target(self) -> int:
        """The score that wins this match (R30-R32, R41)."""
        return self.ruleset.target_for(self.n_players)


def _unchecked(cls: type[_T]) -> Callable[..., _T]:
    """A positional constructor for a frozen slots dataclass that skips its ``__init__``.

    Why: the generated frozen ``__init__`` sets each field through ``object.__setattr__``,
    which made folding miss its 100,000 hands/s goal; calling the slot descriptors directly is
    about twice as fast. Arguments are the fields in declaration order, as for ``cls(...)``.
    """
    names = [f.name for f in fields(cls)]  # type: ignore[arg-type]
    namespace: dict[str, object] = {"new": object.__new__, "cls": cls}
    for name in names:
        namespace[f"set_{name}"] = cls.__dict__[name].__set__
    body = "".join(f"    set_{name}(o, {name})\n" for name in names)
    source = f"def build({', '.join(names)}):\n    o = new(cls)\n{body}    return o\n"
    exec(source, namespace)  # noqa: S102 -- fixed source built from field names only
    build = namespace["build"]
    assert callable(build)
    return build


_new_state: Final = _unchecked(MatchState)
_new_next: Final = _unchecked(NextHand)
_new_stats: Final = _unchecked(PlayerStats)
_NO_STATS: Final = PlayerStats()


def match_start(ruleset: Ruleset, n_players: int, *, lot_winner: int = 0) -> MatchState:
    """The state before the first hand (R25, R6).

    ``lot_winner`` is the seat that won the draw for the lead; only ``lot_then_rotate`` uses it.
    Raises :class:`InvalidRuleset` when the ruleset cannot be played by ``n_players`` (R2) or
    ``lot_winner`` is not a seat.
    """
    ctx = _CONTEXTS.get((ruleset, n_players)) or _context(ruleset, n_players)  # validates (R2)
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
    reports.
    """
    state = match_start(ruleset, n_players, lot_winner=lot_winner)
    step = _step
    for record in records:
        state = step(state, record, False)[0]
    return state


# -- folding ---------------------------------------------------------------------------------


def _step(
    state: MatchState, record: HandRecord, report: bool
) -> tuple[MatchState, HandScored | None]:
    ctx = state.ctx if state.ctx is not None else _context(state.ruleset, state.n_players)
    _validate(state, ctx, record)

    n = state.n_players
    number = state.hands + 1
    scores = state.scores
    counts = record.counts
    domino = record.end == EndKind.DOMINO
    if domino:
        w = record.winner
        assert w is not None  # _validate guarantees it (R18)
    else:
        assert counts is not None  # _validate guarantees it (R20)
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
        stats[i] = _new_stats(*_stats_row(o)[:9], o.six_love_received + 1)

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
            _value(ctx, 0, playoff_next),
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
    ctx: _Context,
    record: HandRecord,
    tied: tuple[int, ...],
    number: int,
    report: bool,
) -> tuple[MatchState, HandScored | None]:
    """R27 (R40 under pip scoring): scores stand, k grows, the replay is posed per R10."""
    k = state.tie_run + 1
    # R28: the leader is fixed when the first tie of a run happens.
    leader = state.leader if state.tie_run > 0 else _unique_leader(state.scores)
    playoff = state.playoff  # R27: the replay of a play-off is still a play-off
    stats = list(state.stats)
    for i in tied:
        row = _stats_row(stats[i])
        stats[i] = _new_stats(*row[:4], row[4] + 1, *row[5:])
    value_next = _value(ctx, k, playoff)
    poser: int | None
    if ctx.rotate:  # decision 2
        poser, rule = (record.poser + 1) % state.n_players, "R6"
        reason = ctx.rotate_reason[record.poser]
    elif ctx.tie_opener is TieOpener.LEADER:
        poser, rule = leader, "R10"
        reason = (
            ctx.leader_reason[leader]
            if leader is not None
            else "replay with no unique leader: the holder of 6-6 poses (R10, R28)"
        )
    elif ctx.tie_opener is TieOpener.PREVIOUS_OPENER:
        # Decision 3: "forced or free as before".
        poser, rule = (None if state.next.forced else record.poser), "R10"
        reason = (
            "replay: the tied hand was a forced pose, so this one is too (R10)"
            if poser is None
            else ctx.again_reason[record.poser]
        )
    else:
        poser, rule, reason = None, "R10", "replay: the holder of 6-6 poses (R10)"
    forced = poser is None
    nxt = _new_next(
        number + 1,
        poser,
        forced,
        DOUBLE_SIX if forced else None,
        value_next,
        True,
        playoff,
        k,
        leader,
        reason,
        rule,
    )
    new_state = _new_state(
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
        ctx,
    )
    if not report:
        return new_state, None
    notes = [f"tie {'='.join(seat_name(i) for i in tied)} (R20): scores unchanged (R27)"]
    if state.tie_run == 0:
        notes.append(
            f"leader {seat_name(leader)} (R28)" if leader is not None else "no leader (R28)"
        )
    scored = HandScored(
        number, state.next.value, 0, None, tied, False, playoff, state.scores, False, tuple(notes)
    )
    return new_state, scored


def _stats_row(s: PlayerStats) -> tuple[int, ...]:
    return (
        s.hands_won,
        s.domino_wins,
        s.block_wins,
        s.llaves,
        s.ties,
        s.replays_won,
        s.resets_caused,
        s.playoffs_won,
        s.six_love_given,
        s.six_love_received,
    )


def _add(scores: tuple[int, ...], seat: int, points: int) -> tuple[int, ...]:
    return (*scores[:seat], scores[seat] + points, *scores[seat + 1 :])


def _unique_leader(scores: tuple[int, ...]) -> int | None:
    """R28: the player strictly above everyone else and on at least 1, else ``None``."""
    top = max(scores)
    if top < 1 or scores.count(top) != 1:
        return None
    return scores.index(top)


def _value(ctx: _Context, k: int, playoff: bool) -> int:
    """R26: the value of a hand after ``k`` consecutive ties (0 under pip scoring)."""
    if ctx.scoring is Scoring.PIPS:
        return 0  # decision 4
    base = ctx.playoff_value if playoff else 1
    if k == 0:
        return base
    if ctx.tie_value is TieValue.ESCALATE:
        v = base + k
    elif ctx.tie_value is TieValue.FLAT2:
        v = max(base, 2)
    else:
        v = base
    if ctx.tie_value_cap is not None:
        v = min(v, max(ctx.tie_value_cap, base))
    return v


# -- validation (section 9) ------------------------------------------------------------------


def _reject(code: str, rule: str, field: str | None, message: str) -> InvalidRecord:
    return InvalidRecord(code=code, rule=rule, field=field, message=message)


def _validate(state: MatchState, ctx: _Context, record: HandRecord) -> None:
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


# -- per-ruleset constants -------------------------------------------------------------------


def _r5_rank(tile: Tile) -> tuple[int, int, int]:
    """Order of R5, highest first: doubles (6-6 first), then heavier tiles, larger high end."""
    return (1 if tile.is_double else 0, tile.pips, tile.high)


def _forced_mask(ruleset: Ruleset, n_players: int) -> int:
    """Tiles a forced pose may lead (R5; decision 1).

    A tile can be the R5 forced pose only if every tile R5 ranks above it may have stayed
    undealt, i.e. at most ``left over`` tiles of the set rank above it. With everything dealt
    that leaves 6-6 alone.
    """
    set_mask = ruleset.set_mask(n_players)
    in_set = [t for t in ALL_TILES if set_mask >> t.index & 1]
    left_over = len(in_set) - n_players * ruleset.hand_size(n_players)
    mask = 0
    for t in in_set:
        rank = _r5_rank(t)
        if sum(1 for u in in_set if _r5_rank(u) > rank) <= left_over:
            mask |= t.mask
    return mask


_CONTEXTS: dict[tuple[Ruleset, int], _Context] = {}


def _context(ruleset: Ruleset, n_players: int) -> _Context:
    key = (ruleset, n_players)
    ctx = _CONTEXTS.get(key)
    if ctx is not None:
        return ctx
    ruleset.validate_for_players(n_players)
    seats = range(n_players)
    names = [seat_name(i) for i in seats]
    rotate = ruleset.opening is Opening.LOT_THEN_ROTATE
    base = 0 if ruleset.scoring is Scoring.PIPS else 1  # R26, decision 4
    if rotate:
        first_hand = tuple(
            NextHand(1, i, False, None, base, False, False, 0, None, reason, "R6")
            for i, reason in enumerate(f"{s} won the draw for the lead (R6)" for s in names)
        )
    else:
        reason = "first hand: the holder of 6-6 poses it (R6, R5)"
        forced = NextHand(1, None, True, DOUBLE_SIX, base, False, False, 0, None, reason, "R6")
        first_hand = (forced,) * n_players
    ctx = _Context(
        target=ruleset.target_for(n_players),
        max_count=ruleset.max_count(n_players),
        set_mask=ruleset.set_mask(n_players),
        forced_mask=_forced_mask(ruleset, n_players),
        forced_fallbacks=not ruleset.deals_all_tiles(n_players),
        scoring=ruleset.scoring,
        any_challenger=(
            ruleset.scoring is Scoring.SIX_LOVE and ruleset.reset_rule is ResetRule.ANY_CHALLENGER
        ),
        playoff_on_all_ones=ruleset.all_ones is AllOnes.PLAYOFF,
        playoff_value=ruleset.playoff_value,
        tie_value=ruleset.tie_value,
        tie_value_cap=ruleset.tie_value_cap,
        tie_opener=ruleset.tie_opener,
        leader_loss_resets=ruleset.replay_leader_loss is ReplayLeaderLoss.RESET,
        reset_forced=ruleset.after_reset_opener is AfterResetOpener.SIX_SIX_HOLDER,
        llave=ruleset.llave,
        sporting_allowed=ruleset.sporting_allowed,
        rotate=rotate,
        won_reason=tuple(f"{s} won the last hand (R7)" for s in names),
        reset_reason=tuple(f"{s} won the hand that caused the reset (R8)" for s in names),
        leader_reason=tuple(f"replay: {s} is the leader (R10, R28)" for s in names),
        again_reason=tuple(f"replay: {s} posed the tied hand and poses again (R10)" for s in names),
        rotate_reason=tuple(
            f"{names[(i + 1) % n_players]} follows {names[i]} in play order (R6)" for i in seats
        ),
        first_hand=first_hand,
    )
    if len(_CONTEXTS) > 256:  # rulesets are few; bound the cache anyway
        _CONTEXTS.clear()
    _CONTEXTS[key] = ctx
    return ctx
