"""Live state of matches for spectators: scores, the next hand's value, the last hand.

Reads the snapshot columns the recording transaction writes (``Match.scores``,
``Match.next_hand``, ``Seat`` results) rather than folding hands, with a fixed number of
queries whatever the number of matches: matches, their seats with players, and the last live
hand of each match (PostgreSQL ``DISTINCT ON``; a correlated subquery on SQLite). The same JSON
shape feeds the live tables page, the public API and the websocket events, so a client applies
an event exactly like a fetch.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict
from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.db import connection
from django.db.models import OuterRef, Subquery

from brackets.models import RoundMatch
from scoring.models import Hand, Match, Seat
from scoring.presenters.partnership import pair_names_by_entry, table_sides

MatchJSON = dict[str, Any]

# What spectators see of ``Match.confirmation_hold`` (issue 15): a hand or a result waiting for
# the players' confirmation, or a result disputed and with the director; null otherwise.
CONFIRMATION_HOLDS = {"hand": "awaiting", "result": "awaiting", "disputed": "disputed"}


def _next_hand_json(next_hand: Any) -> dict[str, Any] | None:
    """The part of the engine's ``NextHand`` a spectator sees: who poses (R5-R10), the value,
    replay, play-off (R26)."""
    if not isinstance(next_hand, dict):
        return None
    forced = bool(next_hand.get("forced")) or next_hand.get("poser") is None
    return {
        "number": next_hand.get("number"),
        # Who poses it (R5-R10, R44), as the referee's page says: a seat, or under a forced
        # pose (R5) nobody in particular: the holder of ``forced_tile``.
        "poser": None if forced else next_hand.get("poser"),
        "forced_tile": (next_hand.get("forced_tile") or "6-6") if forced else None,
        "value": next_hand.get("value"),
        "is_replay": bool(next_hand.get("is_replay")),
        "is_playoff": bool(next_hand.get("is_playoff")),
        "tie_run": next_hand.get("tie_run") or 0,
    }


def hand_json(hand: Hand) -> dict[str, Any]:
    return {
        "number": hand.number,
        "end": hand.end,
        "winner": hand.winner,
        "tied": hand.tied,
        "reset": hand.reset,
        "value": hand.value,
        "paid": hand.paid,
        "llave": hand.llave,
        "scores_after": list(hand.scores_after or []),
        # A block's counts: who tied, on what count (R20), as the referee page shows it.
        "counts": list(hand.counts) if hand.end == Hand.End.BLOCK and hand.counts else None,
    }


def round_link(match: Match) -> RoundMatch | None:
    """The match's round link, loaded with ``select_related("round_link__round__stage")``."""
    try:
        link: RoundMatch = match.round_link
    except ObjectDoesNotExist:
        return None
    return link


def _pairs_stage_match(match: Match) -> bool:
    """A four-seat table of a pairs stage (T9): two partnerships, whatever its ruleset says
    before the first hand freezes it (R42)."""
    link = round_link(match)
    return match.n_players == 4 and link is not None and bool(link.round.stage.pairs)


def match_json(
    match: Match,
    seats: Iterable[Seat],
    last_hand: Hand | None,
    pair_names: Mapping[int, str] | None = None,
) -> MatchJSON:
    """One match as spectators see it. ``seats`` carry ``entry__player`` (select_related);
    ``pair_names``: seat 0 and 1 -> the registered partnership name at a pairs table (T9)."""
    scores = list(match.scores or [])
    seat_rows = []
    names: list[str] = []
    seat_scores: list[int] = []
    forfeited_sides: set[int] = set()
    for seat in sorted(seats, key=lambda s: s.seat):
        if seat.forfeited:
            forfeited_sides.add(seat.seat % 2)
        score = scores[seat.seat] if seat.seat < len(scores) else seat.points
        player = seat.entry.player
        names.append(str(player))
        seat_scores.append(score)
        seat_rows.append(
            {
                "seat": seat.seat,
                "entry_id": seat.entry_id,
                "player_id": player.pk,
                "name": names[-1],
                "score": score,
                "love": score == 0,
                "placing": seat.placing,
                "forfeited": seat.forfeited,
            }
        )
    # R42: under teams = partners seats 0/2 and 1/3 are partnerships; a partnership match is
    # won by both partners (T4), whichever of them won the last hand (``winner_seat``).
    # A pairs stage's table is one before its first hand too (T9).
    partners = match.n_players == 4 and (
        (match.ruleset or {}).get("teams") == "partners" or _pairs_stage_match(match)
    )
    winner = match.winner_seat if match.status == "finished" else None
    winner_seats = (
        []
        if winner is None
        else [k for k in range(4) if k % 2 == winner % 2]
        if partners
        else [winner]
    )
    # T7 with T10: a player's forfeit is the partnership's; the other partnership has won the
    # match (as the pairs standings count it), though no seat is recorded as winner.
    if partners and winner is None and match.status == "finished" and len(forfeited_sides) == 1:
        winner_seats = [k for k in range(4) if k % 2 not in forfeited_sides]
    # The two partnerships AC and BD with their one score each (R42), named as the match
    # page and the referee's page name them (registered name in a pairs event, T9).
    sides = table_sides(match, names, seat_scores, pair_names or {}) if partners else ()
    link = round_link(match)
    table_number = match.table.number if match.table is not None else None
    if table_number is None and link is not None:
        table_number = link.table_number
    return {
        "id": match.pk,
        "version": match.version,
        "status": match.status,
        "label": match.label,
        "table_number": table_number,
        "round": None
        if link is None
        else {
            "id": link.round_id,
            "number": link.round.number,
            "kind": link.round.kind,
            # A pairs stage's round: its final is between two partnerships (T10).
            "pairs": link.round.stage.pairs,
        },
        "n_players": match.n_players,
        "hands_count": match.hands_count,
        # A winner only once the match is final: a match waiting for the players' confirmation
        # or under dispute (issue 15) may still change.
        "winner_seat": winner,
        "partners": partners,
        "winner_seats": winner_seats,
        "end_reason": match.end_reason,
        "confirmation_hold": CONFIRMATION_HOLDS.get(match.confirmation_hold),
        # T3: time was called and this table plays on until a hand is won.
        "sudden_death": bool(match.sudden_death) and match.status != "finished",
        "next_hand": _next_hand_json(match.next_hand) if match.status != "finished" else None,
        "last_hand": None if last_hand is None else hand_json(last_hand),
        "seats": seat_rows,
        "sides": [asdict(side) for side in sides],
    }


