"""Scoring services against the real database: start, record, void, override, forfeit."""

from __future__ import annotations

import html
import json
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction

from core.events import match_finished, match_reopened
from core.exceptions import ApplicationError, ConflictError, PermissionDeniedError
from scoring import services
from scoring.models import Hand, Match, Seat
from scoring.services import ClientInfo, hand_record
from tests.factories import (
    TournamentFactory,
    UserFactory,
    director_of,
    match_in_progress,
    referee_of,
    scheduled_match,
)
from tournament.models import ActionLog, Tournament

pytestmark = pytest.mark.django_db


def win(poser: int, winner: int, tile: str = "5-4") -> dict[str, Any]:
    return {"poser": poser, "pose_tile": tile, "end": "domino", "winner": winner}


def forced(poser: int, winner: int) -> dict[str, Any]:
    return win(poser, winner, "6-6")


@pytest.fixture
def tournament() -> Tournament:
    return TournamentFactory()


@pytest.fixture
def referee(tournament: Tournament) -> Any:
    return referee_of(tournament)


@pytest.fixture
def match(tournament: Tournament, referee: Any) -> Match:
    return match_in_progress(tournament, referee=referee)


def record(match: Match, actor: Any, number: int, payload: dict[str, Any], **kw: Any) -> Any:
    return hand_record(
        match_id=match.pk, actor=actor, expected_number=number, payload=payload, **kw
    )


def test_match_start_freezes_ruleset_and_opening_state(tournament: Tournament) -> None:
    tournament.ruleset_overrides = {"tie_value": "flat2"}
    tournament.save()
    ref = referee_of(tournament)
    m = scheduled_match(tournament, referee=ref)
    m.tournament.ruleset = {**tournament.ruleset, "tie_value": "flat2"}
    m.tournament.save()
    started = services.match_start(match_id=m.pk, actor=ref)
    assert started.status == Match.Status.IN_PROGRESS
    assert started.ruleset["tie_value"] == "flat2"
    assert started.next_hand is not None
    assert started.next_hand["forced"] is True
    assert started.next_hand["forced_tile"] == "6-6"
    assert started.scores == [0, 0, 0, 0]
    # Changing the tournament later never rewrites the frozen ruleset (RULES.md section 1).
    tournament.ruleset = {**tournament.ruleset, "tie_value": "none"}
    tournament.save()
    started.refresh_from_db()
    assert started.ruleset["tie_value"] == "flat2"


def test_match_start_rejects_a_ruleset_unplayable_for_the_player_count(
    tournament: Tournament,
) -> None:
    from scoring.engine import Ruleset

    tournament.ruleset = Ruleset.from_preset("wsod", {"deal": "seven"}).to_json()
    tournament.save()
    m = scheduled_match(tournament, n_players=4)
    with pytest.raises(ApplicationError) as exc:
        services.match_start(match_id=m.pk, actor=director_of(tournament))
    assert exc.value.rule == "R2"
    assert exc.value.code == "impossible_deal"
    m.refresh_from_db()
    assert m.status == Match.Status.SCHEDULED


def test_x1_six_love_recorded_and_seat_results_written(match: Match, referee: Any) -> None:
    received: list[dict[str, Any]] = []

    def on_finished(sender: Any, **kwargs: Any) -> None:
        received.append(kwargs)

    match_finished.connect(on_finished)
    try:
        with pytest.MonkeyPatch.context() as mp:
            # Run on_commit callbacks inside the test transaction.
            mp.setattr(transaction, "on_commit", lambda f, robust=False, using=None: f())
            result = record(match, referee, 1, forced(2, 0), client=ClientInfo("10.0.0.7", "ua"))
            assert result.status == 201
            for n in range(2, 7):
                record(match, referee, n, win(0, 0))
    finally:
        match_finished.disconnect(on_finished)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.end_reason == Match.EndReason.NORMAL
    assert match.scores == [6, 0, 0, 0]
    assert match.winner_seat == 0
    assert match.next_hand is None
    assert match.hands_count == 6
    seats = list(Seat.objects.filter(match=match).order_by("seat"))
    # The three on love are level on every key: they share second (T3: seat order never
    # decides a placing).
    assert [s.placing for s in seats] == [1, 2, 2, 2]
    assert seats[0].six_love_given == 3
    assert [s.six_love_received for s in seats] == [0, 1, 1, 1]
    assert seats[0].hands_won == 6
    assert seats[0].domino_wins == 6
    hand = Hand.objects.get(match=match, number=1)
    assert hand.client_ip == "10.0.0.7"
    assert hand.recorded_by == referee
    assert received == [
        {
            "signal": match_finished,
            "match_id": match.pk,
            "tournament_id": match.tournament_id,
            "end_reason": "normal",
        }
    ]


