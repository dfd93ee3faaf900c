"""T6 and T3: players still level after a play-off table play a further table; seed order
never decides who goes on. Against the real database, through the services the director's
pages and the automatic advance call."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from brackets import services
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.selectors import stage_data, went_on
from live import selectors as live
from scoring.models import Match, Seat
from scoring.services import match_result_override
from tests.brackets.conftest import make_tournament, open_matches
from tests.brackets.factories_pages import director_client
from tests.brackets.test_brackets_services import finish_round, qualifying, seated

pytestmark = pytest.mark.django_db


def _override(rnd: Round, director: Any, scores: list[int], placings: list[int]) -> list[int]:
    """The round's one open match ends by the director's result; its players in seat order."""
    (match,) = open_matches(rnd)
    match_result_override(
        match_id=match.pk, actor=director, scores=scores, placings=placings, reason="sheet"
    )
    return list(
        Seat.objects.filter(match=match).order_by("seat").values_list("entry_id", flat=True)
    )


def _marks(stage: Stage, rnd: Round) -> dict[int, bool | None]:
    data = stage_data(stage_id=stage.pk)
    (rd,) = (r for r in data.rounds if r.id == rnd.pk)
    mark = went_on(data, rd)
    return {s.entry_id: mark(s.entry_id) for t in rd.tables for s in t.seats}


def _line(stage: Stage) -> dict[int, dict[str, Any]]:
    (rows,) = (
        s["rows"]
        for s in live.standings(tournament=stage.tournament)["stages"]
        if s["stage"]["number"] == stage.number
    )
    return {r["entry_id"]: r for r in rows}


def test_a_cut_playoff_ended_by_time_before_a_hand_is_played_again() -> None:
    """8 players, one round, top 3: the two 2nd places play off for the third spot. Time is
    called before their first hand, so they share first (T3). Neither goes on by seed: the
    standings still show them on the line and the next step is a further play-off table."""
    t, d = make_tournament(8)
    q = qualifying(t, d, swiss_rounds=1, cut_size=3, auto_advance=False)
    services.stage_create(tournament=t, actor=d, name="Final", kind="knockout", final_table_size=3)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    assert services.round_advance(round_id=r1.pk, actor=d).outcome == "published"
    first = Round.objects.get(stage=q, number=2, kind="playoff")
    level = sorted(first.playoff_players)

    services.round_clock_start(round=first, actor=d, minutes=30)
    services.round_call_time(round=first, actor=d, reason="clock ran out")
    (match,) = Match.objects.filter(round_link__round=first)
    assert (match.end_reason, match.winner_seat) == ("time", None)
    assert set(Seat.objects.filter(match=match).values_list("placing", flat=True)) == {1}

    # Between the tables: nobody decided, the line still shows a play-off needed.
    assert _marks(q, first) == dict.fromkeys(level)
    rows = _line(q)
    assert [rows[p]["playoff_on_line"] for p in level] == [True, True]
    assert [rows[p]["playoff_played"] for p in level] == [False, False]
    assert [rows[p]["rank"] for p in level] == [3, 3]
    bracket = Client().get(f"/live/{t.slug}/bracket/").content.decode()
    assert bracket.count("level: a further play-off table decides") == 2
    assert rows[level[0]]["tie_group"] is not None
    # The director's preview names the further table before anything is stored.
    page = director_client(d).get(reverse("brackets:preview", args=[t.slug, q.pk]))
    assert page.status_code == 200
    assert (
        "the play-off left 2 players level on the advancement line; they play again for 1 place"
        in page.content.decode()
    )
    assert {s.entry_id for table in page.context["preview"].tables for s in table.seats} == set(
        level
    )
    plan = services.round_advance(round_id=first.pk, actor=d)
    assert plan.outcome == "published"
    again = Round.objects.get(stage=q, number=3)
    assert (again.kind, again.advancing, sorted(again.playoff_players)) == ("playoff", 1, level)
    assert [sorted(x) for x in seated(again)] == [level]
    assert Stage.objects.get(pk=q.pk).status == "running"
    assert not StageEntry.objects.filter(stage=q, entry_id__in=level, status="eliminated")
    # While the further table is played the standings keep saying a play-off decides them.
    rows = _line(q)
    assert [rows[p]["playoff_on_line"] for p in level] == [True, True]

    # The further table decides; the final seats its winner, the other is 4th (T6).
    winner, loser = _override(again, d, [6, 0], [1, 2])
    # The first table stays "level" (it decided nothing); the further one decided.
    assert _marks(q, first) == {winner: None, loser: None}
    assert _marks(q, again) == {winner: True, loser: False}
    # The play-off is T5's last key: 3rd and 4th on the standings and the player's page,
    # as in the final placings (no "3=" for a player placed 4th).
    rows = _line(q)
    assert (rows[winner]["rank"], rows[loser]["rank"]) == (3, 4)
    assert rows[winner]["tie_group"] is None
    assert rows[loser]["tie_group"] is None
    assert [rows[p]["playoff_on_line"] for p in level] == [False, False]
    page = Client().get(f"/live/{t.slug}/players/{loser}/").content.decode()
    assert "4 of 8" in page
    seats = _bracket_seats(t, first)
    assert [seats[p]["still_level"] for p in level] == [True, True]
    assert not any(s["still_level"] for s in _bracket_seats(t, again).values())
    assert services.round_advance(round_id=again.pk, actor=d).outcome == "stage_finished"
    final_field = set(
        StageEntry.objects.filter(stage__tournament=t, stage__number=2).values_list(
            "entry_id", flat=True
        )
    )
    assert winner in final_field
    assert loser not in final_field
    assert StageEntry.objects.get(stage=q, entry_id=loser).placing == 4


def test_a_knockout_playoff_leaving_two_level_seats_only_those_two_again() -> None:
    """Top 2 per table to a final of 4: three share table 2's second place and play off for
    one spot. Two of them share first at the play-off (T3): they play again; the third is out
    now, placed after them."""
    t, d = make_tournament(8)
    q = qualifying(t, d, swiss_rounds=1, cut_size=8)
    k = services.stage_create(
        tournament=t, actor=d, name="Knockout", kind="knockout", advance_per_table=2,
        auto_advance=True,
    )  # fmt: skip
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    assert services.round_advance(round_id=r1.pk).outcome == "published"
    ko = Round.objects.get(stage=k, number=1)
    for match, scores, placings in zip(
        open_matches(ko), ([6, 1, 0, 0], [6, 0, 0, 0]), ([1, 2, 3, 4], [1, 2, 2, 2]), strict=True
    ):
        match_result_override(
            match_id=match.pk, actor=d, scores=scores, placings=placings, reason="sheet"
        )
    services.round_advance(round_id=ko.pk)
    first = Round.objects.get(stage=k, number=2, kind="playoff")
    a, b, c = _override(first, d, [0, 0, 0], [1, 1, 3])

    services.round_advance(round_id=first.pk)
    again = Round.objects.get(stage=k, number=3)
    assert (again.kind, again.advancing, sorted(again.playoff_players)) == (
        "playoff",
        1,
        sorted([a, b]),
    )
    assert _marks(k, first) == {a: None, b: None, c: False}
    out = StageEntry.objects.get(stage=k, entry_id=c)
    assert out.status == "eliminated"
    assert out.placing is None or out.placing == 6  # after the 3 through and the 2 level

    winner, loser = _override(again, d, [6, 0], [1, 2])
    assert _marks(k, first) == {winner: None, loser: None, c: False}
    assert _marks(k, again) == {winner: True, loser: False}
    services.round_advance(round_id=again.pk)
    final = Round.objects.get(stage=k, kind="final")
    assert winner in seated(final)[0]
    assert loser not in seated(final)[0]


def test_a_pairs_playoff_table_ended_level_is_played_again() -> None:
    """Three partnerships level for two spots (T10 over T6): one table and a bye. Time is
    called at the table before a hand: no winner (T3). The bye takes one spot; the table's
    two partnerships are still level and play a further table, not a seed decision."""
    from tests.brackets.pairs_helpers import decide_round, make_pairs_tournament, pairs_stages
    from tests.brackets.test_pairs_services import pair_of

    t, d, _ = make_pairs_tournament(6)
    q, k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)  # three winners, level on every T10 key
    services.round_close(round=r1, actor=d)
    po = services.round_publish(stage=q, actor=d)
    owner = pair_of(t)
    bye = owner[po.byes[0]]
    services.round_clock_start(round=po, actor=d, minutes=30)
    services.round_call_time(round=po, actor=d, reason="clock ran out")
    services.round_close(round=po, actor=d)
    at_table = {owner[e] for e in po.playoff_players} - {bye}
    assert len(at_table) == 2
    # The live standings draw the line as the planner will: the bye is through (settled by
    # the play-off), the table's two are still on the line and listed below the bye.
    rows = _pair_rows(q)
    assert [rows[p]["playoff_on_line"] for p in at_table] == [True, True]
    assert [rows[p]["playoff_played"] for p in at_table] == [False, False]
    assert (rows[bye]["playoff_on_line"], rows[bye]["playoff_played"]) == (False, True)
    order = list(rows)
    assert order.index(bye) < min(order.index(p) for p in at_table)
    html = Client().get(f"/live/{t.slug}/standings/").content.decode()
    assert html.count("play-off needed") == 2
    assert html.count("decided by the play-off") == 1

    again = services.round_publish(stage=q, actor=d)
    assert (again.kind, again.advancing) == ("playoff", 1)
    assert {owner[e] for e in again.playoff_players} == at_table
    assert not again.byes
    decide_round(again, d, winners={1: 1})
    services.round_close(round=again, actor=d)
    link = RoundMatch.objects.get(round=again)
    winner = owner[Seat.objects.get(match_id=link.match_id, seat=1).entry_id]
    (loser,) = at_table - {winner}
    rows = _pair_rows(q)
    assert list(rows)[:2] == [bye, winner]  # the play-offs' order, whatever the seeds
    assert rows[winner]["cut_after"] is True
    assert (rows[loser]["playoff_on_line"], rows[loser]["playoff_played"]) == (False, True)
    services.stage_advance(stage=q, actor=d)
    going_on = {owner[e.entry_id] for e in StageEntry.objects.filter(stage=k)}
    assert going_on == {bye, winner}


def _pair_rows(stage: Stage) -> dict[int, dict[str, Any]]:
    """The pairs stage's live standings rows by partnership id, in listed order."""
    (rows,) = (
        s["rows"]
        for s in live.standings(tournament=stage.tournament)["stages"]
        if s["stage"]["number"] == stage.number
    )
    return {r["pair_id"]: r for r in rows}


def _bracket_seats(t: Any, rnd: Round) -> dict[int, dict[str, Any]]:
    """The public bracket's seats of one round, by entry id."""
    return {
        s["entry_id"]: s
        for stage in live.bracket(tournament=t)["stages"]
        for r in stage["rounds"]
        if r["id"] == rnd.pk
        for table in r["tables"]
        for s in table["seats"]
    }
