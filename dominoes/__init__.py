"""The game's vocabulary: tiles, rule violations and rulesets (RULES.md section 1, R2).

Pure Python (no Django, no I/O), the lowest layer: the tournament app validates a
tournament's ruleset with it and the scoring engine plays by it, so neither has to import
the other against the layering (ARCHITECTURE.md). ``scoring.engine`` re-exports all of it
under its historical paths (``scoring.engine.rules``, ``.tiles``, ``.errors``).
"""

from dominoes.errors import EngineError, IllegalMove, InvalidRecord, InvalidRuleset, RuleViolation
from dominoes.ruleset import DEFAULT_PRESET, PRESETS, Ruleset

__all__ = [
    "DEFAULT_PRESET",
    "PRESETS",
    "EngineError",
    "IllegalMove",
    "InvalidRecord",
    "InvalidRuleset",
    "RuleViolation",
    "Ruleset",
]
