"""Numbers from outside are ASCII digits (dominoes.digits): ``str.isdigit()`` takes ``"²"``,
which ``int()`` refuses, and ``int()`` takes more than a request should carry."""

from __future__ import annotations

import pytest

from dominoes.digits import parse_int
from dominoes.errors import RuleViolation
from dominoes.tiles import Tile


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0", 0),
        ("42", 42),
        ("007", 7),
        ("9" * 18, int("9" * 18)),  # still a bigint
        ("9" * 19, None),
        ("\u00b2", None),  # isdigit() but not int()
        ("1\u00b2", None),
        ("\u0663", None),  # Arabic-Indic three: int() would take it
        ("\uff13", None),  # fullwidth three
        (" 4", None),
        ("4\n", None),
        ("+4", None),
        ("-4", None),
        ("1_000", None),
        ("", None),
        (None, None),
        (4, None),
    ],
)
def test_parse_int_takes_ascii_digits_only(text: object, value: int | None) -> None:
    assert parse_int(text) == value


def test_parse_int_bounds_the_length() -> None:
    assert parse_int("12345", max_digits=5) == 12345
    assert parse_int("123456", max_digits=5) is None
    assert parse_int("9" * 5000, max_digits=100) is None  # int() raises past 4300 digits


@pytest.mark.parametrize(
    "text", ["\u00b2\u00b2", "\u00b2-1", "1-\u00b2", "\u0663-\u0663", "\uff13-\uff13", "6-"]
)
def test_a_tile_of_other_digits_is_an_r1_violation(text: str) -> None:
    with pytest.raises(RuleViolation) as exc:
        Tile.parse(text)
    assert (exc.value.code, exc.value.rule, exc.value.field) == ("invalid_tile", "R1", "tile")


def test_a_tile_still_reads_the_usual_spellings() -> None:
    assert {Tile.parse(t) for t in ("6-3", "3-6", "36", " 6 - 3 ", "6|3", "6:3")} == {Tile(3, 6)}
