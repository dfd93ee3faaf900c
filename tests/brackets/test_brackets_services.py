"""Brackets services against the real database: stages, seeding, preview/publish, advance,
byes, play-offs, call time (T3), withdrawals (T7), late entries, no-show replacement."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from brackets import services
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.selectors import (
    rounds_awaiting_advance,
    standings_for_stage,
    tournament_placings,
)
from core.exceptions import ApplicationError, ConflictError, PermissionDeniedError
from scoring.models import Match, Seat
from scoring.services import hand_record, match_result_override, match_start
from tests.brackets.conftest import make_tournament, open_matches, play_match, play_round
from tests.factories import UserFactory
from tournament.models import ActionLog, Entry, Table, Tournament

pytestmark = pytest.mark.django_db


def qualifying(t: Tournament, d: Any, **kw: Any) -> Stage:
    kw.setdefault("swiss_rounds", 2)
    kw.setdefault("rng_seed", 7)  # recorded seed: every seating replays
    kw.setdefault("auto_advance", True)  # written when stages advanced by default
    return services.stage_create(tournament=t, actor=d, name="Qualifying", kind="qualifying", **kw)


def seated(rnd: Round) -> list[list[int]]:
    """Entry ids per match of the round, in seat order (continuations included)."""
    out: dict[int, list[int]] = {}
    for match_id, entry_id in (
        Seat.objects.filter(match__round_link__round=rnd)
        .order_by("match__round_link__table_number", "match_id", "seat")
        .values_list("match_id", "entry_id")
    ):
        out.setdefault(match_id, []).append(entry_id)
    return list(out.values())


def finish_round(rnd: Round, director: Any) -> None:
    """Every open match ends by a director's result: seat 0 wins 6-0 (no hands)."""
    for m in open_matches(rnd):
        match_result_override(
            match_id=m.pk,
            actor=director,
            scores=[6] + [0] * (m.n_players - 1),
            placings=list(range(1, m.n_players + 1)),
            reason="score sheet",
        )


def logged(t: Tournament, verb: str) -> int:
    return ActionLog.objects.filter(tournament=t, verb=verb).count()


# -- stages and seeding ----------------------------------------------------------------------------


def test_stage_create_numbers_stages_and_checks_the_format() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d, cut_size=5)
    assert (q.number, q.status, q.seeding) == (1, "pending", "rating")
    with pytest.raises(ApplicationError) as exc:  # 5 players cannot reach a final of 4 (T6)
        services.stage_create(tournament=t, actor=d, name="KO", kind="knockout", auto_advance=True)
    assert exc.value.code == "no_knockout_plan"
    services.stage_update(stage=q, actor=d, data={"cut_size": 8})
    k = services.stage_create(tournament=t, actor=d, name="KO", kind="knockout", auto_advance=True)
    assert (k.number, k.seeding) == (2, "standings")
    with pytest.raises(ApplicationError) as exc:
        services.stage_create(
            tournament=t, actor=d, name="More", kind="qualifying", swiss_rounds=1, auto_advance=True
        )
    assert exc.value.code == "bad_stage"  # a knockout stage is the last one (T6)
    with pytest.raises(ApplicationError):
        services.stage_create(
            tournament=t,
            actor=d,
            name="X",
            kind="qualifying",
            swiss_rounds=1,
            allow_three=False,
            final_table_size=3,
            auto_advance=True,
        )
    assert logged(t, "stage.create") == 2


def test_stage_services_are_for_the_tournaments_directors() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d)
    stranger = UserFactory()
    _other_t, other_d = make_tournament(4)
    for actor in (stranger, other_d):
        with pytest.raises(PermissionDeniedError):
            services.stage_seed(stage=q, actor=actor)
        with pytest.raises(PermissionDeniedError):
            services.round_preview(stage=q, actor=actor)


def test_seed_by_rating_manual_and_random() -> None:
    t, d = make_tournament(8)
    Entry.objects.filter(tournament=t, player__name="P0007").update(checked_in=False)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d, method="rating")
    by_rating = [
        r or 0 for r in q.entrants.order_by("seed").values_list("entry__player__rating", flat=True)
    ]
    assert by_rating == sorted(by_rating, reverse=True)
    assert len(by_rating) == 7  # the player not checked in is left out
    ids = list(q.entrants.values_list("entry_id", flat=True))
    services.stage_seed(stage=q, actor=d, method="manual", order=sorted(ids, reverse=True))
    assert list(q.entrants.order_by("seed").values_list("entry_id", flat=True)) == sorted(
        ids, reverse=True
    )
    services.stage_seed(stage=q, actor=d, method="random", rng_seed=42)
    first = list(q.entrants.order_by("seed").values_list("entry_id", flat=True))
    services.stage_seed(stage=q, actor=d, method="random", rng_seed=42)
    assert list(q.entrants.order_by("seed").values_list("entry_id", flat=True)) == first
    with pytest.raises(ApplicationError) as exc:
        services.stage_seed(stage=q, actor=d, method="manual", order=ids[:3])
    assert exc.value.code == "missing_player"
    assert logged(t, "stage.seed") == 4


