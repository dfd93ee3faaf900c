"""Calling time (T3) meets the table: a sudden-death table ends itself with its deciding hand
(service and API, the round advancing once), and confirmation at the table (issue 15) decides
which hands count when time is called."""

from __future__ import annotations

import html
import json
import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from brackets import services
from brackets.models import Round, Stage
from brackets.selectors import standings_for_stage
from core.exceptions import ApplicationError
from scoring import confirmation
from scoring.models import Hand, Match, Seat
from scoring.services import hand_record, hand_void_last, match_start
from tests.brackets.conftest import make_tournament
from tournament.models import ActionLog

pytestmark = pytest.mark.django_db

SEAT1_FIRST = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1}
SEAT0_WINS = {"poser": 1, "pose_tile": "5-4", "end": "domino", "winner": 0}
# A block whose lowest count is shared (R20): a tied hand, nobody won it.
TIED_BLOCK = {"poser": 1, "pose_tile": "5-4", "end": "block", "counts": [3, 3, 12, 9]}


def _round(confirmation_mode: str = "off") -> tuple[Any, Stage, Round, Match, Match]:
    """Round 1 of an 8-player event (two tables); the second table started and seat 1 won
    hand 1. Returns director, stage, round, first and second match."""
    t, d = make_tournament(8, confirmation=confirmation_mode)
    stage = services.stage_create(
        tournament=t,
        actor=d,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=2,
        rng_seed=7,
        auto_advance=True,
    )
    services.stage_seed(stage=stage, actor=d)
    r1 = services.round_publish(stage=stage, actor=d)
    a, b = Match.objects.filter(round_link__round=r1).order_by("pk")
    match_start(match_id=b.pk, actor=d, lot_winner=0)
    hand_record(match_id=b.pk, actor=d, expected_number=1, payload=SEAT1_FIRST)
    return d, stage, r1, a, b


def _confirm(match: Match, actor: Any, number: int) -> None:
    for seat in range(match.n_players):
        confirmation.hand_confirm(match_id=match.pk, actor=actor, number=number, seat=seat)


def _placings(match: Match) -> dict[int, int | None]:
    return dict(Seat.objects.filter(match=match).values_list("seat", "placing"))


# -- a sudden-death table ends itself (T3) ------------------------------------------------------


def test_the_sudden_death_hand_ends_the_match_and_the_round_advances_once(
    django_capture_on_commit_callbacks: Any, finished_events: list[int]
) -> None:
    """T3: time is called with the second table kept for a sudden-death hand. Seat 0 wins
    it: the match ends there and then (no second call of time), seat 0 first although seat 1
    reached 1 first, marked "time"; the round, now complete, advances exactly once."""
    d, stage, r1, a, b = _round()
    with django_capture_on_commit_callbacks(execute=True):
        assert services.round_call_time(round=r1, actor=d, sudden_death=[b.pk]) == [a.pk]
    b.refresh_from_db()
    assert (b.status, b.sudden_death) == ("in_progress", True)
    assert not Round.objects.filter(stage=stage, number=2).exists()
    with django_capture_on_commit_callbacks(execute=True):
        result = hand_record(match_id=b.pk, actor=d, expected_number=2, payload=SEAT0_WINS)
    assert result.body["match"]["status"] == "finished"
    b.refresh_from_db()
    assert (b.status, b.end_reason, b.winner_seat, b.next_hand) == ("finished", "time", 0, None)
    assert _placings(b) == {0: 1, 1: 2, 2: 3, 3: 3}
    entry_of = dict(Seat.objects.filter(match=b).values_list("seat", "entry_id"))
    rows = {r.player_id: r for r in standings_for_stage(stage_id=stage.pk)}
    assert (rows[entry_of[0]].match_wins, rows[entry_of[1]].match_wins) == (1, 0)
    assert finished_events.count(b.pk) == 1
    r1.refresh_from_db()
    assert (r1.status, r1.advanced_at is not None) == ("closed", True)
    assert Round.objects.filter(stage=stage, number=2).count() == 1
    assert services.round_advance(round_id=r1.pk).outcome == "already_done"
    assert Round.objects.filter(stage=stage, number=2).count() == 1
    # R33: the match is over; no further hand.
    with pytest.raises(ApplicationError) as over:
        hand_record(match_id=b.pk, actor=d, expected_number=3, payload=SEAT0_WINS)
    assert (over.value.code, over.value.rule) == ("match_over", "R33")