def test_engine_rejection_is_a_400_with_code_rule_and_field(match: Match, referee: Any) -> None:
    with pytest.raises(ApplicationError) as exc:
        record(match, referee, 1, win(0, 1, "5-4"))  # forced pose must be 6-6 (R5)
    assert exc.value.status_code == 400
    assert exc.value.code == "wrong_pose_tile"
    assert exc.value.rule == "R5"
    assert "pose_tile" in exc.value.fields
    assert not Hand.objects.filter(match=match).exists()


def test_stale_expected_number_is_a_409_with_the_current_state(match: Match, referee: Any) -> None:
    record(match, referee, 1, forced(0, 1))
    with pytest.raises(ConflictError) as exc:
        record(match, referee, 1, forced(0, 1))
    body = exc.value.as_body()["error"]
    assert exc.value.status_code == 409
    assert body["code"] == "stale_hand_number"
    assert body["match"]["hands_count"] == 1
    assert body["match"]["next_hand"]["poser"] == 1
    assert Hand.objects.filter(match=match).count() == 1


def test_idempotent_retry_returns_the_stored_response(match: Match, referee: Any) -> None:
    first = record(match, referee, 1, forced(0, 1), idempotency_key="k-1")
    again = record(match, referee, 1, forced(0, 1), idempotency_key="k-1")
    assert again.replayed
    assert not first.replayed
    assert again.body == first.body
    assert again.status == 201
    assert Hand.objects.filter(match=match).count() == 1
    with pytest.raises(ApplicationError) as exc:
        record(match, referee, 1, forced(0, 2), idempotency_key="k-1")
    assert exc.value.status_code == 422
    assert exc.value.code == "idempotency_key_reused"


def test_only_the_assigned_referee_or_a_director_records(
    tournament: Tournament, match: Match
) -> None:
    other_ref = referee_of(tournament)
    with pytest.raises(PermissionDeniedError):
        record(match, other_ref, 1, forced(0, 1))
    with pytest.raises(PermissionDeniedError):
        record(match, UserFactory(), 1, forced(0, 1))
    other = TournamentFactory()
    with pytest.raises(PermissionDeniedError):
        record(match, director_of(other), 1, forced(0, 1))
    assert record(match, director_of(tournament), 1, forced(0, 1)).status == 201


def test_void_last_refolds_and_keeps_the_hand(match: Match, referee: Any) -> None:
    record(match, referee, 1, forced(0, 1))
    record(match, referee, 2, win(1, 1))
    with pytest.raises(ApplicationError) as exc:
        services.hand_void_last(match_id=match.pk, actor=referee, reason="  ")
    assert exc.value.code == "reason_required"
    with pytest.raises(ConflictError):
        services.hand_void_last(
            match_id=match.pk, actor=referee, reason="wrong winner", expected_number=1
        )
    res = services.hand_void_last(
        match_id=match.pk, actor=referee, reason="wrong winner", expected_number=2
    )
    assert res.hand.void
    assert res.hand.voided_by == referee
    assert res.hand.voided_at
    match.refresh_from_db()
    assert match.scores == [0, 1, 0, 0]
    assert match.hands_count == 1
    # The number is free again among live hands; the void hand stays.
    record(match, referee, 2, win(1, 2))
    assert Hand.objects.filter(match=match, number=2).count() == 2
    match.refresh_from_db()
    assert match.scores == [0, 1, 1, 0]
    assert ActionLog.objects.filter(verb="hand.void", target_id=str(res.hand.pk)).exists()


