"""Six-loves after a forfeit count one way: the standings, their export and the Leaders page
(T7, R46, T10; README rule decision 6).

Walkthrough of a partnership event: a partnership that forfeited and then lost 6-0 at a table
showed ``six_loves_received = 1`` in the live pairs standings and their export, the Leaders
page 2 for each partner: the 0-6 forfeit is a six-love received by each partner (T7), and the
standings missed it. The partnership that won by the forfeit had 1 six-love given in the
standings and 2 on the Leaders page: ``match_forfeit`` stored a six-love given on the winners'
seats, though a forfeit is never a six-love won at the table (R31c). Now the forfeit is the
forfeiting side's 0-6 loss and six-love received, the winners get the match win and no
six-love given, on every page (``brackets.selectors.stage_data.standings_line``); the same for
an individual forfeit.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import RoundMatch
from brackets.selectors.stage_data import seat_data, standings_line
from live import selectors as live
from ratings.stats import player_stats, tournament_leaders
from scoring.models import Match, Seat
from scoring.services import match_forfeit, match_result_override, match_start
from tests.brackets.pairs_helpers import seeded_pairs
from tests.factories import TournamentFactory, director_of, match_in_progress
from tests.live.forfeit_event import _win, forfeit_event
from tournament.models import Entry, Partnership, PartnershipMember

pytestmark = pytest.mark.django_db


def _leaders(tournament_id: int, entry_ids: list[int]) -> tuple[int, int]:
    """(six-loves given, received) the Leaders page counts for these entries' players, each
    player on their own (a partnership's players hold the same counts, R46)."""
    counts = set()
    for entry in Entry.objects.filter(pk__in=entry_ids):
        totals = player_stats(player_id=entry.player_id, tournament_id=tournament_id).totals
        counts.add((totals["six_love_given"], totals["six_love_received"]))
    assert len(counts) == 1, counts
    return counts.pop()


def _board(tournament_id: int, stat: str) -> dict[int, int]:
    """A Leaders board (``/stats/<slug>/``): player id -> value (nobody on 0)."""
    return {
        r.player_id: r.value for r in tournament_leaders(tournament_id=tournament_id)[stat].rows
    }


def _play_to_a_six_love(match: Match, actor: Any, winner: int) -> None:
    """``winner``'s side wins every hand until the match ends (a six-love at the table)."""
    match_start(match_id=match.pk, actor=actor)
    while True:
        match.refresh_from_db()
        if match.status == Match.Status.FINISHED:
            return
        _win(match, actor, winner)


def _pair_of(entry_id: int) -> Partnership:
    return PartnershipMember.objects.get(entry_id=entry_id).partnership


def test_a_pairs_forfeit_counts_alike_in_standings_export_and_leaders(client: Client) -> None:
    """Four partnerships. Round 1: table 1's AC wins 6-0 at the table, table 2 by a director
    result. Round 2: the partnership that lost 6-0 forfeits (T7)."""
    t, d, q = seeded_pairs(4)
    r1 = services.round_publish(stage=q, actor=d)
    links = list(RoundMatch.objects.filter(round=r1).order_by("table_number"))
    table1 = Match.objects.get(pk=links[0].match_id)
    _play_to_a_six_love(table1, d, 0)
    six_love_winners = _pair_of(Seat.objects.get(match=table1, seat=0).entry_id)
    loser = _pair_of(Seat.objects.get(match=table1, seat=1).entry_id)
    match_result_override(
        match_id=links[1].match_id,
        actor=d,
        scores=[6, 0, 6, 0],
        placings=[1, 3, 1, 3],
        reason="sheet",
    )
    services.round_close(round=r1, actor=d)
    r2 = services.round_publish(stage=q, actor=d)
    mine = set(loser.members.values_list("entry_id", flat=True))
    (forfeited,) = [
        m
        for m in Match.objects.filter(round_link__round=r2)
        if mine & set(m.seats.values_list("entry_id", flat=True))
    ]
    seats = list(forfeited.seats.order_by("seat").values_list("entry_id", flat=True))
    seat = next(i for i, e in enumerate(seats) if e in mine)
    match_forfeit(match_id=forfeited.pk, actor=d, seat=seat, reason="no-show")
    winners = _pair_of(seats[1 - seat % 2])

    (stage,) = live.standings(tournament=t)["stages"]
    rows = {r["pair_id"]: r for r in stage["rows"]}
    exported = {
        r["members"]: r
        for r in client.get(f"/live/{t.slug}/export/standings.json").json()
        if r["stage"] == q.name
    }
    assert len(exported) == len(rows) == 4
    for pair in Partnership.objects.filter(tournament=t):
        entries = list(pair.members.values_list("entry_id", flat=True))
        row = rows[pair.pk]
        members = " & ".join(p["name"] for p in row["players"])
        counted = (row["six_loves_given"], row["six_loves_received"])
        out = exported[members]
        assert (out["six_loves_given"], out["six_loves_received"]) == counted, members
        assert _leaders(t.pk, entries) == counted, members

    forfeiting, won = rows[loser.pk], rows[winners.pk]
    # T7: the 0-6 forfeit and the 6-0 loss at the table.
    assert (forfeiting["forfeits"], forfeiting["six_loves_received"]) == (1, 2)
    assert forfeiting["six_loves_given"] == 0
    # The forfeit is the winners' match win, never a six-love given (R31c): only a 6-0 at the
    # table counts.
    assert won["match_wins"] >= 1
    assert won["six_loves_given"] == (1 if winners.pk == six_love_winners.pk else 0)
    stored = Seat.objects.filter(match=forfeited).order_by("seat")
    side = seat % 2
    assert [(s.six_love_given, s.six_love_received) for s in stored] == [
        (0, 1) if i % 2 == side else (0, 0) for i in range(4)
    ]


def test_an_individual_forfeit_counts_alike_in_standings_export_and_leaders(
    client: Client,
) -> None:
    """``tests.live.forfeit_event``: C withdraws from a table of four (T7), B wins the
    continuation six-love to A and D. C: one six-love received (the 0-6 loss); B: two given,
    at the continuation (one to each of A and D); A and D one received each; the same on every
    page."""
    ev = forfeit_event()
    (stage,) = live.standings(tournament=ev.tournament)["stages"]
    rows = {r["entry_id"]: r for r in stage["rows"]}
    exported = {
        r["entry_id"]: r
        for r in client.get(f"/live/{ev.tournament.slug}/export/standings.json").json()
    }
    expected = dict(zip(ev.entries, [(0, 1), (2, 0), (0, 1), (0, 1)], strict=True))
    for entry_id, counts in expected.items():
        for row in (rows[entry_id], exported[entry_id]):
            assert (row["six_loves_given"], row["six_loves_received"]) == counts, entry_id
        assert _leaders(ev.tournament.pk, [entry_id]) == counts, entry_id


def test_a_two_player_forfeit_gives_no_six_love() -> None:
    """At two players the opponent wins 6-0 by the forfeit (T7): the match win and the target,
    no six-love given; the forfeiting player a six-love received. The stored seat (what the
    Leaders page sums) and the standings line agree."""
    t = TournamentFactory()
    m = match_in_progress(t, n_players=2)
    match_forfeit(match_id=m.pk, actor=director_of(t), seat=1, reason="no-show")
    seats = list(Seat.objects.filter(match=m).order_by("seat"))
    assert [(s.placing, s.points, s.six_love_given, s.six_love_received) for s in seats] == [
        (1, 6, 0, 0),
        (2, 0, 0, 1),
    ]
    for s in seats:
        line = standings_line(m.pk, seat_data(s))
        assert line is not None
        assert (line.six_loves_given, line.six_loves_received) == (
            s.six_love_given,
            s.six_love_received,
        )
        assert _leaders(t.pk, [s.entry_id]) == (s.six_love_given, s.six_love_received)
    assert _board(t.pk, "six_love_given") == {}
    assert _board(t.pk, "six_love_received") == {seats[1].entry.player_id: 1}
