"""Reads of the scoring app: the engine state of a match, scoped lists (HackSoft selectors).

Fetch first, then compute (STYLE.md §2): :func:`match_hand_records` loads a match's non-void
hands in ONE query as plain engine ``HandRecord`` values, and :func:`match_fold_records` folds
them with the pure engine. The stored snapshot columns are a cache of that fold.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Prefetch, Q, QuerySet

from core.exceptions import NotFoundError
from core.sql import Columns, prepared_cursor
from core.sql import column as sql_column
from core.sql import table as sql_table
from scoring.engine import Ruleset, Tile
from scoring.engine.match import HandScored, MatchState, match_apply, match_fold, match_start
from scoring.engine.match_state import PlayerStats
from scoring.engine.record import EndKind, HandRecord
from scoring.models import Hand, Match, ResultDispute, Seat
from tournament.models import Tournament

_RECORD_COLUMNS = ("number", "poser", "pose_tile", "end", "winner", "counts", "llave", "sporting")

_RECORD_SQL_COLUMNS = Columns(Hand, _RECORD_COLUMNS)

_RULESETS: dict[str, Ruleset] = {}


def match_ruleset(match: Match) -> Ruleset:
    """The ruleset frozen on ``match`` at start (cached per JSON text; Ruleset is immutable)."""
    return _ruleset_of(match.ruleset)


def _ruleset_of(data: dict[str, Any]) -> Ruleset:
    """A frozen ruleset's JSON as a :class:`Ruleset`, cached per JSON text."""
    import json

    text = json.dumps(data, sort_keys=True)
    ruleset = _RULESETS.get(text)
    if ruleset is None:
        ruleset = Ruleset.from_json(data)
        if len(_RULESETS) > 256:
            _RULESETS.clear()
        _RULESETS[text] = ruleset
    return ruleset


def hand_record_from_row(row: dict[str, Any]) -> HandRecord:
    """A stored hand's columns → the engine record (a block's winner is derived, R20)."""
    end = EndKind(row["end"])
    counts = row["counts"]
    return HandRecord(
        poser=row["poser"],
        pose_tile=Tile.parse(row["pose_tile"]),
        end=end,
        winner=row["winner"] if end is EndKind.DOMINO else None,
        counts=tuple(counts) if counts is not None else None,
        llave=row["llave"],
        sporting=row["sporting"],
    )


def match_hand_records(*, match_id: int) -> list[HandRecord]:
    """The match's non-void hands in number order, as engine records: exactly one query.

    Precompiled SQL (``core.sql``): this runs on every hand a referee records, and compiling
    the equivalent queryset cost more than reading the rows (bench/bench_hands.py).
    """
    columns = _RECORD_SQL_COLUMNS
    sql = (
        f"SELECT {columns.sql} FROM {sql_table(Hand)} "  # noqa: S608 (names from _meta)
        f"WHERE {sql_column(Hand, 'match')} = %s AND {sql_column(Hand, 'void')} = %s "
        f"ORDER BY {sql_column(Hand, 'number')}"
    )
    with prepared_cursor() as cursor:
        cursor.execute(sql, [match_id, False])
        rows = cursor.fetchall()
    return [hand_record_from_row(r) for r in columns.dicts(rows)]


def match_fold_records(
    match: Match, records: Sequence[HandRecord]
) -> tuple[MatchState, list[HandScored], list[tuple[int, ...]]]:
    """Fold ``records`` from the start of ``match`` (pure; no query).

    Returns the state, every hand's ``HandScored`` and the score line after each hand (used to
    place players by who reached their score first, T3/T4).
    """
    state = match_start(match_ruleset(match), match.n_players, lot_winner=match.lot_winner)
    scored: list[HandScored] = []
    for record in records:
        state, result = match_apply(state, record)
        scored.append(result)
    return state, scored, [s.scores_after for s in scored]


def match_state(*, match: Match) -> MatchState:
    """The engine state of a started match, folded from its stored non-void hands."""
    state, _, _ = match_fold_records(match, match_hand_records(match_id=match.pk))
    return state