def test_reorder_rewrites_every_seed_in_one_transaction() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    order = list(q.entrants.order_by("-seed").values_list("entry_id", flat=True))
    done = services.stage_seed_reorder(stage=q, actor=d, order=order, reason="ratings were stale")
    assert (done.stage.pk, done.changed) == (q.pk, True)
    assert list(q.entrants.order_by("seed").values_list("entry_id", flat=True)) == order
    # The order it already has: nothing saved, nothing logged, and the result says so.
    again = services.stage_seed_reorder(stage=q, actor=d, order=order, reason="again")
    assert again.changed is False
    assert ActionLog.objects.filter(tournament=t, verb="stage.reorder").count() == 1
    log = ActionLog.objects.get(tournament=t, verb="stage.reorder")
    assert log.reason == "ratings were stale"
    assert log.data["after"] == order
    services.round_publish(stage=q, actor=d)
    with pytest.raises(ApplicationError) as exc:
        services.stage_seed_reorder(stage=q, actor=d, order=order)
    assert exc.value.code == "stage_started"


@pytest.mark.postgres  # SET CONSTRAINTS: PostgreSQL's deferred unique constraint
def test_seed_unique_per_stage_in_the_database() -> None:
    t, d = make_tournament(4)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    a, b = list(q.entrants.order_by("seed"))[:2]
    with transaction.atomic():  # deferred: checked at commit (or when made immediate)
        StageEntry.objects.filter(pk=b.pk).update(seed=a.seed)
        with pytest.raises(IntegrityError):
            connection.cursor().execute("SET CONSTRAINTS ALL IMMEDIATE")
        transaction.set_rollback(True)


@pytest.mark.parametrize(("n", "kind", "code"), [(2, "qualifying", "field_too_small")])
def test_a_field_too_small_to_seat_is_a_clear_error(n: int, kind: str, code: str) -> None:
    t, d = make_tournament(n)
    stage = qualifying(t, d)
    with pytest.raises(ApplicationError) as exc:
        services.stage_seed(stage=stage, actor=d)
    assert exc.value.code == code
    assert exc.value.rule == "T1"
    assert f"{n} players cannot form a table" in exc.value.message


def test_engine_field_messages_count_in_proper_plurals_t1_t9() -> None:
    from brackets.engine import BracketError
    from brackets.engine.composition import plan_tables
    from brackets.engine.pairs import Pair, seat_pairs_seeded

    with pytest.raises(BracketError) as one:
        plan_tables(1, allow_three=True)
    assert one.value.message.startswith("1 player cannot form a table")
    with pytest.raises(BracketError) as pair:
        seat_pairs_seeded([Pair(pair_id=1, players=(1, 2))])
    assert pair.value.message.startswith("1 partnership cannot fill a table")


def test_a_knockout_field_that_cannot_reach_the_final_is_refused() -> None:
    t, d = make_tournament(5)
    k = services.stage_create(tournament=t, actor=d, name="KO", kind="knockout", auto_advance=True)
    with pytest.raises(ApplicationError) as exc:
        services.stage_seed(stage=k, actor=d)
    assert exc.value.code == "no_knockout_plan"


# -- preview and publish ---------------------------------------------------------------------------


def test_preview_stores_nothing_and_publish_stores_exactly_the_preview() -> None:
    t, d = make_tournament(13, referees=2)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    before = (Round.objects.count(), Match.objects.count(), Seat.objects.count())
    step = services.round_preview(stage=q, actor=d)
    assert (Round.objects.count(), Match.objects.count(), Seat.objects.count()) == before
    assert step.action == "publish_round"
    assert step.round_number == 1
    assert step.seating is not None
    assert [len(t.seats) for t in step.seating.tables] == [4, 3, 3, 3]  # T1
    rnd = services.round_publish(stage=q, actor=d, expected_number=1)
    assert seated(rnd) == [list(t.seats) for t in step.seating.tables]
    matches = Match.objects.filter(round_link__round=rnd).order_by("round_link__table_number")
    assert [m.table.number for m in matches] == [1, 2, 3, 4]
    referees = [m.referee_id for m in matches]
    assert referees[0] == referees[2] != referees[1] == referees[3]  # round robin per table
    assert {m.status for m in matches} == {"scheduled"}
    q.refresh_from_db()
    assert q.status == "running"
    assert logged(t, "round.publish") == 1


