"""The values of a match between hands (RULES.md sections 3, 7, 8, 9).

Glossary:
    match state -- an immutable snapshot between hands: scores, statistics, the tie run and who
                   poses the next hand. :mod:`scoring.engine.match` builds and folds it.
    next hand   -- what the referee screen shows before a hand: who poses, forced or free, and
                   what the hand is worth (R5-R10, R26).
    partnership -- under ``teams = partners`` (R42) seats 0 and 2 form ``AC`` (partnership 0)
                   and seats 1 and 3 form ``BD`` (partnership 1): a seat's partnership is
                   ``seat % 2``. Scores stay one per seat, each seat showing its partnership's
                   score; a leader (R28) is a partnership, given by its number.
    hand scored -- the report of folding one hand: what it paid, resets, notes citing rules.
    context     -- the per (ruleset, player count) constants folding needs, computed once and
                   carried by the state so folding a hand never recomputes them.

The numbered decisions cited here are listed in :mod:`scoring.engine.match` (folding) and
:mod:`scoring.engine.validate` (record checks).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from scoring.engine.rules import (
    AfterResetOpener,
    AllOnes,
    Llave,
    Opening,
    PartnerCredit,
    ReplayLeaderLoss,
    ResetRule,
    Ruleset,
    Scoring,
    Teams,
    TieOpener,
    TieValue,
)
from scoring.engine.seats import seat_name
from scoring.engine.tiles import ALL_TILES, DOUBLE_SIX, Tile


@dataclass(frozen=True, slots=True)
class NextHand:
    """What the referee screen shows before the next hand (R5-R10, R26).

    ``poser`` is ``None`` for a forced pose ("whoever holds 6-6", R5). ``rule`` is the rule that
    decided who poses; ``reason`` says why in words. ``leader`` is the R28 leader of the
    current tie run: a seat, or under partnerships a partnership number (0 = AC, 1 = BD, R42).
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
    Under partnerships (R42-R44) ``team`` is the winning partnership (0 = AC, 1 = BD) and
    ``winner`` the seat of it that dominoed or held the lowest count (where both partners
    share it, the one R44 names as the next poser); ``team`` is ``None`` otherwise.
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
    team: int | None = None


@dataclass(frozen=True, slots=True)
class MatchContext:
    """Per (ruleset, player count) constants, computed once (see :func:`match_context`)."""

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
    partners: bool  # teams = partners (R42)
    partner_net: bool  # partner_credit = net (R45)
    # Reasons shown on the referee screen, by seat (built once: folding is hot).
    won_reason: tuple[str, ...]
    reset_reason: tuple[str, ...]
    leader_reason: tuple[str, ...]
    again_reason: tuple[str, ...]
    pips_again_reason: tuple[str, ...]
    rotate_reason: tuple[str, ...]
    first_hand: tuple[NextHand, ...]  # by lot winner (R6)
    # Partnerships (R44): by seat, and by [previous poser][partnership] for a choice of partner.
    team_won_reason: tuple[str, ...] = ()
    team_reset_reason: tuple[str, ...] = ()
    shared_reason: tuple[tuple[str, ...], ...] = ()
    shared_reset_reason: tuple[tuple[str, ...], ...] = ()
    team_leader_reason: tuple[tuple[str, ...], ...] = ()


