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
    "EngineError",
    "IllegalMove",
    "InvalidRecord",
    "InvalidRuleset",
    "Llave",
    "Opening",
    "ReplayLeaderLoss",
    "ResetRule",
    "RuleViolation",
    "Ruleset",
    "Scoring",
    "TieOpener",
    "TieValue",
    "Tile",
]