def test_round_one_is_snake_seeded_top_seeds_at_different_tables() -> None:
    t, d = make_tournament(16)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    rnd = services.round_publish(stage=q, actor=d)
    seed = dict(q.entrants.values_list("entry_id", "seed"))
    tables = [sorted(seed[p] for p in players) for players in seated(rnd)]
    assert tables == [[1, 8, 9, 16], [2, 7, 10, 15], [3, 6, 11, 14], [4, 5, 12, 13]]  # T8


def test_a_stored_match_label_is_in_the_servers_language_whoever_publishes() -> None:
    """The label is written once (exports, the live match document): a director reading
    Spanish publishes the same English label; a stage named like its round is named once
    ("Final table · Table 1", not "Final table · Final table · Table 1")."""
    t, d = make_tournament(8)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    with translation.override("es"):
        rnd = services.round_publish(stage=q, actor=d)
    labels = set(Match.objects.filter(round_link__round=rnd).values_list("label", flat=True))
    assert labels == {"Qualifying · Round 1 · Table 1", "Qualifying · Round 1 · Table 2"}

    t, d = make_tournament(4)
    final = services.stage_create(
        tournament=t,
        actor=d,
        name="Final table",
        kind="knockout",
        final_table_size=4,
        auto_advance=True,
    )
    services.stage_seed(stage=final, actor=d)
    rnd = services.round_publish(stage=final, actor=d)
    assert rnd.kind == "final"
    assert Match.objects.get(round_link__round=rnd).label == "Final table · Table 1"


@pytest.mark.postgres  # SQLite splits a bulk insert by its limit of variables a statement
def test_publish_is_bulk_a_constant_number_of_queries() -> None:
    counts = []
    for n in (16, 160):
        t, d = make_tournament(n)
        q = qualifying(t, d)
        services.stage_seed(stage=q, actor=d)
        with CaptureQueriesContext(connection) as ctx:
            services.round_publish(stage=q, actor=d)
        counts.append(len(ctx.captured_queries))
    assert counts[0] == counts[1], counts


def test_publish_refuses_while_a_round_is_in_play_and_a_stale_preview() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    with pytest.raises(ConflictError) as exc:
        services.round_publish(stage=q, actor=d, expected_number=2)
    assert exc.value.code == "stale_preview"
    services.round_publish(stage=q, actor=d, expected_number=1)
    with pytest.raises(ApplicationError) as exc2:
        services.round_publish(stage=q, actor=d)
    assert exc2.value.code == "round_in_play"


def test_round_number_is_unique_per_stage_in_the_database() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    services.round_publish(stage=q, actor=d)
    with pytest.raises(IntegrityError), transaction.atomic():
        Round.objects.create(stage=q, number=1, kind="swiss")


# -- close and advance -----------------------------------------------------------------------------


def test_advance_closes_the_round_and_publishes_the_next_once() -> None:
    t, d = make_tournament(16)
    q = qualifying(t, d, swiss_rounds=3)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    assert services.round_advance(round_id=r1.pk).outcome == "in_play"
    finish_round(r1, d)
    assert r1.pk in rounds_awaiting_advance()
    result = services.round_advance(round_id=r1.pk)
    assert result.outcome == "published"
    r2 = Round.objects.get(stage=q, number=2)
    assert result.published_round_id == r2.pk
    r1.refresh_from_db()
    assert r1.status == "closed"
    assert r1.advanced_at is not None
    assert r1.pk not in rounds_awaiting_advance()
    # Running it again (a redelivered task) changes nothing.
    assert services.round_advance(round_id=r1.pk).outcome == "already_done"
    assert Round.objects.filter(stage=q).count() == 2
    # Swiss round 2 (T8): no two players meet again (16 players, 4 tables: always possible).
    met = {frozenset(p) for table in seated(r1) for p in itertools.combinations(table, 2)}
    again = [
        pair
        for table in seated(r2)
        for pair in itertools.combinations(table, 2)
        if frozenset(pair) in met
    ]
    assert again == []


def test_a_publish_that_already_happened_is_read_as_done() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    # Someone else's run stored round 2 and died before writing the done-marker.
    Round.objects.create(stage=q, number=2, kind="swiss")
    result = services.round_advance(round_id=r1.pk)
    assert result.outcome == "already_done"
    r1.refresh_from_db()
    assert r1.advanced_at is not None
    assert Round.objects.filter(stage=q, number=2).count() == 1