def test_director_reopens_a_match_by_voiding_its_last_hand(
    tournament: Tournament, match: Match, referee: Any
) -> None:
    record(match, referee, 1, forced(2, 0))
    for n in range(2, 7):
        record(match, referee, n, win(0, 0))
    with pytest.raises(PermissionDeniedError):
        services.hand_void_last(match_id=match.pk, actor=referee, reason="typo")
    reopened: list[int] = []

    def on_reopen(sender: Any, **kw: Any) -> None:
        reopened.append(kw["match_id"])

    match_reopened.connect(on_reopen)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(transaction, "on_commit", lambda f, robust=False, using=None: f())
            services.hand_void_last(match_id=match.pk, actor=director_of(tournament), reason="typo")
    finally:
        match_reopened.disconnect(on_reopen)
    match.refresh_from_db()
    assert match.status == Match.Status.IN_PROGRESS
    assert match.scores == [5, 0, 0, 0]
    assert match.winner_seat is None
    assert reopened == [match.pk]
    assert list(Seat.objects.filter(match=match).values_list("placing", flat=True)) == [None] * 4


def test_override_sets_result_and_logs_before_and_after(
    tournament: Tournament, match: Match, referee: Any
) -> None:
    record(match, referee, 1, forced(0, 1))
    director = director_of(tournament)
    with pytest.raises(PermissionDeniedError):
        services.match_result_override(
            match_id=match.pk, actor=referee, scores=[0, 6, 0, 0], reason="x"
        )
    with pytest.raises(ApplicationError) as exc:
        services.match_result_override(
            match_id=match.pk, actor=director, scores=[3, 3, 0, 0], reason="dispute"
        )
    assert exc.value.code == "placings_required"
    m = services.match_result_override(
        match_id=match.pk,
        actor=director,
        scores=[3, 3, 0, 0],
        placings=[2, 1, 3, 4],
        reason="dispute settled",
    ).match
    assert m.status == Match.Status.FINISHED
    assert m.end_reason == Match.EndReason.OVERRIDE
    assert m.winner_seat == 1
    log = ActionLog.objects.get(verb="match.override")
    assert log.reason == "dispute settled"
    assert log.data["before"]["scores"] == [0, 1, 0, 0]
    assert log.data["after"]["placings"] == [2, 1, 3, 4]
    with pytest.raises(ApplicationError) as exc:
        record(match, referee, 2, win(1, 1))
    assert exc.value.code in {"match_over"}
    assert exc.value.rule == "R33"


