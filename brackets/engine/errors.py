"""Errors raised by the brackets engine.

Every rejection is a :class:`BracketError` (a :class:`ValueError`) carrying a machine-readable
``code``, the RULES.md rule it concerns (``rule``, e.g. ``"T1"``), the input ``field`` it is
about (``None`` when it concerns the whole request) and a ``message`` a tournament director
understands. The service layer turns it into a 400 with the usual error body.
"""

from __future__ import annotations

from dominoes.errors import RejectionError


class BracketError(RejectionError):
    """A seating, standings or advancement request that RULES.md §11 cannot satisfy."""

    repr_name = "BracketError"
