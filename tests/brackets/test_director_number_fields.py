"""Numbers on the director pages and the stages API: a bad or huge value is a 400 naming the
field and its range, never a 500 and never silently a default (tester's report, RULES.md §11).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from brackets.models import CUT_SIZE_MAX, Round, Stage, StageEntry
from brackets.services import round_publish, stage_seed, stage_seed_reorder
from core.exceptions import ApplicationError
from tests.brackets.factories_pages import director_client, tournament_with_stage

pytestmark = pytest.mark.django_db

HUGE = ("99999999999999999999", "9223372036854775808", "2147483648", "1" * 5000)

STAGE = {
    "name": "Q",
    "kind": "qualifying",
    "swiss_rounds": "3",
    "advance_per_table": "1",
    "final_table_size": "4",
    "allow_three": "on",
    "bye_policy": "win",
    "seat_order": "balanced",
    "seeding": "rating",
}


def url(name: str, *args: Any) -> str:
    return reverse(f"brackets:{name}", args=args)


def said(client: Client, response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


@pytest.mark.parametrize("cut", HUGE)
def test_a_huge_cut_is_a_400_naming_the_cut_and_its_maximum(cut: str) -> None:
    """Bug: cut_size=99999999999999999999 (or 2**63) on the stage form was a 500
    OverflowError; 2147483648 was saved (a 500 on PostgreSQL). Now the form answers 400:
    "Cut: top N go on: at most 10000 (T6)." (5,000 digits: "enter a whole number")."""
    tournament, director, stage = tournament_with_stage(8)
    stage.delete()
    client = director_client(director)
    response = client.post(url("stages", tournament.slug), {**STAGE, "cut_size": cut})
    assert response.status_code == 400
    errors = response.context["form"].errors["cut_size"]
    if len(cut) > 100:
        assert errors == ["Cut: top N go on: enter a whole number (T6)."]
    else:
        assert errors == [f"Cut: top N go on: at most {CUT_SIZE_MAX} (T6)."]
    assert not Stage.objects.filter(tournament=tournament).exists()


def test_the_stage_edit_page_refuses_a_huge_cut_and_the_help_says_the_maximum() -> None:
    """Bug: the edit page had the same overflow. Now 400 naming the field; the stage is
    unchanged and the field's help text states the maximum."""
    tournament, director, stage = tournament_with_stage(8)
    client = director_client(director)
    edit = url("stage-edit", tournament.slug, stage.pk)
    assert f"at most {CUT_SIZE_MAX}" in client.get(edit).content.decode()
    data = {
        "name": "Q",
        "swiss_rounds": "2",
        "cut_size": "9223372036854775808",
        "advance_per_table": "1",
        "final_table_size": "4",
        "allow_three": "on",
        "bye_policy": "win",
        "seat_order": "balanced",
    }
    response = client.post(edit, data)
    assert response.status_code == 400
    assert response.context["form"].errors["cut_size"] == [
        f"Cut: top N go on: at most {CUT_SIZE_MAX} (T6)."
    ]
    stage.refresh_from_db()
    assert stage.cut_size == 4


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("swiss_rounds", "51", "Rounds: at most 50 (T2)."),
        ("round_time_limit", "601", "Round time limit (minutes): at most 600 (T2)."),
        ("rng_seed", "2147483648", "Random seed: at most 2147483647 (T8)."),
    ],
)
def test_every_stage_number_names_its_range(field: str, value: str, message: str) -> None:
    tournament, director, stage = tournament_with_stage(8)
    stage.delete()
    client = director_client(director)
    response = client.post(url("stages", tournament.slug), {**STAGE, field: value})
    assert response.status_code == 400
    assert response.context["form"].errors[field] == [message]


def test_the_page_takes_the_api_s_fifty_rounds() -> None:
    """Bug: the API took up to 50 rounds, the page 30, so a stage made by the API could not
    be saved on the edit page. Now one limit (50)."""
    tournament, director, stage = tournament_with_stage(8)
    stage.delete()
    client = director_client(director)
    response = client.post(url("stages", tournament.slug), {**STAGE, "swiss_rounds": "40"})
    assert response.status_code == 302
    assert Stage.objects.get(tournament=tournament).swiss_rounds == 40


