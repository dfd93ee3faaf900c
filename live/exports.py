"""Public exports of a tournament: players, matches, hands and standings as CSV or JSON.

Only what spectators may already see (a draft answers 404; no user id, client address or
idempotency key). No CSV cell can become a spreadsheet formula (OWASP, "CSV injection";
docs/security.md): a formula trigger (``=``, ``+``, ``-``, ``@``, a tab or a carriage return)
gets an apostrophe before it at the start of the cell AND after any separator a spreadsheet
might split the cell at (``,`` ``;`` tab ``|`` or a line break, then spaces or quotes), since a
spreadsheet whose list separator is ``;`` reads ``Eve;=2+5`` as two cells; and a cell holding a
separator is quoted. So a player named ``=HYPERLINK(...)`` or ``Eve;=2+5`` is shown as text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch

from brackets.models import StageEntry
from brackets.selectors import tournament_placings
from brackets.selectors.pairs import pair_seed
from live.presenters.documents import json_document
from live.scope import PublicTournament
from scoring.engine.placing import seat_side_places
from scoring.models import Hand, Match, Seat
from tournament.models import Entry, PartnershipMember
from tournament.partnerships import partnership_label, partnership_list

KINDS = ("players", "matches", "hands", "standings")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# Where a spreadsheet may start a new cell: the list separators in use (comma, semicolon, tab,
# pipe) and line breaks (a ";" spreadsheet does not honour the "," file's quotes).
CELL_SEPARATORS = ",;\t|\r\n"
# A trigger at the start, or after a separator and any spaces or quotes: the apostrophe goes
# just before the trigger.
_FORMULA = re.compile(r"(?:^|(?<=[,;\t|\r\n]))([ \"]*)(?=[=+\-@\t\r])")
_NEEDS_QUOTES = re.compile(r'[,;\t|\r\n"]|^\s|\s$')
SEAT_LETTERS = "ABCD"


def csv_safe(value: Any) -> Any:
    """``value`` as a CSV cell that no spreadsheet evaluates, however it splits the cell at a
    separator (numbers stay numbers)."""
    if isinstance(value, str):
        return _FORMULA.sub(r"\1'", value)
    return value


def csv_cell(value: Any) -> str:
    """One cell of CSV text: :func:`csv_safe`, then quoted (quotes doubled) when it holds a
    separator, a quote, a line break or spaces at either end."""
    value = csv_safe("" if value is None else value)
    text = str(value)
    if isinstance(value, str) and _NEEDS_QUOTES.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def to_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """The one CSV writer of the exports (RFC 4180, CRLF; every cell through :func:`csv_cell`)."""
    lines = [",".join(map(csv_cell, header))]
    lines += [",".join(map(csv_cell, row)) for row in rows]
    return "\r\n".join(lines) + "\r\n"


def _players(t: PublicTournament) -> tuple[list[str], Iterator[list[Any]]]:
    # ``partnership`` is appended (existing columns keep their positions): in a pairs event
    # (T9) the player's partnership, named as the bracket names it; empty otherwise.
    header = [
        "entry_id",
        "seed",
        "name",
        "nickname",
        "country",
        "club",
        "rating",
        "status",
        "partnership",
    ]
    entries = (
        Entry.objects.filter(tournament_id=t.id).select_related("player").order_by("seed", "id")
    )
    pairs = _player_pairs(t.id)
    seeds = {} if pairs.seed else _first_stage_seeds(t.id)
    return header, (
        [
            e.pk,
            pairs.seed.get(e.pk, seeds.get(e.pk, e.seed)),
            e.player.name,
            e.player.nickname,
            e.player.country,
            e.player.club,
            e.player.rating,
            e.status,
            pairs.label.get(e.pk),
        ]
        for e in entries.iterator(chunk_size=2000)
    )


def _first_stage_seeds(tournament_id: int) -> dict[int, int]:
    """Entry id -> the player's seed in the first stage (1, 2, ...; T8), as the stage's
    seeding list and the standings show it; empty before the first stage is seeded
    (one query). The entry's own ``seed`` is only a director's manual order, often empty."""
    rows = list(
        StageEntry.objects.filter(stage__tournament_id=tournament_id)
        .order_by("stage__number")
        .values_list("stage__number", "entry_id", "seed")
    )
    if not rows:
        return {}
    first = rows[0][0]
    return {entry_id: seed for number, entry_id, seed in rows if number == first}


@dataclass(frozen=True)
class _PlayerPairs:
    seed: dict[int, int]
    """Entry id -> its partnership's seed in the first stage (1, 2, ...: T8 over partnerships,
    T9); a pairs event seeds partnerships in its stages, never the entries themselves."""
    label: dict[int, str]
    """Entry id -> its partnership named once, "Los Primos (Ana & Bea)" (T9)."""


def _player_pairs(tournament_id: int) -> _PlayerPairs:
    """Every player's partnership in a pairs event (a substitute's too, T11), with the seed it
    had in the first stage; empty for an individual event (five queries; one if none)."""
    pair_of = dict(
        PartnershipMember.objects.filter(partnership__tournament_id=tournament_id).values_list(
            "entry_id", "partnership_id"
        )
    )
    if not pair_of:
        return _PlayerPairs(seed={}, label={})
    labels = {
        p.id: partnership_label(p.name, [name for _, name, _ in p.players])
        for p in partnership_list(tournament_id=tournament_id)
    }
    label = {e: labels[p] for e, p in pair_of.items() if p in labels}
    first = (
        StageEntry.objects.filter(stage__tournament_id=tournament_id)
        .order_by("stage__number")
        .values_list("stage__number", flat=True)
        .first()
    )
    best: dict[int, int] = {}
    if first is not None:  # seeded
        for entry_id, seed in StageEntry.objects.filter(
            stage__tournament_id=tournament_id, stage__number=first
        ).values_list("entry_id", "seed"):
            pid = pair_of.get(entry_id)
            if pid is not None:
                best[pid] = min(seed, best.get(pid, seed))
    return _PlayerPairs(
        seed={e: pair_seed(best[p]) for e, p in pair_of.items() if p in best}, label=label
    )


def _seat_columns() -> list[str]:
    return [f"{c}_{x}" for c in SEAT_LETTERS for x in ("name", "score", "placing")]


def _matches(t: PublicTournament) -> tuple[list[str], Iterator[list[Any]]]:
    header = [
        "match_id",
        "table",
        "label",
        "status",
        "end_reason",
        "started_at",
        "finished_at",
        "hands",
        "winner",
        *_seat_columns(),
        # Appended, so existing columns keep their positions: each seat's entry id (the
        # players export's ``entry_id``), which tells namesakes apart.
        *(f"{c}_entry_id" for c in SEAT_LETTERS),
    ]
    seats = Prefetch("seats", queryset=Seat.objects.select_related("entry__player"))
    matches = (
        Match.objects.filter(tournament_id=t.id)
        .select_related("table")
        .prefetch_related(seats)
        .order_by("id")
    )

    def row(m: Match) -> list[Any]:
        by_seat = {s.seat: s for s in m.seats.all()}
        partners = m.n_players == 4 and (m.ruleset or {}).get("teams") == "partners"
        places: list[int | None]
        if partners and len(by_seat) == 4 and m.status == Match.Status.FINISHED:
            # R42/T4: a partner's placing column holds the partnership's place (1 or 2 of
            # the two), as every page reads it, not the seat placing (1, 3) stored.
            ordered = [by_seat[i] for i in range(4)]
            places = seat_side_places([s.placing for s in ordered], [s.forfeited for s in ordered])
        else:
            places = [by_seat[i].placing if i in by_seat else None for i in range(4)]
        cells: list[Any] = []
        for i in range(4):
            s = by_seat.get(i)
            score = m.scores[i] if s is not None and i < len(m.scores or []) else None
            cells += [s.entry.player.name if s else None, score, places[i] if s else None]
        winner = None
        if m.winner_seat is not None:
            # R42/T4: a partnership match is won by the partnership (AC or BD), whichever
            # partner won its last hand.
            side = m.winner_seat % 2
            winner = (
                SEAT_LETTERS[side] + SEAT_LETTERS[side + 2]
                if partners
                else SEAT_LETTERS[m.winner_seat]
            )
        return [
            m.pk,
            m.table.number if m.table else None,
            m.label,
            m.status,
            m.end_reason,
            m.started_at.isoformat() if m.started_at else None,
            m.finished_at.isoformat() if m.finished_at else None,
            m.hands_count,
            winner,
            *cells,
            *(by_seat[i].entry_id if i in by_seat else None for i in range(4)),
        ]

    return header, (row(m) for m in matches.iterator(chunk_size=500))


def _hands(t: PublicTournament) -> tuple[list[str], Iterator[list[Any]]]:
    header = [
        "match_id",
        "number",
        "poser",
        "pose_tile",
        "end",
        "winner",
        "counts",
        "value",
        "paid",
        "tied",
        "reset",
        "llave",
        "scores_after",
        "void",
        "recorded_at",
    ]
    hands = Hand.objects.filter(match__tournament_id=t.id).order_by("match_id", "number", "id")

    def letter(seat: int | None) -> str | None:
        return SEAT_LETTERS[seat] if seat is not None else None

    return header, (
        [
            h.match_id,
            h.number,
            letter(h.poser),
            h.pose_tile,
            h.end,
            letter(h.winner),
            " ".join(map(str, h.counts)) if h.counts else None,
            h.value,
            h.paid,
            h.tied,
            h.reset,
            h.llave,
            " ".join(map(str, h.scores_after or [])),
            h.void,
            h.recorded_at.isoformat(),
        ]
        for h in hands.iterator(chunk_size=2000)
    )


STANDINGS_COLUMNS = [
    "rank",
    "name",
    "club",
    "seed",
    "played",
    "byes",
    "match_wins",
    "hands_won",
    "six_loves_given",
    "head_to_head",
    "points",
    "six_loves_received",
    "llaves",
    "ties",
    "replays_won",
    "forfeits",
    "status",
    "outlook",
    # Appended, so existing columns keep their positions: the place in the event (T6), on
    # the row of the stage that placed it, as the bracket lists it (a player out at an earlier
    # stage's cut has it on that stage's row; the final places on the last stage's rows).
    "place",
    # Appended too: a partnership's two players (T9), "Ana & Bea"; empty on a player's row.
    "members",
    # Appended too: the player's entry id (the players export's ``entry_id``), which tells
    # namesakes apart; on a partnership's row its two players' entry ids, "12 & 13".
    "entry_id",
]

#: A partnership's row (a pairs stage, T9, T10) in the standings export's columns. ``name`` is
#: its registered name, or its players when it has none; ``members`` its two players (its
#: current ones, T11); ``club`` its players' clubs (once when they share it); ``seed`` its seed
#: in the stage (1, 2, ...); ``played`` to ``head_to_head`` and ``forfeits`` count the
#: partnership once per match (R46); ``points`` its points for (the match points its side
#: scored, T10); ``status``, ``outlook`` and ``place`` as a player's row, the place being the
#: partnership's place in the event on the row of the stage that placed it (the bracket's).
#: ``llaves``, ``ties`` and ``replays_won`` are the partnership's R35 statistics (R42: kept per
#: player and per partnership), each event once per partnership (R46: a tied hand is one tie,
#: a replay both partners won one replay won) over its matches, a forfeited one counting none
#: (T7), as the standings document has them.
PAIR_ROW_KEYS: dict[str, str] = {"points": "points_for"}


def _pair_row(row: dict[str, Any]) -> list[Any]:
    players = row.get("players") or []
    clubs = list(dict.fromkeys(p.get("club") for p in players if p.get("club")))
    derived = {
        "members": " & ".join(p["name"] for p in players if p.get("name")),
        "entry_id": " & ".join(str(p["entry_id"]) for p in players if p.get("entry_id")),
        "club": " & ".join(clubs),
    }
    out: list[Any] = []
    for column in STANDINGS_COLUMNS:
        if column in derived:
            out.append(derived[column])
            continue
        out.append(row.get(PAIR_ROW_KEYS.get(column, column)))
    return out


def _player_row(row: dict[str, Any], place: int | None) -> list[Any]:
    """A player's row (an individual stage) in the standings export's columns, ``place`` the
    player's event place when this stage placed them (:func:`_event_places`), else empty."""
    return [place if column == "place" else row.get(column) for column in STANDINGS_COLUMNS]