def test_without_auto_advance_the_round_closes_for_the_directors_review() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d, auto_advance=False)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    assert services.round_advance(round_id=r1.pk).outcome == "awaiting_director"
    r1.refresh_from_db()
    assert (r1.status, r1.advanced_at) == ("closed", None)
    assert r1.pk not in rounds_awaiting_advance()  # reconciliation leaves it to the director
    step = services.round_preview(stage=q, actor=d)
    assert (step.action, step.round_number, step.follows_round_id) == ("publish_round", 2, r1.pk)
    r2 = services.round_publish(stage=q, actor=d, expected_number=2)
    r1.refresh_from_db()
    assert r1.advanced_at is not None
    assert seated(r2) == [list(t.seats) for t in step.seating.tables]  # type: ignore[union-attr]


def test_close_refuses_an_incomplete_round_and_is_idempotent() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d, auto_advance=False)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    with pytest.raises(ConflictError) as exc:
        services.round_close(round=r1, actor=d)
    assert exc.value.code == "round_incomplete"
    finish_round(r1, d)
    services.round_close(round=r1, actor=d)
    assert services.round_close(round=r1, actor=d).status == "closed"
    assert logged(t, "round.close") == 1


def test_standings_take_a_constant_number_of_queries(django_assert_num_queries: Any) -> None:
    for n in (8, 64):
        t, d = make_tournament(n)
        q = qualifying(t, d)
        services.stage_seed(stage=q, actor=d)
        r1 = services.round_publish(stage=q, actor=d)
        finish_round(r1, d)
        with django_assert_num_queries(4):
            standings = standings_for_stage(stage_id=q.pk)
        assert len(standings) == n
        assert sum(r.match_wins for r in standings) == n // 4


def test_byes_when_three_player_tables_are_not_allowed() -> None:
    t, d = make_tournament(6)
    q = qualifying(t, d, allow_three=False, bye_policy="win", cut_size=4)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    assert [len(x) for x in seated(r1)] == [4]
    assert len(r1.byes) == 2  # T1: the lowest seeds sit out
    seeds = dict(q.entrants.values_list("entry_id", "seed"))
    assert sorted(seeds[p] for p in r1.byes) == [5, 6]
    finish_round(r1, d)
    services.round_advance(round_id=r1.pk)
    r2 = Round.objects.get(stage=q, number=2)
    assert not set(r2.byes) & set(r1.byes)  # byes go to players without one
    standings = {r.player_id: r for r in standings_for_stage(stage_id=q.pk)}
    assert all(standings[p].match_wins == 1 and standings[p].byes == 1 for p in r1.byes)


def test_knockout_only_event_of_seven_fills_to_the_final_table() -> None:
    t, d = make_tournament(7)
    k = services.stage_create(
        tournament=t, actor=d, name="KO", kind="knockout", rng_seed=3, auto_advance=True
    )
    services.stage_seed(stage=k, actor=d)
    r1 = services.round_publish(stage=k, actor=d)
    assert [len(x) for x in seated(r1)] == [4, 3]
    assert r1.advancing == 4  # 2 table winners + the 2 best others (T6)
    play_round(r1, d)
    services.round_advance(round_id=r1.pk)
    nxt = Round.objects.get(stage=k, number=r1.number + 1)
    while nxt.kind == "playoff":  # players level on the fill line play it off (T6)
        play_round(nxt, d)
        services.round_advance(round_id=nxt.pk)
        nxt = Round.objects.get(stage=k, number=nxt.number + 1)
    final = nxt
    assert final.kind == "final"
    firsts = set(
        Seat.objects.filter(match__round_link__round=r1, placing=1).values_list(
            "entry_id", flat=True
        )
    )
    assert firsts <= {p for table in seated(final) for p in table}  # table winners go on
    out = StageEntry.objects.filter(stage=k, status="eliminated")
    places = sorted(p or 0 for p in out.values_list("placing", flat=True))
    assert places[0] == 5
    assert all(p in (5 + i, places[i - 1]) for i, p in enumerate(places) if i)
    assert len(places) == 3
    play_round(final, d)
    services.round_advance(round_id=final.pk)
    k.refresh_from_db()
    assert k.status == "finished"
    assert len(tournament_placings(tournament_id=t.pk)) == 7
    # Competition ranks: the final's players still level after T5 share a place (T3, T6).
    ranks = sorted(p.place for p in tournament_placings(tournament_id=t.pk))
    assert ranks[0] == 1
    assert all(r == 1 + sum(1 for q in ranks if q < r) for r in ranks)