@pytest.mark.parametrize(
    ("method", "path", "body", "field", "limit"),
    [
        ("POST", "stages/", {"cut_size": 2147483647}, "cut_size", "10000"),
        ("POST", "stages/", {"cut_size": 10**20}, "cut_size", "10000"),
        ("POST", "stages/", {"round_time_limit": 601}, "round_time_limit", "600"),
        ("POST", "stages/", {"swiss_rounds": 51}, "swiss_rounds", "50"),
        ("PATCH", "stages/{stage}/", {"cut_size": 2**63}, "cut_size", "10000"),
        ("PATCH", "stages/{stage}/", {"round_time_limit": 601}, "round_time_limit", "600"),
        ("PATCH", "stages/{stage}/", {"swiss_rounds": 32768}, "swiss_rounds", "50"),
    ],
)
def test_the_stages_api_refuses_numbers_past_their_range(
    method: str, path: str, body: dict[str, Any], field: str, limit: str
) -> None:
    """Bug: the API took any cut up to 2**31-1 and a time limit of 4,000 years. Now the same
    limits as the page, a 400 naming the field."""
    tournament, director, stage = tournament_with_stage(8)
    api = APIClient()
    api.force_authenticate(director)
    if method == "POST":
        body = {"name": "S", "kind": "qualifying", "swiss_rounds": 2, **body}
    r = api.generic(
        method,
        f"/api/tournaments/{tournament.slug}/{path.format(stage=stage.pk)}",
        json.dumps(body),
        content_type="application/json",
    )
    assert r.status_code == 400, r.content
    assert limit in r.json()["error"]["fields"][field][0]
    assert Stage.objects.filter(tournament=tournament).count() == 1
    stage.refresh_from_db()
    assert stage.cut_size == 4


def test_the_service_refuses_a_cut_past_the_limit() -> None:
    """The rule lives in the service too: another caller cannot store a cut past it."""
    from brackets.services import stage_create, stage_update

    tournament, director, stage = tournament_with_stage(8)
    with pytest.raises(ApplicationError) as exc:
        stage_update(stage=stage, actor=director, data={"cut_size": 2**40})
    assert "cut_size" in exc.value.fields
    with pytest.raises(ApplicationError):
        stage_create(
            tournament=tournament,
            actor=director,
            name="Big",
            kind="qualifying",
            swiss_rounds=2,
            round_time_limit=10**6,
        )


# -- the round clock --------------------------------------------------------------------------


def published_round(time_limit: int | None = 45) -> tuple[Any, Any, Round]:
    tournament, director, stage = tournament_with_stage(8, time_limit=time_limit)
    stage_seed(stage=stage, actor=director, method="rating")
    return tournament, director, round_publish(stage=stage, actor=director)


@pytest.mark.parametrize(
    ("minutes", "message"),
    [
        ("", "Minutes: required (T2)."),
        ("0", "Minutes: at least 1 (T2)."),
        ("-5", "Minutes: at least 1 (T2)."),
        ("abc", "Minutes: enter a whole number (T2)."),
        ("1" * 5000, "Minutes: enter a whole number (T2)."),
        ("601", "Minutes: at most 600 (T2)."),
        ("1.5", "Minutes: enter a whole number (T2)."),
    ],
)
def test_bad_clock_minutes_are_a_400_naming_minutes(minutes: str, message: str) -> None:
    """Bug: empty, 0, -5, abc, 601 or 1.5 minutes answered "Clock started: 45 minutes." (the
    stage's default). Now the round page again, 400, the error under Minutes; no clock."""
    tournament, director, rnd = published_round()
    client = director_client(director)
    response = client.post(url("clock", tournament.slug, rnd.pk), {"minutes": minutes})
    assert response.status_code == 400
    assert response.context["clock_form"].errors["minutes"] == [message]
    assert message in response.content.decode()
    rnd.refresh_from_db()
    assert rnd.clock_started_at is None


def test_a_resent_clock_form_does_not_restart_a_running_clock() -> None:
    """Bug: every post restarted a running clock, so back + resubmit reset the time. Now the
    page's form starts a clock that is not running; sent again it is a 409 saying when the
    clock ends, and the clock is unchanged."""
    tournament, director, rnd = published_round()
    client = director_client(director)
    first = client.post(url("clock", tournament.slug, rnd.pk), {"minutes": "30"})
    assert first.status_code == 302
    assert said(client, first) == ["Clock started: 30 minutes."]
    rnd.refresh_from_db()
    started = rnd.clock_started_at
    assert started is not None
    again = client.post(url("clock", tournament.slug, rnd.pk), {"minutes": "50"})
    assert again.status_code == 409
    assert "already started" in again.content.decode()
    rnd.refresh_from_db()
    assert rnd.clock_started_at == started
    assert rnd.time_limit == 30