def _event_places(tournament_id: int) -> dict[tuple[int, int], int]:
    """(stage number, entry id) -> the player's place in the event, on the stage that placed
    them: the deepest stage where they hold a place (T6), as the bracket lists it
    (:func:`brackets.selectors.tournament_placings`, one query). The standings document keeps
    ``place`` for the finished last stage only (its API meaning); the export fills it for
    players out at an earlier stage's cut too, as a pairs row has it (:mod:`live.pairs`)."""
    return {
        (p.stage_number, p.entry_id): p.place
        for p in tournament_placings(tournament_id=tournament_id)
    }


def _standings(t: PublicTournament) -> tuple[list[str], Iterator[list[Any]]]:
    document = json.loads(json_document("standings", t)) or {"stages": []}
    header = ["stage", *STANDINGS_COLUMNS]
    individual = any(not stage.get("pairs") for stage in document["stages"])
    places = _event_places(t.id) if individual else {}
    return header, (
        [
            stage["stage"]["name"],
            *(
                _pair_row(row)
                if stage.get("pairs")
                else _player_row(row, places.get((stage["stage"]["number"], row.get("entry_id"))))
            ),
        ]
        for stage in document["stages"]
        for row in stage["rows"]
    )


_TABLES = {"players": _players, "matches": _matches, "hands": _hands, "standings": _standings}


def export_csv(kind: str, t: PublicTournament) -> str:
    header, rows = _TABLES[kind](t)
    return to_csv(header, rows)


def export_json(kind: str, t: PublicTournament) -> list[dict[str, Any]]:
    header, rows = _TABLES[kind](t)
    return [dict(zip(header, row, strict=True)) for row in rows]