def test_assigning_the_referee_a_match_already_has_writes_and_logs_nothing(
    tournament: Tournament, match: Match, referee: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """A second press of Set on the round page (or a retry) logged "Referee changed" for no
    change (walkthrough): the same referee is no change at all, not even a live push."""
    director = director_of(tournament)
    other = referee_of(tournament)
    version = match.version
    with django_capture_on_commit_callbacks() as pushed:
        same = services.match_assign_referee(match_id=match.pk, actor=director, referee=referee)
    assert (same.referee_id, same.version) == (referee.pk, version)
    assert pushed == []
    assert not ActionLog.objects.filter(verb="match.assign_referee").exists()
    services.match_assign_referee(match_id=match.pk, actor=director, referee=other)
    services.match_assign_referee(match_id=match.pk, actor=director, referee=other)
    services.match_assign_referee(match_id=match.pk, actor=director, referee=None)
    services.match_assign_referee(match_id=match.pk, actor=director, referee=None)
    logs = ActionLog.objects.filter(verb="match.assign_referee").order_by("id")
    assert [log.data for log in logs] == [
        {"before": referee.pk, "after": other.pk},
        {"before": other.pk, "after": None},
    ]
    # A referee who is not one of the tournament's is still refused, change or not.
    with pytest.raises(ApplicationError):
        services.match_assign_referee(match_id=match.pk, actor=director, referee=UserFactory())


def test_a_new_referee_keeps_the_engine_snapshot_current_for_the_phone(
    tournament: Tournament, match: Match, referee: Any
) -> None:
    """A director gives a table a new referee mid-match. The version moved but the engine
    snapshot stayed on the old one, so the new referee's phone got no offline preview
    (scoring.views: data-offline-preview="") until a hand was recorded online, and a hand
    queued offline was not drawn. A new referee changes no score: the snapshot moves too."""
    from django.test import Client

    from tournament.services import referee_token_issue

    director = director_of(tournament)
    record(match, referee, 1, forced(2, 1))
    other = referee_of(tournament)
    services.match_assign_referee(match_id=match.pk, actor=director, referee=other)
    match.refresh_from_db()
    assert match.engine_state["match_version"] == match.version
    token = referee_token_issue(tournament=tournament, actor=director, user=other)
    phone = Client()
    assert phone.post("/ref/", {"key": token.key}).status_code == 200
    panel = phone.get(f"/matches/{match.pk}/panel/").content.decode()
    preview = panel.split('data-offline-preview="', 1)[1].split('"', 1)[0]
    assert preview != ""
    state = json.loads(html.unescape(preview))["state"]
    assert (state["hands"], state["scores"]) == (1, [0, 1, 0, 0])
    # The next hand folds from the snapshot and is recorded as before.
    record(match, other, 2, win(1, 1))
    match.refresh_from_db()
    assert match.scores == [0, 2, 0, 0]


def test_forfeit_two_players_is_a_six_love_loss(tournament: Tournament) -> None:
    director = director_of(tournament)
    m = scheduled_match(tournament, n_players=2)
    res = services.match_forfeit(match_id=m.pk, actor=director, seat=1, reason="no-show")
    assert res.continuation is None
    assert not Match.objects.filter(continues=m).exists()
    m.refresh_from_db()
    assert m.status == Match.Status.FINISHED
    assert m.end_reason == Match.EndReason.FORFEIT
    assert m.started_at is not None
    assert m.scores == [6, 0]
    seats = list(Seat.objects.filter(match=m).order_by("seat"))
    # T7: the match win and the target, never a six-love given (README rule decision 6).
    assert (seats[0].placing, seats[0].points, seats[0].six_love_given) == (1, 6, 0)
    assert (seats[1].placing, seats[1].points, seats[1].six_love_received) == (2, 0, 1)
    assert seats[1].forfeited
    assert ActionLog.objects.filter(verb="match.forfeit", reason="no-show").exists()


def test_forfeit_at_four_plays_on_without_the_player(tournament: Tournament) -> None:
    director = director_of(tournament)
    ref = referee_of(tournament)
    m = match_in_progress(tournament, referee=ref)
    entries = list(Seat.objects.filter(match=m).order_by("seat").values_list("entry", flat=True))
    res = services.match_forfeit(match_id=m.pk, actor=director, seat=2, reason="disqualified")
    assert res.continuation is not None
    cont = res.continuation
    assert cont.continues_id == m.pk
    assert Match.objects.get(pk=m.pk).continuation == cont
    assert cont.n_players == 3
    assert cont.referee == ref
    assert list(
        Seat.objects.filter(match=cont).order_by("seat").values_list("entry", flat=True)
    ) == [entries[0], entries[1], entries[3]]
    loser = Seat.objects.get(match=m, seat=2)
    assert loser.forfeited
    assert loser.placing == 4
    assert loser.six_love_received == 1


def test_forfeit_at_a_partnership_table_is_the_partnerships_six_love_loss() -> None:
    """T7 with R42: the forfeiting player's partnership loses 0-6 and the other wins it. Both
    partners of each hold its placing (1st, 1st; 3rd, 3rd), the winners the target and no
    six-love given (nobody won one at the table, README rule decision 6), the losers 0 and a
    six-love received; nobody plays on one short."""
    tournament = TournamentFactory(ruleset_preset="wsod_partners")
    director = director_of(tournament)
    m = match_in_progress(tournament, referee=referee_of(tournament))
    res = services.match_forfeit(match_id=m.pk, actor=director, seat=3, reason="no-show")
    assert res.continuation is None
    m.refresh_from_db()
    assert (m.status, m.end_reason) == (Match.Status.FINISHED, Match.EndReason.FORFEIT)
    assert m.scores == [6, 0, 6, 0]
    assert m.winner_seat == 0  # AC: the winning partnership's first seat
    seats = Seat.objects.filter(match=m).order_by("seat")
    assert [
        (s.placing, s.points, s.six_love_given, s.six_love_received, s.forfeited) for s in seats
    ] == [(1, 6, 0, 0, False), (3, 0, 0, 1, False), (1, 6, 0, 0, False), (3, 0, 0, 1, True)]


def test_a_late_retry_gets_its_original_answer_even_after_the_hand_was_voided(
    match: Match, referee: Any
) -> None:
    """The answer lives with its hand: no TTL, and an undo since does not change what the
    retried submission is told (it was recorded; the referee sees the undo elsewhere)."""
    first = record(match, referee, 1, forced(0, 1), idempotency_key="late")
    record(match, referee, 2, win(1, 1), idempotency_key="next")
    services.hand_void_last(match_id=match.pk, actor=referee, reason="wrong winner")
    services.hand_void_last(match_id=match.pk, actor=referee, reason="wrong poser")
    again = record(match, referee, 1, forced(0, 1), idempotency_key="late")
    assert again.replayed
    assert again.body == first.body
    assert again.body["hand"]["void"] is False
    # The same key with another body is still refused.
    with pytest.raises(ApplicationError) as err:
        record(match, referee, 1, forced(0, 2), idempotency_key="late")
    assert (err.value.status_code, err.value.code) == (422, "idempotency_key_reused")


def test_raw_duplicate_live_hand_number_is_refused_by_the_database(
    match: Match, referee: Any
) -> None:
    record(match, referee, 1, forced(0, 1))
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            'INSERT INTO scoring_hand (match_id, number, poser, pose_tile, "end", winner, '
            "llave, sporting, value, paid, tied, reset, scores_after, notes, recorded_at, "
            "user_agent, idempotency_key, void, void_reason) VALUES (%s, 1, 0, '6-6', "
            "'domino', 2, false, false, 1, 1, false, false, '[]', '[]', now(), '', '', "
            "false, '')",
            [match.pk],
        )
    # A void hand with the same number is fine (the constraint is partial).
    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            'INSERT INTO scoring_hand (match_id, number, poser, pose_tile, "end", winner, '
            "llave, sporting, value, paid, tied, reset, scores_after, notes, recorded_at, "
            "user_agent, idempotency_key, void, voided_at, void_reason) VALUES (%s, 1, 0, "
            "'6-6', 'domino', 2, false, false, 1, 1, false, false, '[]', '[]', now(), '', '', "
            "true, now(), 'test')",
            [match.pk],
        )