def test_a_tie_on_the_cut_line_is_played_off_at_a_table_the_system_creates() -> None:
    # 8 players, one round, top 3 go on: the two table winners, then the two 2nd places are
    # level on every T5 key and never met -> a two-player play-off for the third spot (T6).
    t, d = make_tournament(8)
    q = qualifying(t, d, swiss_rounds=1, cut_size=3)
    services.stage_create(
        tournament=t, actor=d, name="Final", kind="knockout", final_table_size=3, auto_advance=True
    )
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    assert services.round_advance(round_id=r1.pk).outcome == "published"
    playoff = Round.objects.get(stage=q, number=2)
    assert playoff.kind == "playoff"
    assert playoff.advancing == 1
    seconds = sorted(table[1] for table in seated(r1))
    assert sorted(playoff.playoff_players) == seconds
    assert [len(x) for x in seated(playoff)] == [2]
    # The label stored with each match (exports, the live match document) names the round as
    # the pages do: no model choice with its rule number, no "Play-off table 2".
    assert sorted(Match.objects.filter(round_link__round=r1).values_list("label", flat=True)) == [
        "Qualifying · Round 1 · Table 1",
        "Qualifying · Round 1 · Table 2",
    ]
    assert Match.objects.get(round_link__round=playoff).label == (
        "Qualifying · Play-off table · Table 1"
    )
    play_round(playoff, d)
    result = services.round_advance(round_id=playoff.pk)
    assert result.outcome == "published"  # the stage ends and the final of 3 is published
    winner = Seat.objects.get(match__round_link__round=playoff, placing=1).entry_id
    final = Round.objects.get(stage__number=2, stage__tournament=t)
    assert final.kind == "final"
    assert winner in seated(final)[0]
    loser = (set(seconds) - {winner}).pop()
    assert StageEntry.objects.get(stage=q, entry_id=loser).placing == 4


# -- time, forfeits, late entries, replacements ------------------------------------------


