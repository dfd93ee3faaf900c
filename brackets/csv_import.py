"""Reading a players CSV for import: parse, validate, and report every bad row.

No database access: the page passes in what is already entered in the tournament, and the
import service (:func:`brackets.services.imports.players_import_csv`) creates the valid rows
through the tournament services.

The file format:

* UTF-8 text (a byte-order mark is fine; "CSV UTF-8" in spreadsheet programs), comma- or
  semicolon-separated (the separator is read from the header line);
* a header row is required; it names the columns, in any order: ``name`` (required),
  ``nickname``, ``country`` (ISO 3166-1 alpha-2, e.g. ``PR``), ``club``, ``rating`` (a whole
  number 0-9999); column names ignore case and surrounding spaces;
* one player per row; blank rows are skipped.

Row numbers in the report are the rows a spreadsheet shows: the header is row 1, the first
player is row 2 (blank rows count, as they do on screen).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from core.request_limits import CSV_MAX_BYTES
from core.visible_text import name_clean
from dominoes.digits import parse_int
from tournament.player_fields import (
    MAX_LENGTHS,
    RATING_MAX,
    country_problem,
    player_field_problems,
    rating_problem,
)

COLUMNS = ("name", "nickname", "country", "club", "rating")
REQUIRED_COLUMNS = ("name",)


# The player's limits (MAX_LENGTHS, RATING_MAX, the country codes) are
# tournament.player_fields': the service checks them again on every path.
__all__ = ["MAX_BYTES", "MAX_LENGTHS", "MAX_ROWS", "RATING_MAX"]

MAX_ROWS = 5000
MAX_BYTES = CSV_MAX_BYTES  # core.request_limits: the 413 page names the same limit

_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class RowError:
    """One problem: the spreadsheet row (0 = the whole file), the column, and why."""

    row: int
    field: str
    reason: str

    def __str__(self) -> str:
        if self.row:
            return _("Row %(row)s, %(field)s: %(reason)s") % {
                "row": self.row,
                "field": self.field,
                "reason": self.reason,
            }
        return _("File, %(field)s: %(reason)s") % {"field": self.field, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """A valid row, cleaned: what ``player_create`` receives."""

    row: int
    name: str
    nickname: str = ""
    country: str = ""
    club: str = ""
    rating: int | None = None


@dataclass(frozen=True, slots=True)
class ImportReport:
    """Every row read: the valid ones, and every problem found (several per row possible).

    ``file_errors`` (row 0 or the header) mean nothing could be read row by row.
    """

    players: tuple[PlayerRow, ...] = ()
    errors: tuple[RowError, ...] = ()
    rows_read: int = 0
    columns: tuple[str, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def file_errors(self) -> tuple[RowError, ...]:
        return tuple(e for e in self.errors if e.row <= 1 or e.field == "file")

    @property
    def bad_rows(self) -> tuple[int, ...]:
        return tuple(sorted({e.row for e in self.errors if e.row > 1 and e.field != "file"}))

    @property
    def can_import_valid_rows(self) -> bool:
        """Some rows are good, and the file as a whole was readable."""
        return bool(self.players) and not self.file_errors


def player_key(name: str, club: str) -> tuple[str, str]:
    """How two players are told apart on import: the name and the club, ignoring case and
    spacing (two "José Rivera" from different clubs are two players)."""
    return (_clean(name).casefold(), _clean(club).casefold())


def _clean(value: str) -> str:
    return _SPACES.sub(" ", value).strip()


_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")  # NUL or a lone surrogate: no database stores it


def decode_csv(data: bytes | str) -> tuple[str | None, RowError | None]:
    """An uploaded file's text (UTF-8, a BOM dropped), or why it is not a text CSV: too large,
    not UTF-8, a NUL byte or an invalid character (row 0, field ``file``)."""
    if isinstance(data, str):
        text = data
    else:
        if len(data) > MAX_BYTES:
            return None, RowError(
                0, "file", _("The file is larger than %(kb)s KB.") % {"kb": MAX_BYTES // 1024}
            )
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            row = data[: exc.start].count(b"\n") + 1
            return None, RowError(
                row,
                "file",
                _(
                    "The file is not UTF-8 text: save it as 'CSV UTF-8' in the spreadsheet "
                    "program (first bad byte in row %(row)s)."
                )
                % {"row": row},
            )
    bad = _NOT_TEXT.search(text)
    if bad is not None:
        row = text[: bad.start()].count("\n") + 1
        return None, RowError(
            row,
            "file",
            _(
                "The file is not a text CSV: it holds a NUL byte or an invalid character "
                "(first in row %(row)s). Save it as 'CSV UTF-8' in the spreadsheet program."
            )
            % {"row": row},
        )
    return text, None


def _dialect(first_line: str) -> str:
    return ";" if first_line.count(";") > first_line.count(",") else ","


def _header(cells: list[str]) -> tuple[list[str], list[RowError]]:
    names = [c.strip().lower().replace(" ", "_") for c in cells]
    while names and not names[-1]:
        names.pop()  # spreadsheets often export empty trailing columns
    errors: list[RowError] = []
    if "name" not in names:
        shown = ", ".join(c.strip() for c in cells if c.strip())[:80] or _("an empty row")
        errors.append(
            RowError(
                1,
                "header",
                _(
                    "The first row must be a header naming the columns (%(columns)s); it "
                    "reads: %(shown)s."
                )
                % {"columns": ", ".join(COLUMNS), "shown": shown},
            )
        )
        return names, errors
    seen: set[str] = set()
    for name in names:
        if not name:
            errors.append(RowError(1, "header", _("A column has no name.")))
        elif name not in COLUMNS:
            errors.append(
                RowError(
                    1,
                    name,
                    _("Unknown column; the columns are %(columns)s.")
                    % {"columns": ", ".join(COLUMNS)},
                )
            )
        elif name in seen:
            errors.append(RowError(1, name, _("The column appears twice.")))
        seen.add(name)
    return names, errors


def _check_row(number: int, values: dict[str, str], errors: list[RowError]) -> PlayerRow | None:
    """A cleaned row, or ``None`` with its errors appended (every field is checked)."""
    before = len(errors)
    # Nothing visible (zero-width spaces only) is nothing: "Required." for the name.
    name = name_clean(_clean(values.get("name", "")))
    nickname = name_clean(_clean(values.get("nickname", "")))
    club = name_clean(_clean(values.get("club", "")))
    country = values.get("country", "").strip().upper()
    rating_text = values.get("rating", "").strip()
    # The rules of tournament.player_fields, which player_create applies again.
    problems = player_field_problems({"name": name, "nickname": nickname, "club": club})
    country_refused = country_problem(values.get("country", ""))
    if country_refused is not None:
        problems["country"] = country_refused
    rating: int | None = None
    if rating_text:
        # ASCII digits (dominoes.digits): "\d" also took other scripts' digits, and a
        # 5,000-digit rating was a 500 from int().
        rating = parse_int(rating_text.removeprefix("+"))
        if rating is None:
            problems["rating"] = _("%(value)s is not a whole number from 0 to %(max)s.") % {
                "value": repr(rating_text),
                "max": RATING_MAX,
            }
        else:
            rating_refused = rating_problem(rating, typed=rating_text)
            if rating_refused is not None:
                problems["rating"] = rating_refused
    errors.extend(RowError(number, key, reason) for key, reason in problems.items())
    if len(errors) > before:
        return None
    return PlayerRow(number, name, nickname, country, club, rating)


def check_player(values: dict[str, str]) -> tuple[PlayerRow | None, list[RowError]]:
    """One player typed in by hand, checked by the same rules as a CSV row (row 0)."""
    errors: list[RowError] = []
    return _check_row(0, values, errors), errors


def parse_players_csv(
    data: bytes | str, *, entered: Collection[tuple[str, str]] = ()
) -> ImportReport:
    """Read a players CSV and check every row; never raises for bad input.

    ``entered``: :func:`player_key` of every player already entered in the tournament; such a
    row is reported ("already entered"), as is a row repeating an earlier row of the file.
    """
    text, problem = decode_csv(data)
    if problem is not None or text is None:
        return ImportReport(errors=(problem,) if problem else ())
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    if not first:
        return ImportReport(errors=(RowError(0, "file", _("The file is empty.")),))
    reader = csv.reader(io.StringIO(text), delimiter=_dialect(first))
    records: Iterable[list[str]] = reader
    errors: list[RowError] = []
    players: list[PlayerRow] = []
    columns: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    already = set(entered)
    rows_read = 0
    try:
        for number, cells in enumerate(records, start=1):
            if not columns:
                if not any(c.strip() for c in cells):
                    continue  # blank lines above the header
                columns, header_errors = _header(cells)
                if header_errors:
                    return ImportReport(errors=tuple(header_errors), columns=tuple(columns))
                continue
            if not any(c.strip() for c in cells):
                continue
            rows_read += 1
            if rows_read > MAX_ROWS:
                errors.append(
                    RowError(number, "file", _("More than %(max)s players.") % {"max": MAX_ROWS})
                )
                break
            if len(cells) > len(columns) and any(c.strip() for c in cells[len(columns) :]):
                errors.append(
                    RowError(
                        number,
                        "row",
                        _(
                            "%(values)s values for %(columns)s columns (a comma inside a value "
                            "needs quotes)."
                        )
                        % {"values": len(cells), "columns": len(columns)},
                    )
                )
                continue
            values = dict(zip(columns, cells, strict=False))
            row = _check_row(number, values, errors)
            if row is None:
                continue
            key = player_key(row.name, row.club)
            if key in already:
                errors.append(
                    RowError(
                        number,
                        "name",
                        _("%(name)s is already entered in this tournament.") % {"name": row.name},
                    )
                )
            elif key in seen:
                errors.append(
                    RowError(
                        number,
                        "name",
                        _("Repeats row %(row)s (same name and club).") % {"row": seen[key]},
                    )
                )
            else:
                seen[key] = number
                players.append(row)
    except csv.Error as exc:
        errors.append(
            RowError(reader.line_num, "file", _("Unreadable CSV: %(error)s.") % {"error": exc})
        )
    if not columns:
        return ImportReport(errors=(RowError(0, "file", _("The file is empty.")),))
    if rows_read == 0 and not errors:
        errors.append(RowError(0, "file", _("The file has a header but no players.")))
    return ImportReport(
        players=tuple(players), errors=tuple(errors), rows_read=rows_read, columns=tuple(columns)
    )