def test_keeping_a_table_for_sudden_death_gives_its_open_phone_a_newer_panel() -> None:
    """T3: a referee's phone already open re-reads its panel only when the match version
    grows; keeping the table for a sudden-death hand must move it, so the phone says the next
    hand won ends the match (before, only a reload showed it)."""
    d, _, r1, _a, b = _round()
    client = Client()
    client.force_login(d)
    before = client.get(f"/matches/{b.pk}/panel/")
    version = Match.objects.values_list("version", flat=True).get(pk=b.pk)
    assert f'data-version="{version}"' in before.content.decode()
    assert "sudden-death" not in before.content.decode()
    services.round_call_time(round=r1, actor=d, sudden_death=[b.pk])
    b.refresh_from_db()
    assert b.version == version + 1
    after = client.get(f"/matches/{b.pk}/panel/").content.decode()
    assert f'data-version="{b.version}"' in after
    assert "sudden-death hand (T3)" in after
    # The engine snapshot moves with the version (the flag changes no score): the phone
    # still has the state to draw the sudden-death hand from offline, and knows the table
    # plays one. Before, the snapshot stayed on the old version and the page gave none
    # (data-offline-preview=""), so a hand won offline did not end the match on the phone.
    assert b.engine_state["match_version"] == b.version
    preview = json.loads(html.unescape(after.split('data-offline-preview="', 1)[1].split('"')[0]))
    assert preview["sudden_death"] is True
    assert preview["state"]["hands"] == 1
    assert preview["state"]["scores"] == [0, 1, 0, 0]
    # The next hand folds from the snapshot, and the hand won ends the match.
    result = hand_record(match_id=b.pk, actor=d, expected_number=2, payload=SEAT0_WINS)
    assert result.body["match"]["status"] == "finished"


def test_the_referee_page_of_a_decided_sudden_death_table_gives_no_six_love() -> None:
    """R31c: nobody reached the target, so the players left on 0 got no six-love; the
    referee's result card said "Six-love to C, D" after any match ended by time."""
    d, _, r1, _a, b = _round()
    services.round_call_time(round=r1, actor=d, sudden_death=[b.pk])
    hand_record(match_id=b.pk, actor=d, expected_number=2, payload=SEAT0_WINS)
    client = Client()
    client.force_login(d)
    page = client.get(f"/matches/{b.pk}/").content.decode()
    card = page.split('class="result-card"', 1)[1].split("</section>", 1)[0]
    assert "wins" in card
    assert "Time (T3)" in card
    assert "Six-love" not in card


def _seat_rows(page: str) -> dict[int, str]:
    """The referee panel's scoreboard: each seat's row (``li``), by seat number."""
    board = page.split('class="scoreboard"', 1)[1].split("</ol>", 1)[0]
    rows = board.split("<li ")[1:]
    return {int(row.split('data-seat-name="', 1)[1].split('"', 1)[0]): row for row in rows}


def test_a_sudden_death_replay_lost_by_the_leader_leaves_no_love_badge_on_the_winner() -> None:
    """T3 with R28 and R31a: seat 1 leads 1-0-0-0 when time is called; the sudden-death
    hand is tied (leader B, R28), and seat 2 wins the replay. The replay resets every score
    (R31a: the leader lost it, C scores nothing), and the hand won ends the match (T3): C
    wins on 0-0-0-0. Bug: the panel showed C "winner LOVE 0". After the hand the others are
    on love, the winner is not, nobody leads (the match is over), and the result card says
    why the winner stands on 0."""
    d, _, r1, _a, b = _round()
    services.round_call_time(round=r1, actor=d, sudden_death=[b.pk])
    hand_record(match_id=b.pk, actor=d, expected_number=2, payload=TIED_BLOCK)
    b.refresh_from_db()
    assert (b.next_hand["is_replay"], b.next_hand["leader"]) == (True, 1)
    replay = {"poser": 1, "pose_tile": "5-4", "end": "domino", "winner": 2}
    hand_record(match_id=b.pk, actor=d, expected_number=3, payload=replay)
    b.refresh_from_db()
    assert (b.status, b.end_reason, b.winner_seat, b.scores) == (
        "finished",
        "time",
        2,
        [0, 0, 0, 0],
    )
    client = Client()
    client.force_login(d)
    page = client.get(f"/matches/{b.pk}/panel/").content.decode()
    rows = _seat_rows(page)
    assert "love-tag" not in rows[2]
    assert "is-love" not in rows[2].split(">", 1)[0]
    assert 'class="badge winner"' in rows[2]
    assert all("love-tag" in rows[seat] for seat in (0, 1, 3))
    assert "badge leader" not in page
    card = page.split('class="result-card"', 1)[1].split("</section>", 1)[0]
    assert "won the sudden-death hand and with it the match" in card
    assert "led the tie run and lost the replay" in card
    assert "Six-love" not in card
    # The spectators' card of the match says the same: "winner", not "0 love".
    spectators = Client().get(f"/live/{b.tournament.slug}/matches/{b.pk}/").content.decode()
    seats = spectators.split('class="seats"', 1)[1].split("</tbody>", 1)[0].split("<tr ")[1:]
    by_seat = {int(r.split('data-seat="', 1)[1].split('"', 1)[0]): r for r in seats}
    assert "win-mark" in by_seat[2]
    assert 'class="love"' not in by_seat[2]
    assert all('class="love"' in by_seat[seat] for seat in (0, 1, 3))


