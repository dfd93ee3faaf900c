"""Pure-Python rules engine for Cut-Throat dominoes (RULES.md).

Nothing here imports Django or any third-party package. Public names are re-exported from the
modules below; see each module's docstring for the rules it implements.
"""

from scoring.engine.errors import (
    EngineError,
    IllegalMove,
    InvalidRecord,
    InvalidRuleset,
    RuleViolation,
)
from scoring.engine.match import (
    HandScored,
    MatchState,
    NextHand,
    PlayerStats,
    match_apply,
    match_fold,
    match_start,
    seat_name,
)
from scoring.engine.record import EndKind, HandRecord, block_result, lowest_seats
from scoring.engine.rules import (
    DEFAULT_PRESET,
    PRESETS,
    AfterResetOpener,
    AllOnes,
    Boneyard,
    DealKind,
    Llave,
    Opening,
    ReplayLeaderLoss,
    ResetRule,
    Ruleset,
    Scoring,
    TieOpener,
    TieValue,
)
from scoring.engine.tiles import ALL_TILES, DOUBLE_BLANK, DOUBLE_SIX, FULL_SET_MASK, Tile

__all__ = [
    "ALL_TILES",
    "DEFAULT_PRESET",
    "DOUBLE_BLANK",
    "DOUBLE_SIX",
    "FULL_SET_MASK",
    "PRESETS",
    "AfterResetOpener",
    "AllOnes",
    "Boneyard",
    "DealKind",
    "EndKind",
    "EngineError",
    "HandRecord",
    "HandScored",
    "IllegalMove",
    "InvalidRecord",
    "InvalidRuleset",
    "Llave",
    "MatchState",
    "NextHand",
    "Opening",
    "PlayerStats",
    "ReplayLeaderLoss",
    "ResetRule",
    "RuleViolation",
    "Ruleset",
    "Scoring",
    "TieOpener",
    "TieValue",
    "Tile",
    "block_result",
    "lowest_seats",
    "match_apply",
    "match_fold",
    "match_start",
    "seat_name",
]
