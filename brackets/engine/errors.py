"""Errors raised by the brackets engine.

Every rejection is a :class:`BracketError` (a :class:`ValueError`) carrying a machine-readable
``code``, the RULES.md rule it concerns (``rule``, e.g. ``"T1"``), the input ``field`` it is
about (``None`` when it concerns the whole request) and a ``message`` a tournament director
understands. The service layer turns it into a 400 with the usual error body.
"""

from __future__ import annotations


class BracketError(ValueError):
    """A seating, standings or advancement request that RULES.md §11 cannot satisfy."""

    def __init__(
        self,
        *,
        code: str,
        rule: str,
        message: str,
        field: str | None = None,
        players: tuple[int, ...] = (),
    ) -> None:
        super().__init__(message)
        self.code = code
        self.rule = rule
        self.field = field
        self.message = message
        # The player ids the error is about (a seed order's unknown, missing or repeated
        # players), so a caller can name them instead of showing ids.
        self.players = players

    def as_dict(self) -> dict[str, str | None]:
        return {"code": self.code, "rule": self.rule, "field": self.field, "message": self.message}

    def __repr__(self) -> str:
        return f"BracketError(code={self.code!r}, rule={self.rule!r}, field={self.field!r})"
