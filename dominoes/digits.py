"""Whole numbers typed or sent from outside: ASCII digits only.

``str.isdigit()`` is true for ``"²"`` and other Unicode digits that ``int()`` refuses (a 500
where a 400 was meant), and ``int()`` itself takes more than a form or header should carry
(``" 7"``, ``"+7"``, ``"1_0"``, Arabic-Indic digits). Every request value read as a number goes
through :func:`parse_int`. It lives in the lowest layer so the pure modules (tiles, the circuit
ranking) use it as well as the views.
"""

from __future__ import annotations

from typing import Final

# 18 digits always fit a signed 64-bit column (PostgreSQL bigint): an id that long or shorter
# reaches the database as a number it can compare, never an out-of-range error.
ID_DIGITS: Final = 18


def parse_int(text: object, *, max_digits: int = ID_DIGITS) -> int | None:
    """``text`` as a non-negative integer when it is 1..``max_digits`` ASCII digits, else None.

    >>> parse_int("42"), parse_int("007")
    (42, 7)
    >>> [parse_int(s) for s in ("²", "٣", " 4", "+4", "-4", "1_0", "", "9" * 19)]
    [None, None, None, None, None, None, None, None]
    """
    if not isinstance(text, str) or not 0 < len(text) <= max_digits:
        return None
    if not (text.isascii() and text.isdigit()):
        return None
    return int(text)


__all__ = ["ID_DIGITS", "parse_int"]