_LAST_HAND_FIELDS = (
    "match_id",
    "number",
    "end",
    "winner",
    "tied",
    "reset",
    "value",
    "paid",
    "llave",
    "scores_after",
    # A block's counts (R20, ``hand_json``): deferred, they cost a query per table.
    "counts",
)


def _last_hands(match_ids: list[int]) -> dict[int, Hand]:
    """The last live hand of each match, in one query whatever their number.

    PostgreSQL: ``DISTINCT ON (match_id)`` over the (match, number) index. Elsewhere (the
    embedded SQLite default, which has no ``DISTINCT ON``): the hand whose id is the first of
    its match's live hands by descending number, a correlated subquery on the same index.
    Both paths run in the page tests (``TEST_DATABASE=sqlite`` and the default run).
    """
    if not match_ids:
        return {}
    live = Hand.objects.filter(match_id__in=match_ids, void=False)
    if connection.vendor == "postgresql":
        hands = live.order_by("match_id", "-number").distinct("match_id")
    else:
        last = (
            Hand.objects.filter(match_id=OuterRef("match_id"), void=False)
            .order_by("-number")
            .values("pk")[:1]
        )
        hands = live.filter(pk=Subquery(last))
    return {hand.match_id: hand for hand in hands.only(*_LAST_HAND_FIELDS)}


def _seats_by_match(match_ids: list[int]) -> dict[int, list[Seat]]:
    by_match: dict[int, list[Seat]] = defaultdict(list)
    if match_ids:
        seats = Seat.objects.filter(match_id__in=match_ids).select_related("entry__player")
        for seat in seats:
            by_match[seat.match_id].append(seat)
    return by_match


def matches_json(matches: list[Match]) -> list[MatchJSON]:
    """JSON for ``matches`` loaded with ``select_related("table", "round_link__round__stage")`` (or
    with ``round_link`` set by the caller): two more queries, whatever their number, and one
    for the partnerships' names when a table of a pairs stage is among them (T9)."""
    ids = [m.pk for m in matches]
    seats = _seats_by_match(ids)
    last = _last_hands(ids)
    pair_names = _pair_names(matches, seats)
    return [
        match_json(m, seats.get(m.pk, []), last.get(m.pk), pair_names.get(m.pk)) for m in matches
    ]


def _pair_names(matches: list[Match], seats: Mapping[int, list[Seat]]) -> dict[int, dict[int, str]]:
    """Match id -> seat 0 and 1 -> registered partnership name, for the tables of pairs
    stages (T9): one query when there is one, none otherwise."""
    by_match = {
        m.pk: {s.seat: s.entry_id for s in seats.get(m.pk, []) if s.seat < 2}
        for m in matches
        if _pairs_stage_match(m)
    }
    names = pair_names_by_entry([e for by_seat in by_match.values() for e in by_seat.values()])
    return {
        pk: {k: names.get(entry_id, "") for k, entry_id in by_seat.items()}
        for pk, by_seat in by_match.items()
    }


def match_live(*, match_id: int, tournament_id: int | None = None) -> MatchJSON | None:
    """One match's live JSON (three queries), or ``None`` if it does not exist (there)."""
    qs = Match.objects.select_related("table", "round_link__round__stage").filter(pk=match_id)
    if tournament_id is not None:
        qs = qs.filter(tournament_id=tournament_id)
    match = qs.first()
    if match is None:
        return None
    return matches_json([match])[0]


def match_version(*, match_id: int) -> int:
    """The match's current version (0 if it is gone)."""
    version = Match.objects.filter(pk=match_id).values_list("version", flat=True).first()
    return int(version or 0)