def test_call_time_ends_unfinished_matches_by_t3_and_marks_them() -> None:
    t, d = make_tournament(12)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    done, running, waiting = Match.objects.filter(round_link__round=r1).order_by(
        "round_link__table_number"
    )
    play_match(Match.objects.select_related("tournament").get(pk=done.pk), d, seed=1)
    match_start(match_id=running.pk, actor=d, lot_winner=0)
    # Seat 0 poses 6-6 and wins, then seat 1 wins: 1-1-0-0, seat 0 reached 1 first.
    hand_record(
        match_id=running.pk,
        actor=d,
        expected_number=1,
        payload={"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 0},
    )
    hand_record(
        match_id=running.pk,
        actor=d,
        expected_number=2,
        payload={"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 1},
    )
    services.round_clock_start(round=r1, actor=d, minutes=45)
    ended = services.round_call_time(round=r1, actor=d, reason="clock ran out")
    assert sorted(ended) == sorted([running.pk, waiting.pk])
    running.refresh_from_db()
    assert (running.status, running.end_reason) == ("finished", "time")
    placing = dict(Seat.objects.filter(match=running).values_list("seat", "placing"))
    assert placing[0] == 1  # level on score with seat 1, reached it first (T3)
    assert placing[1] == 2
    assert running.winner_seat == 0
    # T3 regression: no hand was completed at the waiting table, so everybody is level and
    # shares first; a shared first is no match win (seat or seed order used to give one).
    waiting.refresh_from_db()
    assert waiting.end_reason == "time"
    assert waiting.winner_seat is None
    assert set(Seat.objects.filter(match=waiting).values_list("placing", flat=True)) == {1}
    rows = {r.player_id: r for r in standings_for_stage(stage_id=q.pk)}
    for entry_id in Seat.objects.filter(match=waiting).values_list("entry_id", flat=True):
        assert rows[entry_id].match_wins == 0
    log = ActionLog.objects.get(tournament=t, verb="round.call_time")
    assert log.reason == "clock ran out"
    assert log.data["ended"][str(waiting.pk)]["winner"] is None
    assert services.round_advance(round_id=r1.pk).outcome == "published"


def test_sudden_death_matches_keep_playing_when_time_is_called() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    a, b = Match.objects.filter(round_link__round=r1).order_by("pk")
    ended = services.round_call_time(round=r1, actor=d, sudden_death=[b.pk])
    assert ended == [a.pk]
    b.refresh_from_db()
    assert b.status == "scheduled"
    assert services.round_advance(round_id=r1.pk).outcome == "in_play"


def _kept_for_sudden_death() -> tuple[Any, Any, Round, Match]:
    """Round 1 of an 8-player event; at its second table seat 1 won hand 1, then time was
    called with that table kept for a sudden-death hand (T3). Returns director, stage, round,
    match."""
    t, d = make_tournament(8)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    _, b = Match.objects.filter(round_link__round=r1).order_by("pk")
    match_start(match_id=b.pk, actor=d, lot_winner=0)
    hand_record(
        match_id=b.pk,
        actor=d,
        expected_number=1,
        payload={"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1},
    )
    services.round_call_time(round=r1, actor=d, sudden_death=[b.pk])
    return d, q, r1, b


def test_a_sudden_death_hand_decides_the_match() -> None:
    """T3: the director keeps a table for a sudden-death hand instead of placing by score.
    Seat 1 won hand 1; after time is called seat 0 wins the sudden-death hand: both on 1, seat
    1 got there first. Seat 0, who won the sudden-death hand, is placed first (it used to be
    seat 1 by "reached first", as if no hand had been ordered), and the hand ends the match
    itself: calling time again has nothing left to end
    (tests/brackets/test_time_called_at_the_table.py)."""
    d, q, r1, b = _kept_for_sudden_death()
    hand_record(
        match_id=b.pk,
        actor=d,
        expected_number=2,
        payload={"poser": 1, "pose_tile": "5-4", "end": "domino", "winner": 0},
    )
    assert services.round_call_time(round=r1, actor=d, reason="sudden death played") == []
    b.refresh_from_db()
    assert (b.status, b.end_reason, b.winner_seat) == ("finished", "time", 0)
    placing = dict(Seat.objects.filter(match=b).values_list("seat", "placing"))
    assert placing == {0: 1, 1: 2, 2: 3, 3: 3}
    entry_of = dict(Seat.objects.filter(match=b).values_list("seat", "entry_id"))
    rows = {r.player_id: r for r in standings_for_stage(stage_id=q.pk)}
    assert rows[entry_of[0]].match_wins == 1
    assert rows[entry_of[1]].match_wins == 0


def test_a_sudden_death_table_without_a_new_hand_keeps_the_t3_order() -> None:
    """Time called again before any sudden-death hand was won: nothing decided it, so the
    plain T3 order stands (seat 1 won hand 1)."""
    d, _, r1, b = _kept_for_sudden_death()
    services.round_call_time(round=r1, actor=d)
    b.refresh_from_db()
    assert b.winner_seat == 1
    assert dict(Seat.objects.filter(match=b).values_list("seat", "placing"))[1] == 1


def test_withdrawal_mid_round_forfeits_and_the_table_plays_on(
    django_capture_on_commit_callbacks: Any,
) -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d, swiss_rounds=2)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    table = seated(r1)[0]
    gone = Entry.objects.get(pk=table[1])
    services.stage_entry_withdraw(stage=q, actor=d, entry=gone, reason="sick")
    gone.refresh_from_db()
    assert gone.status == "withdrawn"
    links = RoundMatch.objects.filter(round=r1, table_number=1).order_by("match_id")
    assert links.count() == 2  # the forfeited match and its continuation (T7)
    forfeited, cont = (link.match for link in links)
    assert forfeited.end_reason == "forfeit"
    assert Seat.objects.get(match=forfeited, entry=gone).forfeited
    assert cont.n_players == 3
    assert gone.pk not in Seat.objects.filter(match=cont).values_list("entry_id", flat=True)
    finish_round(r1, d)  # the continuation too
    assert services.round_advance(round_id=r1.pk).outcome == "published"
    r2 = Round.objects.get(stage=q, number=2)
    assert gone.pk not in {p for tbl in seated(r2) for p in tbl}
    assert [len(x) for x in seated(r2)] == [4, 3]  # T1 with 7 left
    standings = {r.player_id: r for r in standings_for_stage(stage_id=q.pk)}
    assert standings[gone.pk].forfeits == 1
    finish_round(r2, d)
    services.round_advance(round_id=r2.pk)
    assert StageEntry.objects.get(stage=q, entry=gone).placing == 8  # after everyone else
    assert logged(t, "stage.withdraw") == 1
    assert logged(t, "match.forfeit") == 1


def test_forfeit_recorded_through_scoring_is_linked_before_the_round_closes() -> None:
    from scoring.services import match_forfeit

    t, d = make_tournament(8)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    first, second = open_matches(r1)
    result = match_forfeit(match_id=first.pk, actor=d, seat=2, reason="no-show")
    assert result.continuation is not None
    match_result_override(match_id=second.pk, actor=d, scores=[6, 0, 0, 0], reason="sheet")
    # Only the continuation is still open: the round must wait for it.
    assert services.round_advance(round_id=r1.pk).outcome == "in_play"
    assert RoundMatch.objects.filter(round=r1, match=result.continuation).exists()


def test_late_check_in_joins_from_the_next_round() -> None:
    t, d = make_tournament(8)
    late = Entry.objects.filter(tournament=t).order_by("-id").first()
    assert late is not None
    Entry.objects.filter(pk=late.pk).update(checked_in=False)
    q = qualifying(t, d, swiss_rounds=2)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    assert [len(x) for x in seated(r1)] == [4, 3]
    se = services.stage_entry_add(stage=q, actor=d, entry=late, reason="arrived late")
    assert (se.joined_round, se.seed) == (2, 8)
    late.refresh_from_db()
    assert late.checked_in
    finish_round(r1, d)
    services.round_advance(round_id=r1.pk)
    r2 = Round.objects.get(stage=q, number=2)
    assert late.pk in {p for tbl in seated(r2) for p in tbl}
    assert [len(x) for x in seated(r2)] == [4, 4]
    with pytest.raises(ApplicationError) as exc:
        services.stage_entry_add(stage=q, actor=d, entry=late)
    assert exc.value.code == "already_entered"


def test_replace_a_no_show_before_the_match_starts() -> None:
    t, d = make_tournament(9)
    spare = Entry.objects.filter(tournament=t).order_by("-id").first()
    assert spare is not None
    Entry.objects.filter(pk=spare.pk).update(checked_in=False)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    no_show = seated(r1)[0][2]
    check_ins = logged(t, "entry.check_in")
    seat = services.round_seat_replace(
        round=r1, actor=d, out_entry_id=no_show, in_entry_id=spare.pk, reason="no-show"
    )
    assert seat.entry_id == spare.pk
    assert seated(r1)[0][2] == spare.pk
    assert StageEntry.objects.get(stage=q, entry_id=no_show).status == "withdrawn"
    assert StageEntry.objects.get(stage=q, entry_id=spare.pk).joined_round == 1
    assert logged(t, "round.replace_player") == 1
    # At the table, so checked in (logged), as a late entry joining the stage is.
    spare.refresh_from_db()
    assert spare.checked_in
    assert logged(t, "entry.check_in") == check_ins + 1
    started = open_matches(r1)[1]
    match_start(match_id=started.pk, actor=d)
    with pytest.raises(ApplicationError) as exc:
        services.round_seat_replace(
            round=r1,
            actor=d,
            out_entry_id=seated(r1)[1][0],
            in_entry_id=no_show,
            reason="x",
        )
    assert exc.value.code in ("match_started", "bad_replacement")


def test_a_player_of_a_forfeit_continuation_can_be_replaced_before_it_starts() -> None:
    """After a forfeit (T7) the others have two seats in the round: the ended match and its
    continuation. Replacing one of them replaces the seat still to be played (it was refused
    as "the match has started", looking at the ended match)."""
    t, d = make_tournament(9)
    spare = Entry.objects.filter(tournament=t).order_by("-id").first()
    assert spare is not None
    Entry.objects.filter(pk=spare.pk).update(checked_in=False)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    table = seated(r1)[0]
    services.stage_entry_withdraw(
        stage=q, actor=d, entry=Entry.objects.get(pk=table[1]), reason="ill"
    )
    cont = RoundMatch.objects.filter(round=r1, table_number=1).order_by("-match_id").first()
    assert cont is not None
    assert cont.match.status == "scheduled"
    stays = table[2]
    seat = services.round_seat_replace(
        round=r1, actor=d, out_entry_id=stays, in_entry_id=spare.pk, reason="left the hall"
    )
    assert seat.match_id == cont.match_id
    assert spare.pk in Seat.objects.filter(match=cont.match).values_list("entry_id", flat=True)
    # Their seat in the ended match stays as played; the continuation's is the spare's now.
    assert list(
        Seat.objects.filter(entry_id=stays, match__round_link__round=r1).values_list(
            "match__end_reason", flat=True
        )
    ) == ["forfeit"]


def test_a_reopened_match_reopens_its_closed_round() -> None:
    t, d = make_tournament(4)
    q = qualifying(t, d, auto_advance=False)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    (m,) = open_matches(r1)
    play_match(m, d, seed=3)
    services.round_advance(round_id=r1.pk)
    r1.refresh_from_db()
    assert r1.status == "closed"
    from scoring.services import hand_void_last

    hand_void_last(match_id=m.pk, actor=d, reason="wrong winner")
    assert services.round_reopen_for_match(match_id=m.pk)
    r1.refresh_from_db()
    assert (r1.status, r1.closed_at) == ("published", None)


def test_a_bracket_error_in_the_automatic_path_is_kept_for_the_director() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d, swiss_rounds=1, cut_size=8)
    k = services.stage_create(tournament=t, actor=d, name="KO", kind="knockout", auto_advance=True)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    # Three withdraw before the cut: 5 go on, and 5 cannot reach a final of 4 (T6).
    finish_round(r1, d)
    for e in Entry.objects.filter(pk__in=[tbl[3] for tbl in seated(r1)] + [seated(r1)[0][2]]):
        Entry.objects.filter(pk=e.pk).update(status="withdrawn")
    result = services.round_advance(round_id=r1.pk)
    assert result.outcome == "error"
    r1.refresh_from_db()
    assert r1.status == "closed"  # the close is kept
    assert "5 players" in r1.advance_error
    assert r1.pk not in rounds_awaiting_advance()
    k.refresh_from_db()
    assert k.status == "pending"
    with pytest.raises(ApplicationError):
        services.round_advance(round_id=r1.pk, actor=d)


def test_venue_tables_are_created_once_and_reused() -> None:
    t, d = make_tournament(8)
    q = qualifying(t, d)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    services.round_advance(round_id=r1.pk)
    assert sorted(Table.objects.filter(tournament=t).values_list("number", flat=True)) == [1, 2]


def test_a_knockout_withdrawal_is_placed_after_everyone_else() -> None:
    t, d = make_tournament(8)
    k = services.stage_create(
        tournament=t,
        actor=d,
        name="KO",
        kind="knockout",
        advance_per_table=2,
        rng_seed=5,
        auto_advance=True,
    )
    services.stage_seed(stage=k, actor=d)
    r1 = services.round_publish(stage=k, actor=d)
    assert (r1.advancing, [len(x) for x in seated(r1)]) == (4, [4, 4])
    gone = Entry.objects.get(pk=seated(r1)[0][0])
    services.stage_entry_withdraw(stage=k, actor=d, entry=gone, reason="injured")
    rnd: Round | None = r1
    while rnd is not None:
        play_round(rnd, d)
        services.round_advance(round_id=rnd.pk)
        rnd = Round.objects.filter(stage=k, status="published").first()
    k.refresh_from_db()
    assert k.status == "finished"
    places = {p.entry_id: p.place for p in tournament_placings(tournament_id=t.pk)}
    assert len(places) == 8
    assert places[gone.pk] == 8
    ranks = sorted(places.values())  # competition ranks: level finalists share (T3, T6)
    assert ranks[0] == 1
    assert all(r == 1 + sum(1 for q in ranks if q < r) for r in ranks)
    assert max(v for e, v in places.items() if e != gone.pk) <= 7


def test_a_tie_on_one_knockout_tables_line_is_played_off_by_that_tables_players() -> None:
    """Top 2 of each table to a final of 4 (the demo's knockout): table 1 ends 6-1-0-0 (its
    third and fourth share third), table 2 ends 6-0-0-0 (three share second). Only table 2's
    three play off, at one table, for its second spot; table 1's third and fourth are out. While
    the play-off is played, the bracket does not show its players as gone on (T3, T6)."""
    from brackets.presenters.bracket import build_bracket
    from live.selectors import bracket as live_bracket

    t, d = make_tournament(8)
    q = qualifying(t, d, swiss_rounds=1, cut_size=8)
    k = services.stage_create(
        tournament=t,
        actor=d,
        name="Knockout",
        kind="knockout",
        advance_per_table=2,
        auto_advance=True,
    )
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    assert services.round_advance(round_id=r1.pk).outcome == "published"
    ko = Round.objects.get(stage=k, number=1)
    first, second = (Match.objects.get(pk=m.pk) for m in open_matches(ko))
    for match, scores, placings in (
        (first, [6, 1, 0, 0], [1, 2, 3, 3]),
        (second, [6, 0, 0, 0], [1, 2, 2, 2]),
    ):
        match_result_override(
            match_id=match.pk, actor=d, scores=scores, placings=placings, reason="sheet"
        )
    services.round_advance(round_id=ko.pk)
    playoff = Round.objects.get(stage=k, number=2)
    assert playoff.kind == "playoff"
    assert playoff.advancing == 1
    table_1, table_2 = seated(ko)
    assert sorted(playoff.playoff_players) == sorted(table_2[1:])
    assert [sorted(x) for x in seated(playoff)] == [sorted(table_2[1:])]
    out = set(
        StageEntry.objects.filter(stage=k, status="eliminated").values_list("entry_id", flat=True)
    )
    assert out == set(table_1[2:])

    # The bracket while the play-off is being played: table winners and table 1's second go
    # on, table 1's third and fourth went out, table 2's three are undecided.
    marks = {
        s["entry_id"]: s["advanced"]
        for stage in live_bracket(tournament=t)["stages"]
        if stage["number"] == 2
        for r in stage["rounds"]
        if r["number"] == 1
        for table in r["tables"]
        for s in table["seats"]
    }
    assert marks == {
        table_1[0]: True,
        table_1[1]: True,
        table_1[2]: False,
        table_1[3]: False,
        table_2[0]: True,
        **dict.fromkeys(table_2[1:]),
    }
    goes_on = {
        s.entry_id: s.goes_on
        for stage in build_bracket(t).stages
        if stage.number == 2
        for table in stage.rounds[0].tables
        for s in table.seats
    }
    assert {e for e, on in goes_on.items() if on} == {table_1[0], table_1[1], table_2[0]}
