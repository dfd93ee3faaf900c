"""Snapshots of a match state: :func:`state_to_json` stores the state a hand produced beside
the match, :func:`state_from_json` reads it back for the next hand (and refuses anything it
cannot trust, so the caller folds the stored hands instead)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from typing import Any, Final

from scoring.engine.errors import EngineError
from scoring.engine.match_state import (
    TEAM_NAMES,
    MatchState,
    NextHand,
    PlayerStats,
    match_context,
)
from scoring.engine.rules import (
    Ruleset,
    Teams,
)
from scoring.engine.tiles import Tile

STATE_FORMAT: Final = 1
"""Version of :func:`state_to_json`'s layout; a snapshot of another format is refused."""

_STATS_KEYS: Final = tuple(f.name for f in fields(PlayerStats))


class InvalidSnapshot(EngineError):  # noqa: N818 -- named like InvalidRecord, InvalidRuleset
    """A stored state snapshot that cannot be read back (wrong format or shape)."""


def state_to_json(state: MatchState) -> dict[str, Any]:
    """A JSON-ready snapshot of ``state`` without its ruleset (stored beside it).

    With :func:`state_from_json` a service can apply the next hand to the stored state instead
    of folding every stored hand again; the snapshot is a cache of the fold, never a source.
    """
    nxt = state.next
    return {
        "format": STATE_FORMAT,
        "n_players": state.n_players,
        "scores": list(state.scores),
        "hands": state.hands,
        "next": {
            "number": nxt.number,
            "poser": nxt.poser,
            "forced": nxt.forced,
            "forced_tile": None if nxt.forced_tile is None else str(nxt.forced_tile),
            "value": nxt.value,
            "is_replay": nxt.is_replay,
            "is_playoff": nxt.is_playoff,
            "tie_run": nxt.tie_run,
            "leader": nxt.leader,
            "reason": nxt.reason,
            "rule": nxt.rule,
        },
        "over": state.over,
        "winner": state.winner,
        "stats": [[getattr(s, k) for k in _STATS_KEYS] for s in state.stats],
        "last_poser": state.last_poser,
        "tie_run": state.tie_run,
        "leader": state.leader,
        "playoff": state.playoff,
        "lot_winner": state.lot_winner,
        **(
            {"team_stats": [[getattr(s, k) for k in _STATS_KEYS] for s in state.team_stats]}
            if state.team_stats is not None
            else {}
        ),
    }


def state_from_json(ruleset: Ruleset, data: Mapping[str, Any]) -> MatchState:
    """The state :func:`state_to_json` wrote, under ``ruleset`` (equal to the original).

    Raises :class:`InvalidSnapshot` for another format or a malformed snapshot, so a caller can
    fall back to folding the hands.
    """
    try:
        if data["format"] != STATE_FORMAT:
            raise InvalidSnapshot(f"snapshot format {data['format']!r}, not {STATE_FORMAT}")
        n = int(data["n_players"])
        raw = data["next"]
        tile = raw["forced_tile"]
        nxt = NextHand(
            int(raw["number"]),
            raw["poser"],
            bool(raw["forced"]),
            None if tile is None else Tile.parse(tile),
            int(raw["value"]),
            bool(raw["is_replay"]),
            bool(raw["is_playoff"]),
            int(raw["tie_run"]),
            raw["leader"],
            str(raw["reason"]),
            str(raw["rule"]),
        )
        stats = tuple(PlayerStats(*(int(v) for v in row)) for row in data["stats"])
        scores = tuple(int(s) for s in data["scores"])
        if len(scores) != n or len(stats) != n:
            raise InvalidSnapshot("snapshot rows do not match its player count")
        team_stats: tuple[PlayerStats, ...] | None = None
        if ruleset.teams is Teams.PARTNERS:
            team_stats = tuple(PlayerStats(*(int(v) for v in row)) for row in data["team_stats"])
            if len(team_stats) != len(TEAM_NAMES):
                raise InvalidSnapshot("a partnership snapshot holds two partnerships' stats")
        elif "team_stats" in data:
            raise InvalidSnapshot("an individual match has no partnership statistics")
        return MatchState(
            ruleset,
            n,
            scores,
            int(data["hands"]),
            nxt,
            bool(data["over"]),
            data["winner"],
            stats,
            data["last_poser"],
            int(data["tie_run"]),
            data["leader"],
            bool(data["playoff"]),
            int(data["lot_winner"]),
            team_stats,
            match_context(ruleset, n),
        )
    except InvalidSnapshot:
        raise
    except (KeyError, TypeError, ValueError, EngineError) as exc:
        raise InvalidSnapshot(f"malformed snapshot: {exc!r}") from exc
