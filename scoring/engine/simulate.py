"""Seeded bots that play whole hands and matches under any ruleset.

Glossary:
    bot       -- a function ``(state, legal_moves, rng) -> Move`` choosing one of the legal
                 moves of the seat to move. It never sees other seats' tiles through the API it
                 is meant to use (it is handed the whole state, so be fair when writing one).
    random    -- :func:`random_bot`: any legal move, uniformly.
    heuristic -- :func:`heuristic_bot`: the heaviest tile first; among equally heavy plays, the
                 one that leaves the most of its own tiles matching the open ends.
    simulated match -- the outcome records, play logs and scoring of a whole match played by
                 bots from one seed; replaying the logs or folding the records reproduces it.

Every random choice (deal, draw, bot) comes from one injected :class:`random.Random`, so a hand
or match is replayable from its seed. Every move goes through :func:`scoring.engine.turns.apply`
and is checked like a referee's play log would be.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

from scoring.engine.deal import deal_tiles
from scoring.engine.hand import HandState, hand_outcome, hand_start, legal_moves
from scoring.engine.llave import VALUE_MASK
from scoring.engine.match import match_apply, match_start
from scoring.engine.match_state import HandScored, MatchState, NextHand
from scoring.engine.moves import End, Move, MoveKind, PoseRequirement
from scoring.engine.playlog import PlayLog
from scoring.engine.record import HandRecord
from scoring.engine.rules import Ruleset
from scoring.engine.tiles import ALL_TILES, Tile
from scoring.engine.turns import apply

Bot: TypeAlias = Callable[[HandState, tuple[Move, ...], random.Random], Move]


def random_bot(state: HandState, moves: tuple[Move, ...], rng: random.Random) -> Move:
    """Any legal move, uniformly at random."""
    return moves[0] if len(moves) == 1 else moves[rng.randrange(len(moves))]


def heuristic_bot(state: HandState, moves: tuple[Move, ...], rng: random.Random) -> Move:
    """Pose or play the heaviest tile; on equal pips keep the ends that suit the own hand.

    Never draws while it can play (even under ``draw_when_playable``); ``rng`` is unused, so
    the bot is deterministic given the position.
    """
    if len(moves) == 1:
        return moves[0]
    hand = state.hands[state.turn]
    best = moves[0]
    best_key = -1
    left, right = state.left, state.right
    for move in moves:
        tile = move.tile
        if tile is None:  # a tile-less draw offered next to plays
            continue
        low, high = tile.low, tile.high
        if move.kind is MoveKind.POSE:
            new_left, new_right = high, low
        elif move.end is End.LEFT:
            new_left, new_right = (high if low == left else low), right
        else:
            new_left, new_right = left, (high if low == right else low)
        keep = (hand & ~move.bit & (VALUE_MASK[new_left] | VALUE_MASK[new_right])).bit_count()
        key = (low + high) * 32 + keep  # pips first, then tiles kept playable (< 32)
        if key > best_key:
            best, best_key = move, key
    return best


BOTS: Final[dict[str, Bot]] = {"random": random_bot, "heuristic": heuristic_bot}
"""Bots by name, for the CLI and :func:`simulate_match`."""


def simulate_hand(
    ruleset: Ruleset,
    n_players: int,
    next_hand: NextHand | PoseRequirement,
    rng: random.Random,
    bots: Sequence[Bot],
) -> tuple[PlayLog, HandRecord]:
    """Deal with ``rng`` and let ``bots[seat]`` play one hand to its end (R2-R20).

    ``next_hand`` says who poses (R5-R11): with ``poser=None`` or ``forced`` the forced opener
    of the deal poses the forced tile (6-6, or the R5 fallback when it was not dealt). A draw
    takes a uniformly random tile of the boneyard; a bot is only asked when it has a choice.
    Returns the play log and its outcome record; replaying the log with
    :func:`replay_play_log` gives the same record.
    """
    deal = deal_tiles(ruleset, n_players, rng)
    state = hand_start(ruleset, n_players, deal, next_hand)
    log: list[Move] = []
    while state.result is None:
        seat = state.turn
        moves = legal_moves(state)
        # A bot is asked only when there is a choice; a forced pass, draw or play is made.
        move = moves[0] if len(moves) == 1 else bots[seat](state, moves, rng)
        if move.kind is MoveKind.DRAW and move.tile is None:
            move = Move.draw(seat, _random_tile(state.stock, rng))
        state = apply(state, move)
        log.append(move)
    return PlayLog(deal, tuple(log)), hand_outcome(state)


@dataclass(frozen=True, slots=True)
class SimulatedMatch:
    """A whole match played by bots.

    Per hand ``i``: ``next_hands[i]`` (who posed and what the hand was worth, as the match
    announced it), ``logs[i]`` (the play log), ``records[i]`` (its outcome record) and
    ``scored[i]`` (how the match scored it). ``final`` is the state after the last hand.
    """

    seed: int
    lot_winner: int
    records: tuple[HandRecord, ...]
    logs: tuple[PlayLog, ...]
    scored: tuple[HandScored, ...]
    final: MatchState
    next_hands: tuple[NextHand, ...]


def simulate_match(
    ruleset: Ruleset,
    n_players: int,
    seed: int,
    bot: str | Bot | Sequence[Bot] = "heuristic",
    max_hands: int = 500,
) -> SimulatedMatch:
    """Play a match from ``seed`` until it is over or ``max_hands`` hands were played.

    ``bot`` is a name from :data:`BOTS`, one bot for every seat, or one bot per seat. The lot
    for the lead (R6) is drawn first from the seeded generator. Folding ``records`` with
    :func:`match_fold` (same ``lot_winner``) reproduces ``final``.
    """
    bots = _bots(bot, n_players)
    rng = random.Random(seed)
    lot_winner = rng.randrange(n_players)
    state = match_start(ruleset, n_players, lot_winner=lot_winner)
    records: list[HandRecord] = []
    logs: list[PlayLog] = []
    scored: list[HandScored] = []
    announced: list[NextHand] = []
    while not state.over and len(records) < max_hands:
        announced.append(state.next)
        log, record = simulate_hand(ruleset, n_players, state.next, rng, bots)
        state, result = match_apply(state, record)
        records.append(record)
        logs.append(log)
        scored.append(result)
    return SimulatedMatch(
        seed,
        lot_winner,
        tuple(records),
        tuple(logs),
        tuple(scored),
        state,
        tuple(announced),
    )


def _bots(bot: str | Bot | Sequence[Bot], n_players: int) -> tuple[Bot, ...]:
    if isinstance(bot, str):
        if bot not in BOTS:
            raise ValueError(f"unknown bot {bot!r}; choose one of {', '.join(BOTS)}")
        return (BOTS[bot],) * n_players
    if callable(bot):
        return (bot,) * n_players
    bots = tuple(bot)
    if len(bots) != n_players:
        raise ValueError(f"need one bot per seat ({n_players}), got {len(bots)}")
    return bots


def _random_tile(stock: int, rng: random.Random) -> Tile:
    """A uniformly random tile of the boneyard ``stock`` (R16: the drawer does not choose)."""
    pick = rng.randrange(stock.bit_count())
    while pick:
        stock &= stock - 1
        pick -= 1
    return ALL_TILES[(stock & -stock).bit_length() - 1]


__all__ = [
    "BOTS",
    "Bot",
    "SimulatedMatch",
    "heuristic_bot",
    "random_bot",
    "simulate_hand",
    "simulate_match",
]
