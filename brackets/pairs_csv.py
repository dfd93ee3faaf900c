"""Reading a pairs CSV (T9): the players CSV (:mod:`brackets.csv_import`) plus a ``pair``
column; the two rows sharing a ``pair`` value are one partnership, named by that value.

Pure (no database). Every row is checked by the players CSV reader itself (same columns,
limits and row numbers); this module only takes the ``pair`` column out first and then checks
that every pair value names exactly two valid rows.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from brackets.csv_import import (
    ImportReport,
    PlayerRow,
    RowError,
    decode_csv,
    parse_players_csv,
)

PAIR_COLUMN = "pair"


@dataclass(frozen=True, slots=True)
class PairsReport:
    """The players report, the partnerships found (label, two rows) and pair-level errors."""

    players: ImportReport
    pairs: tuple[tuple[str, PlayerRow, PlayerRow], ...] = ()
    errors: tuple[RowError, ...] = ()

    @property
    def all_errors(self) -> tuple[RowError, ...]:
        return tuple(sorted((*self.players.errors, *self.errors), key=lambda e: e.row))


def parse_pairs_csv(data: bytes | str, *, entered: tuple[tuple[str, str], ...] = ()) -> PairsReport:
    """Check a pairs CSV, an uploaded file's bytes or pasted text; never raises for bad input.
    A file is read as the players import reads it (:func:`decode_csv`: UTF-8, no NUL)."""
    decoded, problem = decode_csv(data)
    if problem is not None or decoded is None:
        return PairsReport(players=ImportReport(errors=(problem,) if problem else ()))
    text = decoded.lstrip("\ufeff")
    first = next((line for line in text.splitlines() if line.strip()), "")
    delimiter = ";" if first.count(";") > first.count(",") else ","
    try:
        records = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as exc:
        return PairsReport(
            players=parse_players_csv(text, entered=entered),
            errors=(RowError(0, "file", _("Unreadable CSV: %(error)s.") % {"error": exc}),),
        )
    header_at = next((i for i, r in enumerate(records) if any(c.strip() for c in r)), None)
    if header_at is None:
        return PairsReport(players=parse_players_csv(text, entered=entered))
    header = [c.strip().lower() for c in records[header_at]]
    if PAIR_COLUMN not in header:
        report = parse_players_csv(text, entered=entered)
        return PairsReport(
            players=report,
            errors=(RowError(1, PAIR_COLUMN, _("A pairs file needs a 'pair' column (T9).")),),
        )
    k = header.index(PAIR_COLUMN)
    labels: dict[int, str] = {}
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    for number, row in enumerate(records, start=1):
        if number - 1 > header_at and k < len(row):
            labels[number] = row[k].strip()
        writer.writerow([c for i, c in enumerate(row) if i != k])
    report = parse_players_csv(out.getvalue(), entered=entered)
    errors: list[RowError] = []
    groups: dict[str, list[PlayerRow]] = {}
    for p in report.players:
        label = labels.get(p.row, "")
        if not label:
            errors.append(RowError(p.row, PAIR_COLUMN, _("Name the player's partnership (T9).")))
            continue
        groups.setdefault(label, []).append(p)
    pairs = []
    for label, rows in groups.items():
        if len(rows) != 2:
            for p in rows:
                errors.append(
                    RowError(
                        p.row,
                        PAIR_COLUMN,
                        ngettext(
                            "Partnership '%(label)s' has %(n)s valid row; it needs two (T9).",
                            "Partnership '%(label)s' has %(n)s valid rows; it needs two (T9).",
                            len(rows),
                        )
                        % {"label": label, "n": len(rows)},
                    )
                )
            continue
        if len(label) > 120:
            errors.append(
                RowError(rows[0].row, PAIR_COLUMN, _("At most %(max)s characters.") % {"max": 120})
            )
            continue
        pairs.append((label, rows[0], rows[1]))
    return PairsReport(players=report, pairs=tuple(pairs), errors=tuple(errors))