def test_the_replay_at_a_sudden_death_table_says_its_winner_wins_the_match() -> None:
    """T3 with R28: the sudden-death hand is tied with B leading. The replay's winner wins
    the match whoever it is (scoring.services, and the test above: C wins on 0-0-0-0), yet
    the referee's next hand said "B led the tie run: if anyone else wins this replay, every
    score returns to 0 and the winner scores nothing (R31a)", under the note "the first hand
    won ends the match". It now says what the table plays for."""
    d, _, r1, _a, b = _round()
    services.round_call_time(round=r1, actor=d, sudden_death=[b.pk])
    hand_record(match_id=b.pk, actor=d, expected_number=2, payload=TIED_BLOCK)
    b.refresh_from_db()
    assert (b.next_hand["is_replay"], b.next_hand["leader"]) == (True, 1)
    client = Client()
    client.force_login(d)
    page = client.get(f"/matches/{b.pk}/panel/").content.decode()
    section = page.split('id="next-hand"', 1)[1].split("</section>", 1)[0]
    # The words shown (rule numbers are links), not the offline words (data-*).
    body = re.sub(r"<[^>]+>", "", section.split(">", 1)[1])
    assert "Sudden death (T3): whoever wins this replay wins the match." in body
    assert "returns to 0" not in body
    assert "scored as after any other hand" not in body
    # The words the phone draws the next hand with offline say the same (referee.js).
    assert (
        'data-x-stakes-sudden="Sudden death (T3): whoever wins this replay wins the match."'
        in section
    )


def test_a_replay_at_a_table_playing_on_keeps_its_stakes() -> None:
    """Without a sudden-death hand the replay's stakes stand (R31a): no sudden-death words."""
    d, _, _r1, _a, b = _round()
    hand_record(match_id=b.pk, actor=d, expected_number=2, payload=TIED_BLOCK)
    client = Client()
    client.force_login(d)
    page = client.get(f"/matches/{b.pk}/panel/").content.decode()
    text = re.sub(r"<[^>]+>", "", page)
    assert "every score returns to 0 and the winner scores nothing (R31a)" in text
    assert "whoever wins this replay wins the match" not in text


def test_a_tied_sudden_death_hand_decides_nothing_and_the_table_plays_on() -> None:
    d, _, r1, _a, b = _round()
    services.round_call_time(round=r1, actor=d, sudden_death=[b.pk])
    hand_record(match_id=b.pk, actor=d, expected_number=2, payload=TIED_BLOCK)
    b.refresh_from_db()
    assert b.status == "in_progress"
    assert b.next_hand is not None
    nxt = b.next_hand
    hand_record(
        match_id=b.pk,
        actor=d,
        expected_number=3,
        payload={"poser": nxt["poser"] or 0, "pose_tile": "5-4", "end": "domino", "winner": 2},
    )
    b.refresh_from_db()
    assert (b.status, b.end_reason, b.winner_seat) == ("finished", "time", 2)
    assert _placings(b)[2] == 1


def test_a_director_may_undo_the_deciding_hand_and_the_next_hand_won_decides() -> None:
    d, _, r1, _a, b = _round()
    services.round_call_time(round=r1, actor=d, sudden_death=[b.pk])
    hand_record(match_id=b.pk, actor=d, expected_number=2, payload=SEAT0_WINS)
    hand_void_last(match_id=b.pk, actor=d, reason="wrong seat tapped", expected_number=2)
    b.refresh_from_db()
    assert (b.status, b.end_reason, b.winner_seat) == ("in_progress", "", None)
    hand_record(
        match_id=b.pk,
        actor=d,
        expected_number=2,
        payload={"poser": 1, "pose_tile": "5-4", "end": "domino", "winner": 3},
    )
    b.refresh_from_db()
    assert (b.status, b.end_reason, b.winner_seat) == ("finished", "time", 3)
    assert _placings(b) == {0: 3, 1: 2, 2: 3, 3: 1}


