"""Data migrations of the scoring app, run backwards and forwards on the real database."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from scoring import services
from scoring.models import Hand, Match
from tests.factories import TournamentFactory, match_in_progress, referee_of

BEFORE = [("scoring", "0004_lean_hand_indexes")]
AFTER = [("scoring", "0005_hand_keeps_its_idempotent_answer")]


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_0005_moves_the_kept_answers_onto_their_hands() -> None:
    """Answers kept in the old idempotency table end up on the hands they recorded (without
    the hand id and tournament version, which become the row's own); a hand whose answer
    had been swept keeps none, and a retry of a moved key still gets its original answer."""
    tournament = TournamentFactory()
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    bodies = [
        {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1},
        {"poser": 1, "pose_tile": "5-4", "end": "domino", "winner": 1},
    ]
    answers = [
        services.hand_record(
            match_id=match.pk,
            actor=referee,
            expected_number=n,
            payload=body,
            idempotency_key=f"m{n}",
        ).body
        for n, body in enumerate(bodies, start=1)
    ]
    try:
        old = _migrate(BEFORE)
        record_model = old.get_model("scoring", "IdempotencyRecord")
        fingerprint = services._fingerprint(match.pk, 1, bodies[0])
        record_model.objects.create(
            key="m1",
            user_id=referee.pk,
            match_id=match.pk,
            fingerprint=fingerprint,
            response_status=201,
            response_body=answers[0],
        )  # hand 2's record was swept by the old TTL task
        _migrate(AFTER)
    finally:
        _migrate(_latest())

    first, second = Hand.objects.filter(match=match).order_by("number")
    assert first.idempotency_fingerprint == fingerprint
    assert first.tournament_version == answers[0]["tournament_version"]
    assert first.idempotent_response == {
        **answers[0],
        "hand": {**answers[0]["hand"], "id": None},
        "tournament_version": None,
    }
    assert (second.idempotent_response, second.tournament_version) == (None, None)
    again = services.hand_record(
        match_id=match.pk,
        actor=referee,
        expected_number=1,
        payload=bodies[0],
        idempotency_key="m1",
    )
    assert again.replayed
    assert again.body == answers[0]


@pytest.mark.django_db(transaction=True)
def test_0006_copies_continuation_links_from_the_action_log() -> None:
    """Forfeits recorded before 0006 named their continuation only in the action log: the
    migration makes it the continuation's ``continues``; a forfeit without one gets none."""
    from tests.factories import director_of, scheduled_match

    tournament = TournamentFactory()
    director = director_of(tournament)
    four = match_in_progress(tournament, referee=referee_of(tournament))
    two = scheduled_match(tournament, n_players=2)
    continuation = services.match_forfeit(
        match_id=four.pk, actor=director, seat=1, reason="no-show"
    ).continuation
    assert continuation is not None
    assert (
        services.match_forfeit(
            match_id=two.pk, actor=director, seat=0, reason="no-show"
        ).continuation
        is None
    )
    try:
        _migrate([("scoring", "0005_hand_keeps_its_idempotent_answer")])  # drops the column
        _migrate([("scoring", "0006_match_continues")])
    finally:
        _migrate(_latest())
    linked = dict(Match.objects.filter(continues__isnull=False).values_list("pk", "continues"))
    assert linked == {continuation.pk: four.pk}


@pytest.mark.django_db(transaction=True)
def test_0010_marks_the_tables_kept_for_a_sudden_death_hand_by_the_newest_call() -> None:
    """T3: before 0009 the tables kept for a sudden-death hand were named only by the newest
    ``round.call_time`` entry of their round. 0010 marks those still open; a table kept by an
    older call of the same round but not by the newest, a finished one, and another round's
    older call that a newer call of its own superseded stay unmarked."""
    from tournament.models import ActionLog

    tournament = TournamentFactory()
    referee = referee_of(tournament)
    older_only, kept, kept_other, finished = (
        match_in_progress(tournament, referee=referee) for _ in range(4)
    )
    Match.objects.filter(pk=finished.pk).update(status=Match.Status.FINISHED)

    def call(round_id: str, kept_ids: list[int]) -> None:
        ActionLog.objects.create(
            tournament=tournament,
            verb="round.call_time",
            target_type="brackets.round",
            target_id=round_id,
            data={"ended": {}, "sudden_death": kept_ids},
        )

    call("1", [older_only.pk, kept.pk])
    call("2", [kept_other.pk, finished.pk])
    call("1", [kept.pk])  # the newest call of round 1 keeps only one of them
    try:
        _migrate([("scoring", "0009_match_sudden_death")])
        Match.objects.update(sudden_death=False)  # as a deployment before 0009 left them
        _migrate([("scoring", "0010_sudden_death_from_call_time")])
    finally:
        _migrate(_latest())
    marked = set(Match.objects.filter(sudden_death=True).values_list("pk", flat=True))
    assert marked == {kept.pk, kept_other.pk}


def _latest() -> list[tuple[str, str]]:
    """Every app's latest migration: going back in scoring also unapplies the apps that
    depend on it (ratings), which must come back too."""
    executor = MigrationExecutor(connection)
    return list(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_0011_takes_back_the_six_love_a_forfeit_gave_its_winners() -> None:
    """T7 (README rule decision 6): a forfeit is never a six-love won at the table. Before
    0011 ``match_forfeit`` stored one six-love given on the seat(s) that won by it; 0011 takes
    it back there and only there: the forfeiting side keeps its six-love received, and a
    six-love won at a table stays."""
    from scoring.models import Seat
    from tests.factories import director_of

    tournament = TournamentFactory(ruleset_preset="wsod_partners")
    forfeited = match_in_progress(tournament)
    played = match_in_progress(tournament)
    services.match_forfeit(
        match_id=forfeited.pk, actor=director_of(tournament), seat=3, reason="no-show"
    )
    # As the forfeit stored it before 0011: the winning partnership's six-love given.
    Seat.objects.filter(match=forfeited, placing=1).update(six_love_given=1)
    Match.objects.filter(pk=played.pk).update(status=Match.Status.FINISHED)
    Seat.objects.filter(match=played, seat__in=[0, 2]).update(placing=1, six_love_given=1)
    try:
        _migrate([("scoring", "0010_sudden_death_from_call_time")])
        _migrate([("scoring", "0011_forfeit_winners_no_six_love_given")])
    finally:
        _migrate(_latest())
    assert [
        (s.six_love_given, s.six_love_received)
        for s in Seat.objects.filter(match=forfeited).order_by("seat")
    ] == [(0, 0), (0, 1), (0, 0), (0, 1)]
    assert list(
        Seat.objects.filter(match=played).order_by("seat").values_list("six_love_given", flat=True)
    ) == [1, 0, 1, 0]