# -- seeding ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rng_seed", "message"),
    [
        ("-1", "Random seed: at least 0 (T8)."),
        ("abc", "Random seed: enter a whole number (T8)."),
        ("1" * 5000, "Random seed: enter a whole number (T8)."),
        (str(10**20), "Random seed: at most 2147483647 (T8)."),
    ],
)
def test_a_bad_random_seed_names_the_random_seed_field(rng_seed: str, message: str) -> None:
    """Bug: a bad random seed answered "Choose how to seed (rating, random or manual)." Now
    the seeding page again, 400, naming the random seed and its rule; nothing seeded."""
    tournament, director, stage = tournament_with_stage(8)
    client = director_client(director)
    response = client.post(
        url("seed", tournament.slug, stage.pk), {"method": "random", "rng_seed": rng_seed}
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    assert "Choose how to seed" not in html
    assert not StageEntry.objects.filter(stage=stage).exists()


@pytest.mark.parametrize(
    ("data", "text"),
    [
        ({"method": "rating"}, "Seeded 8 players by rating."),
        ({"method": "manual"}, "Seeded 8 players in manual order."),
        ({"method": "random", "rng_seed": "42"}, "Seeded 8 players at random (seed 42)."),
    ],
)
def test_the_seeded_message_reads_right_for_each_method(data: dict[str, str], text: str) -> None:
    """Bug: "Seeded 50 players manual order." / "... random (recorded seed) (seed 42).": the
    method's label was pasted into the sentence. Now one sentence per method."""
    tournament, director, stage = tournament_with_stage(8)
    client = director_client(director)
    response = client.post(url("seed", tournament.slug, stage.pk), data)
    assert response.status_code == 302
    assert said(client, response) == [text]


def test_a_seed_order_error_names_the_players_not_a_python_list() -> None:
    """Bug: "The seed order leaves out players: [12, 13] (T8)." Now their names."""
    _tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    entrants = list(
        StageEntry.objects.filter(stage=stage).order_by("seed").select_related("entry__player")
    )
    order = [e.entry_id for e in entrants[:-2]]
    with pytest.raises(ApplicationError) as exc:
        stage_seed_reorder(stage=stage, actor=director, order=order)
    message = exc.value.message
    assert "[" not in message
    for e in entrants[-2:]:
        assert e.entry.player.name in message
    with pytest.raises(ApplicationError) as exc:
        stage_seed_reorder(stage=stage, actor=director, order=[*order, 10**9])
    assert "#1000000000" in exc.value.message
    assert "[" not in exc.value.message


# -- publishing -------------------------------------------------------------------------------


@pytest.mark.parametrize("expected", ["abc", "", "0", "1" * 5000])
def test_a_bad_expected_round_number_does_not_publish(expected: str) -> None:
    """Bug: expected_number=abc published round 1 (a non-numeric value became "no check").
    Now the preview again, 400, naming the field; nothing published."""
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    client = director_client(director)
    response = client.post(url("publish", tournament.slug, stage.pk), {"expected_number": expected})
    assert response.status_code == 400
    assert any(m.startswith("Round to publish:") for m in said(client, response))
    assert not Round.objects.filter(stage=stage).exists()
    missing = client.post(url("publish", tournament.slug, stage.pk), {})
    assert missing.status_code == 400
    assert not Round.objects.filter(stage=stage).exists()
    ok = client.post(url("publish", tournament.slug, stage.pk), {"expected_number": "1"})
    assert ok.status_code == 302
    assert Round.objects.filter(stage=stage).count() == 1


# -- reasons (the same pattern: bad input silently dropped) -----------------------------------


def test_a_too_long_reason_is_named_not_dropped() -> None:
    """Bug: a late entry's reason past 500 characters was silently dropped (the entry added
    with no reason); a withdrawal's answered "Give a reason". Now "Reason: at most 500
    characters (this one has 501)." and nothing changes."""
    tournament, director, stage = tournament_with_stage(8)
    stage_seed(stage=stage, actor=director, method="rating")
    entrant = StageEntry.objects.filter(stage=stage).select_related("entry").first()
    assert entrant is not None
    client = director_client(director)
    long = {"reason": "x" * 501}
    response = client.post(url("withdraw", tournament.slug, stage.pk, entrant.entry_id), long)
    assert said(client, response) == ["Reason: at most 500 characters (this one has 501)."]
    entrant.refresh_from_db()
    assert entrant.status == StageEntry.Status.ACTIVE
    client.get(url("seeding", tournament.slug, stage.pk))  # shows (and uses up) the message
    response = client.post(url("late-entry", tournament.slug, stage.pk, entrant.entry_id), long)
    assert said(client, response) == ["Reason: at most 500 characters (this one has 501)."]