def test_a_table_placed_by_a_second_call_of_time_is_not_a_sudden_death_table_any_more() -> None:
    """Called again before any hand was won there: placed by T3 (seat 1 won hand 1), ended
    by override, so its last hand cannot be undone like a deciding hand."""
    d, _, r1, _a, b = _round()
    services.round_call_time(round=r1, actor=d, sudden_death=[b.pk])
    assert services.round_call_time(round=r1, actor=d) == [b.pk]
    b.refresh_from_db()
    assert (b.end_reason, b.winner_seat, b.sudden_death) == ("time", 1, False)
    with pytest.raises(ApplicationError) as closed:
        hand_void_last(match_id=b.pk, actor=d, reason="x")
    assert closed.value.code == "match_closed"


def test_api_the_hand_that_decides_a_sudden_death_table_finishes_the_match(
    django_capture_on_commit_callbacks: Any,
) -> None:
    d, stage, r1, _a, b = _round()
    client = APIClient()
    client.force_authenticate(d)
    slug = b.tournament.slug
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(
            f"/api/tournaments/{slug}/rounds/{r1.pk}/call-time/",
            {"reason": "hour up", "sudden_death": [b.pk]},
            format="json",
        )
    assert r.status_code == 200, r.content
    assert b.pk not in r.json()["ended_match_ids"]
    with django_capture_on_commit_callbacks(execute=True):
        r = client.post(
            f"/api/matches/{b.pk}/hands/",
            data=json.dumps({"number": 2, **SEAT0_WINS}),
            content_type="application/json",
            headers={"Idempotency-Key": "sudden-1"},
        )
    assert r.status_code == 201, r.content
    assert r.json()["match"]["status"] == "finished"
    live = client.get(f"/api/matches/{b.pk}/").json()
    assert (live["status"], live["end_reason"], live["winner_seat"]) == ("finished", "time", 0)
    assert Round.objects.filter(stage=stage, number=2).count() == 1
    r = client.post(
        f"/api/matches/{b.pk}/hands/",
        data=json.dumps({"number": 3, **SEAT0_WINS}),
        content_type="application/json",
    )
    assert r.status_code == 400
    assert (r.json()["error"]["code"], r.json()["error"]["rule"]) == ("match_over", "R33")


def test_under_confirmation_the_sudden_death_result_waits_for_the_players(
    django_capture_on_commit_callbacks: Any, finished_events: list[int]
) -> None:
    """Issue 15 with T3: the deciding hand holds the result (no further hand, no placing)
    until every player confirms; then the match ends "time" and the round advances."""
    d, stage, r1, _a, b = _round("every_hand")
    _confirm(b, d, 1)
    services.round_call_time(round=r1, actor=d, sudden_death=[b.pk])
    hand_record(match_id=b.pk, actor=d, expected_number=2, payload=SEAT0_WINS)
    b.refresh_from_db()
    assert (b.status, b.confirmation_hold, b.winner_seat) == ("in_progress", "result", 0)
    assert set(_placings(b).values()) == {None}
    with pytest.raises(ApplicationError) as over:
        hand_record(match_id=b.pk, actor=d, expected_number=3, payload=SEAT0_WINS)
    assert over.value.code == "match_over"
    with django_capture_on_commit_callbacks(execute=True):
        _confirm(b, d, 2)
    b.refresh_from_db()
    assert (b.status, b.end_reason, b.winner_seat) == ("finished", "time", 0)
    assert _placings(b) == {0: 1, 1: 2, 2: 3, 3: 3}
    assert finished_events == [b.pk]
    assert Round.objects.filter(stage=stage, number=2).count() == 1


# -- confirmation at the table when time is called (issue 15) ----------------------------------