def test_raw_duplicate_idempotency_key_is_refused_by_the_database(
    match: Match, referee: Any
) -> None:
    record(match, referee, 1, forced(0, 1), idempotency_key="dup")
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cur:
        # A voided hand of another match, by the same referee with the same key.
        cur.execute(
            'INSERT INTO scoring_hand (match_id, number, poser, pose_tile, "end", winner, '
            "llave, sporting, value, paid, tied, reset, scores_after, notes, recorded_at, "
            "recorded_by_id, user_agent, idempotency_key, idempotency_fingerprint, void, "
            "voided_at, void_reason) VALUES (%s, 7, 0, '6-6', 'domino', 2, false, false, 1, "
            "1, false, false, '[]', '[]', now(), %s, '', 'dup', '', true, now(), 'test')",
            [match_in_progress(match.tournament, referee=referee).pk, referee.pk],
        )


def test_raw_update_making_two_live_hands_share_a_number_fails(match: Match, referee: Any) -> None:
    record(match, referee, 1, forced(0, 1))
    record(match, referee, 2, win(1, 1))
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cur:
        cur.execute("UPDATE scoring_hand SET number = 1 WHERE match_id = %s", [match.pk])


def test_recording_broadcasts_after_commit_to_the_tournament_group(
    match: Match, referee: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[list[str], dict[str, Any]]] = []
    monkeypatch.setattr(services.notify, "broadcast_on_commit", lambda g, e: sent.append((g, e)))
    result = record(match, referee, 1, forced(0, 1))
    assert sent == [
        (
            [f"tournament-{match.tournament_id}"],
            {
                "type": "match.update",
                "match_id": match.pk,
                "tournament_id": match.tournament_id,
                "version": result.body["match"]["version"],
                "tournament_version": result.body["tournament_version"],
            },
        )
    ]
    # A rejected hand broadcasts nothing.
    with pytest.raises(ApplicationError):
        record(match, referee, 2, win(3, 1))
    assert len(sent) == 1