@dataclass(frozen=True, slots=True)
class MatchState:
    """A match between hands; never mutate it.

    Build it with :func:`~scoring.engine.match.match_start`. ``hands`` is the number of hands
    folded, ``tie_run`` is k (R26), ``leader`` the R28 leader of the current tie run,
    ``playoff`` whether the next hand is a play-off (R9, R27), ``last_poser`` the seat that
    posed the last hand, ``lot_winner`` the seat that won the draw for the lead (R6).

    Under partnerships (R42) every seat's score is its partnership's score, ``leader`` is a
    partnership number (0 = AC, 1 = BD), ``winner`` the seat that won the last hand (see
    :attr:`winning_team`), and ``team_stats`` holds the R35 statistics of AC and BD, each
    event counted once (R46); ``team_stats`` is ``None`` in individual play.
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
    team_stats: tuple[PlayerStats, ...] | None = None
    ctx: MatchContext | None = field(default=None, repr=False, compare=False)

    @property
    def on_love(self) -> tuple[bool, ...]:
        """Which players are on 0 (section 0, R34)."""
        return tuple(s == 0 for s in self.scores)

    @property
    def target(self) -> int:
        """The score that wins this match (R30-R32, R41, R45)."""
        return self.ruleset.target_for(self.n_players)

    @property
    def partners(self) -> bool:
        """Whether the match is played in partnerships (R42)."""
        return self.ruleset.teams is Teams.PARTNERS

    @property
    def team_scores(self) -> tuple[int, int] | None:
        """``(AC, BD)`` under partnerships (R42), else ``None``."""
        return (self.scores[0], self.scores[1]) if self.partners else None

    @property
    def winning_team(self) -> int | None:
        """The partnership that won the match (0 = AC, 1 = BD), or ``None`` (R42)."""
        if not self.partners or self.winner is None:
            return None
        return self.winner % 2


def tie_scored(
    state: MatchState, number: int, tied: tuple[int, ...], notes: list[str]
) -> HandScored:
    """What hand ``number``, a tied block (R20), scores from ``state``: nothing is paid and the
    scores stand (R27, R43); the replay keeps the play-off flag. Shared by the individual and
    the partnership fold."""
    return HandScored(
        number,
        state.next.value,
        0,
        None,
        tied,
        False,
        state.playoff,
        state.scores,
        False,
        tuple(notes),
    )


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


def stats_row(s: PlayerStats) -> tuple[int, ...]:
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


def hand_value(ctx: MatchContext, k: int, playoff: bool) -> int:
    """R26: the value of a hand after ``k`` consecutive ties (0 under pip scoring)."""
    if ctx.scoring is Scoring.PIPS:
        return 0  # decision 4 of scoring.engine.match
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


TEAM_NAMES: Final = ("AC", "BD")
"""Partnership names by number: seats 0 and 2 form AC, seats 1 and 3 form BD (R42)."""


def team_name(team: int) -> str:
    """``"AC"`` for partnership 0, ``"BD"`` for partnership 1 (R42)."""
    return TEAM_NAMES[team]


def first_partner_after(poser: int, team: int) -> int:
    """R44: of ``team``'s two players, the one reached first going round in play order from
    the seat after ``poser`` (so if ``poser`` is one of them, their partner).

    >>> first_partner_after(2, 0), first_partner_after(0, 0), first_partner_after(3, 1)
    (0, 2, 1)
    """
    seat = (poser + 1) % 4
    return seat if seat % 2 == team else (seat + 1) % 4


def _partner_reasons() -> dict[str, tuple[Any, ...]]:
    """The referee-screen reasons of R44, built once per ruleset."""
    names = [seat_name(i) for i in range(4)]

    def pair(team: int) -> str:
        return f"{names[team]} and {names[team + 2]}"

    return {
        "team_won_reason": tuple(
            f"{names[i]} won the last hand for {TEAM_NAMES[i % 2]} (R7, R44)" for i in range(4)
        ),
        "team_reset_reason": tuple(
            f"{names[i]} won the hand that caused the reset for {TEAM_NAMES[i % 2]} (R8, R44)"
            for i in range(4)
        ),
        "shared_reason": tuple(
            tuple(
                f"{pair(t)} shared the lowest count: of them, {names[first_partner_after(p, t)]} "
                f"comes first after {names[p]} (R7, R44)"
                for t in (0, 1)
            )
            for p in range(4)
        ),
        "shared_reset_reason": tuple(
            tuple(
                f"{pair(t)} shared the lowest count of the hand that caused the reset: of them, "
                f"{names[first_partner_after(p, t)]} comes first after {names[p]} (R8, R44)"
                for t in (0, 1)
            )
            for p in range(4)
        ),
        "team_leader_reason": tuple(
            tuple(
                f"replay: {TEAM_NAMES[t]} lead; of {pair(t)}, "
                f"{names[first_partner_after(p, t)]} comes first after {names[p]} (R10, R44)"
                for t in (0, 1)
            )
            for p in range(4)
        ),
    }


_CONTEXTS: dict[tuple[Ruleset, int], MatchContext] = {}
# The same contexts by (id, players); the entry keeps its ruleset alive, so an id is never
# reused for another ruleset while its entry exists, and the identity check guards anyway.
_BY_ID: dict[tuple[int, int], tuple[Ruleset, MatchContext]] = {}


def match_context(ruleset: Ruleset, n_players: int) -> MatchContext:
    """The constants of ``ruleset`` at ``n_players`` seats, cached; validates the ruleset (R2)."""
    hit = _BY_ID.get((id(ruleset), n_players))  # no hashing of 20 fields per match
    if hit is not None and hit[0] is ruleset:
        return hit[1]
    key = (ruleset, n_players)
    ctx = _CONTEXTS.get(key)
    if ctx is not None:
        _BY_ID[(id(ruleset), n_players)] = (ruleset, ctx)
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
    partners = ruleset.teams is Teams.PARTNERS
    ctx = MatchContext(
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
        partners=partners,
        partner_net=ruleset.partner_credit is PartnerCredit.NET,
        won_reason=tuple(f"{s} won the last hand (R7)" for s in names),
        reset_reason=tuple(f"{s} won the hand that caused the reset (R8)" for s in names),
        leader_reason=tuple(f"replay: {s} is the leader (R10, R28)" for s in names),
        again_reason=tuple(f"replay: {s} posed the tied hand and poses again (R10)" for s in names),
        pips_again_reason=tuple(
            f"replay: {s} posed the tied hand and poses again (R41)" for s in names
        ),
        rotate_reason=tuple(
            f"{names[(i + 1) % n_players]} follows {names[i]} in play order (R6)" for i in seats
        ),
        first_hand=first_hand,
        **(_partner_reasons() if partners else {}),
    )
    if len(_CONTEXTS) > 256:  # rulesets are few; bound the cache anyway
        _CONTEXTS.clear()
        _BY_ID.clear()
    _CONTEXTS[key] = ctx
    _BY_ID[(id(ruleset), n_players)] = (ruleset, ctx)
    return ctx


__all__ = [
    "TEAM_NAMES",
    "HandScored",
    "MatchState",
    "NextHand",
    "PlayerStats",
    "first_partner_after",
    "team_name",
]