def test_an_unconfirmed_hand_does_not_count_when_time_is_called() -> None:
    """Every-hand confirmation: hand 1 (seat 1 won) is confirmed, hand 2 (seat 0 won) waits
    for the players when time is called. Only hand 1 counts: seat 1 is first alone, the
    others level on love share second; hand 2 is voided with the reason and the seats'
    hands won no longer count it."""
    d, stage, r1, a, b = _round("every_hand")
    _confirm(b, d, 1)
    hand_record(match_id=b.pk, actor=d, expected_number=2, payload=SEAT0_WINS)
    b.refresh_from_db()
    assert b.confirmation_hold == "hand"
    assert sorted(services.round_call_time(round=r1, actor=d, reason="hour up")) == [a.pk, b.pk]
    b.refresh_from_db()
    assert (b.status, b.end_reason, b.winner_seat) == ("finished", "time", 1)
    assert b.scores == [0, 1, 0, 0]
    assert b.confirmation_hold == ""
    assert _placings(b) == {0: 2, 1: 1, 2: 2, 3: 2}
    voided = Hand.objects.get(match=b, number=2)
    assert voided.void
    assert "not confirmed" in voided.void_reason
    assert Seat.objects.get(match=b, seat=0).hands_won == 0
    log = ActionLog.objects.get(verb="round.call_time")
    assert log.data["unconfirmed_voided"] == [b.pk]
    assert log.data["ended"][str(b.pk)]["winner"] == Seat.objects.get(match=b, seat=1).entry_id
    entry_of = dict(Seat.objects.filter(match=b).values_list("seat", "entry_id"))
    rows = {r.player_id: r for r in standings_for_stage(stage_id=stage.pk)}
    assert rows[entry_of[0]].hands_won == 0


def test_a_result_awaiting_confirmation_finishes_when_the_players_confirm(
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The hand that ended a match (R33) before time was called waits for the players: time
    leaves it alone and the match ends by the rules, not by time, once they confirm."""
    d, stage, r1, a, b = _round("match_end")
    for number in range(2, 8):  # seat 0 wins six hands in a row: 6-1 ends the match (R30)
        hand_record(
            match_id=b.pk,
            actor=d,
            expected_number=number,
            payload={
                "poser": 0 if number > 2 else 1,
                "pose_tile": "5-4",
                "end": "domino",
                "winner": 0,
            },
        )
        b.refresh_from_db()
        if b.confirmation_hold == "result":
            last = number
            break
    else:
        pytest.fail("the match never ended")
    assert services.round_call_time(round=r1, actor=d) == [a.pk]
    b.refresh_from_db()
    assert (b.status, b.confirmation_hold) == ("in_progress", "result")
    with django_capture_on_commit_callbacks(execute=True):
        _confirm(b, d, last)
    b.refresh_from_db()
    assert (b.status, b.end_reason, b.winner_seat) == ("finished", "normal", 0)
    assert Round.objects.filter(stage=stage, number=2).count() == 1


def test_a_disputed_result_must_be_resolved_before_time_is_called() -> None:
    d, _, r1, a, b = _round("every_hand")
    confirmation.hand_dispute(
        match_id=b.pk, actor=d, number=1, seat=2, claimed={**SEAT1_FIRST, "winner": 2}
    )
    with pytest.raises(ApplicationError) as refused:
        services.round_call_time(round=r1, actor=d)
    assert (refused.value.code, refused.value.rule, refused.value.status_code) == (
        "result_disputed",
        "confirmation",
        409,
    )
    assert "table 2" in refused.value.message
    a.refresh_from_db()
    assert a.status == "scheduled"  # nothing was ended
    # Kept for a sudden-death hand instead, the disputed table waits for its resolution.
    assert services.round_call_time(round=r1, actor=d, sudden_death=[b.pk]) == [a.pk]


def test_api_call_time_names_the_results_awaiting_confirmation() -> None:
    d, _, r1, a, b = _round("match_end")
    Match.objects.filter(pk=b.pk).update(confirmation_hold="result")
    client = APIClient()
    client.force_authenticate(d)
    r = client.post(
        f"/api/tournaments/{b.tournament.slug}/rounds/{r1.pk}/call-time/",
        {"reason": "hour up"},
        format="json",
    )
    assert r.status_code == 200, r.content
    assert r.json() == {"ended_match_ids": [a.pk], "awaiting_confirmation": [b.pk]}


def test_the_action_log_names_the_player_who_disputed() -> None:
    """A dispute is raised by a seated player on the table's phone, who has no account: the
    action log's "Who" read "system"; it names the player by seat and name."""
    from django.test import Client
    from django.urls import reverse

    from scoring.models import Seat

    d, _, _r1, _a, b = _round("every_hand")
    confirmation.hand_dispute(
        match_id=b.pk, actor=d, number=1, seat=2, claimed={**SEAT1_FIRST, "winner": 2}
    )
    name = Seat.objects.get(match=b, seat=2).entry.player.name
    client = Client()
    client.force_login(d)
    rows = client.get(reverse("brackets:log", args=[b.tournament.slug])).context["rows"]
    (row,) = [r for r in rows if r.log.verb == "result.dispute"]
    assert row.who == f"C · {name} (player)"
