"""Errors raised by the rules engine.

Every rejection is a :class:`RuleViolation` carrying a machine-readable ``code``, the RULES.md
rule number it enforces (``rule``), the input ``field`` it concerns (``None`` when it concerns
the whole record) and a ``message`` a referee understands. The web layer turns it into a 400.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises on purpose."""


class RuleViolation(EngineError):  # noqa: N818 -- public name used across the engine
    """A move, record or setting that RULES.md forbids."""

    def __init__(self, *, code: str, rule: str, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule
        self.field = field
        self.message = message

    def as_dict(self) -> dict[str, str | None]:
        return {"code": self.code, "rule": self.rule, "field": self.field, "message": self.message}

    def __repr__(self) -> str:
        return f"RuleViolation(code={self.code!r}, rule={self.rule!r}, field={self.field!r})"


class IllegalMove(RuleViolation):
    """A move that is not among the legal moves of a hand state (R12-R19)."""


class InvalidRecord(RuleViolation):
    """A hand record (outcome or play log) that fails the checks of RULES.md §9."""


class InvalidRuleset(RuleViolation):
    """A ruleset with an unknown key, a bad value or a nonsense combination (section 1)."""