def test_tournament_version_is_bumped_by_every_recording(match: Match, referee: Any) -> None:
    before = Tournament.objects.get(pk=match.tournament_id).version
    record(match, referee, 1, forced(0, 1))
    record(match, referee, 2, win(1, 1))
    assert Tournament.objects.get(pk=match.tournament_id).version == before + 2


def test_match_create_validates_seats(tournament: Tournament) -> None:
    from tests.factories import EntryFactory

    director = director_of(tournament)
    entries = [EntryFactory(tournament=tournament) for _ in range(2)]
    foreign = EntryFactory()
    with pytest.raises(ApplicationError) as exc:
        services.match_create(tournament=tournament, actor=director, entries=[entries[0]])
    assert exc.value.rule == "R2"
    with pytest.raises(ApplicationError) as exc:
        services.match_create(tournament=tournament, actor=director, entries=[entries[0], foreign])
    assert "entries[1]" in exc.value.fields
    with pytest.raises(ApplicationError) as exc:
        services.match_create(
            tournament=tournament, actor=director, entries=[entries[0], entries[0]]
        )
    assert exc.value.code == "duplicate_entry"
    with pytest.raises(ApplicationError) as exc:
        services.match_create(
            tournament=tournament, actor=director, entries=entries, referee=UserFactory()
        )
    assert exc.value.code == "not_referee"
    m = services.match_create(tournament=tournament, actor=director, entries=entries)
    assert m.n_players == 2
    assert list(m.seats.values_list("entry", flat=True)) == [e.pk for e in entries]


def test_raw_hand_reusing_a_users_idempotency_key_is_refused(match: Match, referee: Any) -> None:
    record(match, referee, 1, forced(0, 1), idempotency_key="once")
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cur:
        cur.execute(
            'INSERT INTO scoring_hand (match_id, number, poser, pose_tile, "end", winner, '
            "llave, sporting, value, paid, tied, reset, scores_after, notes, recorded_at, "
            "recorded_by_id, user_agent, idempotency_key, void, void_reason) VALUES (%s, 2, 1, "
            "'5-4', 'domino', 2, false, false, 1, 1, false, false, '[]', '[]', now(), %s, '', "
            "'once', false, '')",
            [match.pk, referee.pk],
        )


@pytest.mark.parametrize(
    ("language", "message"),
    [("es", "No hay ninguna mano que deshacer."), ("en", "No hand to undo.")],
)
def test_refusals_are_worded_in_the_requests_language(
    match: Match, referee: Any, language: str, message: str
) -> None:
    """A service's refusal reads in the language of the request that caused it (the director's
    pages show it as it is); its code, rule and fields stay the same in every language."""
    from django.utils import translation

    with translation.override(language), pytest.raises(ApplicationError) as refused:
        services.hand_void_last(match_id=match.pk, actor=referee, reason="wrong winner")
    assert refused.value.code == "no_hand"
    assert refused.value.message == message