def matches_team_stats(*, matches: QuerySet[Match]) -> dict[int, tuple[PlayerStats, ...]]:
    """Match id -> the ``(AC, BD)`` statistics (R35, each event counted once per partnership,
    R46) of every partnership match in ``matches``, folded by the engine from the stored
    non-void hands: two queries.

    Folded, not read from ``Match.engine_state``: that snapshot is a cache of the last hand's
    fold, retired whenever the match version moves on (an override clears it), so it cannot be
    the record of a finished match. A match whose hands do not fold (none of a partnership
    ruleset, or records the engine refuses) is left out and the caller falls back on the seats.
    """
    rows = list(matches.values_list("id", "ruleset", "n_players", "lot_winner"))
    ids = [r[0] for r in rows if r[1] and r[1].get("teams") == "partners" and r[2] == 4]
    if not ids:
        return {}
    records: dict[int, list[HandRecord]] = {m: [] for m in ids}
    for row in (
        Hand.objects.filter(match_id__in=ids, void=False)
        .order_by("match_id", "number")
        .values("match_id", *_RECORD_COLUMNS)
    ):
        records[row["match_id"]].append(hand_record_from_row(row))
    out: dict[int, tuple[PlayerStats, ...]] = {}
    for match_id, ruleset_json, n, lot_winner in rows:
        if match_id not in records:
            continue
        try:
            ruleset = _ruleset_of(ruleset_json)
            state = match_fold(ruleset, n, records[match_id], lot_winner=lot_winner)
        except ValueError:  # EngineError included: a refused record or ruleset
            continue
        if state.team_stats is not None:
            out[match_id] = state.team_stats
    return out


def match_missing(match_id: int) -> str:
    """The 404 message of a match id that does not exist, and of a match the caller may not
    see (a hidden draft's: ``tournament.context.require_visible``): one text, so the two
    cannot be told apart."""
    return f"No match {match_id}."


def match_get(*, match_id: int) -> Match:
    try:
        return Match.objects.select_related("tournament").get(pk=match_id)
    except Match.DoesNotExist:
        raise NotFoundError(match_missing(match_id), code="not_found") from None


def match_detail_get(*, match_id: int) -> Match:
    """A match with its tournament, table, referee and seats (entry, player): three queries."""
    try:
        return (
            Match.objects.select_related("tournament", "table", "referee")
            .prefetch_related(
                Prefetch(
                    "seats",
                    queryset=Seat.objects.select_related("entry__player").order_by("seat"),
                )
            )
            .get(pk=match_id)
        )
    except Match.DoesNotExist:
        raise NotFoundError(match_missing(match_id), code="not_found") from None


def match_list(
    *,
    tournament: Tournament,
    status: str | None = None,
    table_id: int | None = None,
    referee_id: int | None = None,
) -> QuerySet[Match]:
    """Matches of ONE tournament (always filtered by it: no cross-tournament listing)."""
    qs = (
        Match.objects.filter(tournament=tournament)
        .select_related("table", "referee")
        .prefetch_related(
            Prefetch(
                "seats", queryset=Seat.objects.select_related("entry__player").order_by("seat")
            )
        )
        .order_by("id")
    )
    if status:
        qs = qs.filter(status=status)
    if table_id is not None:
        qs = qs.filter(table_id=table_id)
    if referee_id is not None:
        qs = qs.filter(referee_id=referee_id)
    return qs


def hand_list(*, match: Match, include_void: bool = True) -> QuerySet[Hand]:
    qs = Hand.objects.filter(match=match).order_by("number", "id")
    if not include_void:
        qs = qs.filter(void=False)
    return qs


#: The idempotency key of the player's version a director records to settle a dispute:
#: this prefix and the dispute's id (``scoring.services.confirmations.dispute_resolve``).
DISPUTE_KEY_PREFIX = "dispute-"


def hand_decided_on_dispute(*, match_id: int, hand: Hand) -> bool:
    """Whether ``hand`` stands by a director's decision on a player's dispute (issue 15): the
    recorded version upheld, or the player's version the director recorded in its place (its
    idempotency key ``dispute-<id>``, ``scoring.services.confirmations.dispute_resolve``).
    Only a director may undo such a hand: a referee's undo would overturn the ruling. One
    query."""
    decided = Q(hand_id=hand.pk, status=ResultDispute.Status.UPHELD)
    key = hand.idempotency_key or ""
    if key.startswith(DISPUTE_KEY_PREFIX) and key[len(DISPUTE_KEY_PREFIX) :].isdigit():
        pk = int(key[len(DISPUTE_KEY_PREFIX) :])
        decided |= Q(pk=pk, status=ResultDispute.Status.CORRECTED)
    return ResultDispute.objects.filter(Q(match_id=match_id) & decided).exists()
