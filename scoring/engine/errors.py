"""The engine's errors; they live in :mod:`dominoes.errors` (the pure package both the
tournament layer and the engine import). Re-exported so ``scoring.engine.errors`` keeps working."""

from __future__ import annotations

from dominoes.errors import (
    EngineError,
    IllegalMove,
    InvalidRecord,
    InvalidRuleset,
    RuleViolation,
)

__all__ = [
    "EngineError",
    "IllegalMove",
    "InvalidRecord",
    "InvalidRuleset",
    "RuleViolation",
]
