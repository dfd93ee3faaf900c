"""Regressions found by the API fuzzer (tests/api/test_api_fuzz.py), one minimal case each.

Responses are checked against our own OpenAPI schema (``/api/schema/``) with schemathesis'
validator, the same check the fuzzer runs (``response_schema_conformance``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import requests
import schemathesis
from django.test import Client
from rest_framework.test import APIClient

from brackets.models import Stage
from brackets.services import round_publish, stage_create, stage_seed
from core.api.versioning import VERSIONED_PATH
from scoring.models import Match
from tests.factories import (
    TableFactory,
    TournamentFactory,
    director_of,
    match_in_progress,
    referee_of,
    scheduled_match,
)
from tournament.models import Entry, Player, Tournament

pytestmark = pytest.mark.django_db

HUGE = "913013171781148000269631488"  # what the fuzzer sent: past PostgreSQL's bigint
INT_PAST = 2**31  # one past PostgreSQL's integer


@pytest.fixture(scope="module")
def raw_schema() -> dict[str, Any]:
    r = Client().get("/api/schema/?format=json")
    assert r.status_code == 200
    return dict(json.loads(r.content))


@pytest.fixture(scope="module")
def api_schema(raw_schema: dict[str, Any]) -> Any:
    return schemathesis.openapi.from_dict(raw_schema)


def v1_path(path: str) -> str:
    """The schema's path of an unversioned alias's path: ``/api/x`` is ``/api/v1/x``."""
    return path if VERSIONED_PATH.match(path) else "/api/v1/" + path.removeprefix("/api/")


def conforms(api_schema: Any, path: str, method: str, response: Any) -> None:
    """Raise (with schemathesis' report) unless ``response`` matches the documented one.

    ``path`` may be the unversioned alias's (``/api/x``): the schema lists ``/api/v1/x``."""
    path = v1_path(path)
    request = requests.PreparedRequest()
    request.prepare(method=method, url=f"http://localhost{response.wsgi_request.get_full_path()}")
    st_response = schemathesis.Response(
        status_code=response.status_code,
        headers={name.lower(): [value] for name, value in response.headers.items()},
        content=response.content,
        request=request,
        elapsed=0.0,
        verify=True,
    )
    api_schema[path][method].validate_response(st_response)


def error_shape(response: Any) -> dict[str, Any]:
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"}, body
    assert {"code", "message", "fields"} <= set(body["error"]), body
    return dict(body["error"])


# --- an /api/ address no route matches answered an HTML page --------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/api/matches/abc/",  # <int:match_id> does not match
        "/api/live/%C3%A1/tables/",  # <slug:slug> is ASCII only
        "/api/tournaments/x/entries/1/nothing/",
        "/api/nothing/",
    ],
)
def test_unmatched_api_address_answers_the_json_error_shape(path: str) -> None:
    r = Client().get(path)
    assert r.status_code == 404
    assert error_shape(r)["code"] == "not_found"


def test_unmatched_page_address_still_answers_the_html_page() -> None:
    r = Client().get("/no-such-page/")
    assert r.status_code == 404
    assert r["Content-Type"].startswith("text/html")


# --- ?limit= / ?offset= past bigint was a 500 --------------------------------------------------


def test_huge_limit_is_not_a_server_error() -> None:
    tournament = TournamentFactory()
    TableFactory(tournament=tournament)
    r = APIClient().get(f"/api/tournaments/{tournament.slug}/tables/?limit={HUGE}")
    assert r.status_code == 200, r.content
    assert len(r.json()["results"]) == 1


@pytest.mark.parametrize(
    ("query", "field"),
    [("limit=\u00b2", "limit"), ("offset=\u0663", "offset"), ("limit=" + "9" * 5000, "limit")],
)
def test_a_page_parameter_in_other_digits_or_past_int_is_400_naming_it(
    query: str, field: str
) -> None:
    """``int()`` raises on 5,000 digits (a 500); other scripts' digits are no number here."""
    tournament = TournamentFactory()
    r = APIClient().get(f"/api/tournaments/{tournament.slug}/tables/?{query}")
    assert r.status_code == 400, r.content[:200]
    assert list(r.json()["error"]["fields"]) == [field]


def test_limit_is_capped() -> None:
    players = Player.objects.bulk_create([Player(name=f"P{i}") for i in range(1005)])
    tournament = TournamentFactory()  # entered in a published tournament: public players
    Entry.objects.bulk_create([Entry(tournament=tournament, player=p) for p in players])
    r = APIClient().get("/api/players/?limit=5000")
    assert r.status_code == 200
    assert len(r.json()["results"]) == 1000


# --- paginated lists were documented as bare arrays ----------------------------------------------


def _list_world() -> dict[str, Any]:
    tournament = TournamentFactory()
    director = director_of(tournament)
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    TableFactory(tournament=tournament)
    Entry.objects.filter(tournament=tournament).update(checked_in=True)
    stage = stage_create(
        tournament=tournament,
        actor=director,
        name="Q",
        kind=Stage.Kind.QUALIFYING,
        swiss_rounds=2,
        auto_advance=True,
    )
    stage_seed(stage=stage, actor=director, method="rating")
    return {"t": tournament, "director": director, "match": match, "stage": stage}


LISTS = [
    ("/api/tournaments/", "{}"),
    ("/api/players/", "{}"),
    ("/api/tournaments/{slug}/entries/", "{slug}"),
    ("/api/tournaments/{slug}/tables/", "{slug}"),
    ("/api/tournaments/{slug}/roles/", "{slug}"),
    ("/api/tournaments/{slug}/referee-tokens/", "{slug}"),
    ("/api/tournaments/{slug}/action-log/", "{slug}"),
    ("/api/tournaments/{slug}/matches/", "{slug}"),
    ("/api/matches/{match_id}/hands/", "{match_id}"),
    ("/api/tournaments/{slug}/stages/{stage_id}/entrants/", "{slug}"),
]


@pytest.mark.parametrize(("path", "_"), LISTS, ids=[p for p, _ in LISTS])
def test_paginated_list_conforms_to_its_schema(api_schema: Any, path: str, _: str) -> None:
    world = _list_world()
    api = APIClient()
    api.force_authenticate(world["director"])
    url = path.format(slug=world["t"].slug, match_id=world["match"].pk, stage_id=world["stage"].pk)
    r = api.get(url)
    assert r.status_code == 200, r.content
    assert set(r.json()) == {"count", "next", "previous", "results"}
    conforms(api_schema, path, "GET", r)
    documented = {p.name for p in api_schema[v1_path(path)]["GET"].query}
    assert {"limit", "offset"} <= documented


# --- nullable and blank values documented as never null / not in the enum ------------------------


def _property(raw_schema: dict[str, Any], component: str, name: str) -> dict[str, Any]:
    return dict(raw_schema["components"]["schemas"][component]["properties"][name])


def _enum_values(raw_schema: dict[str, Any], node: Any) -> set[Any]:
    """Every value an ``enum`` reachable from ``node`` (through $ref / allOf / oneOf) allows."""
    if not isinstance(node, dict):
        return set()
    if "$ref" in node:
        return _enum_values(
            raw_schema, raw_schema["components"]["schemas"][node["$ref"].split("/")[-1]]
        )
    values = set(node.get("enum", []))
    for key in ("allOf", "oneOf", "anyOf"):
        for sub in node.get(key, []):
            values |= _enum_values(raw_schema, sub)
    return values


def _record_a_hand() -> Any:
    tournament = TournamentFactory()
    referee = referee_of(tournament)
    match = match_in_progress(tournament, referee=referee)
    api = APIClient()
    api.force_authenticate(referee)
    body = {"number": 1, "poser": 3, "pose_tile": "6-6", "end": "domino", "winner": 1}
    recorded = api.post(f"/api/matches/{match.pk}/hands/", body, format="json")
    assert recorded.status_code == 201, recorded.content
    return recorded.json()


def test_recorded_hand_documents_null_voided_by(raw_schema: dict[str, Any]) -> None:
    """RecordedHand.voided_by is null until the hand is voided; recorded_by once the user is
    deleted (SET_NULL): both were documented as plain integers."""
    assert _record_a_hand()["hand"]["voided_by"] is None
    assert _property(raw_schema, "RecordedHand", "voided_by").get("nullable") is True
    assert _property(raw_schema, "RecordedHand", "recorded_by").get("nullable") is True


def test_match_state_documents_blank_end_reason(raw_schema: dict[str, Any]) -> None:
    """MatchState.end_reason is "" until the match ends; the read-only model ChoiceField drops
    allow_blank, so the documented enum lacked it."""
    assert _record_a_hand()["match"]["end_reason"] == ""
    assert "" in _enum_values(raw_schema, _property(raw_schema, "MatchState", "end_reason"))


def test_match_without_table_conforms(api_schema: Any) -> None:
    """MatchOutput.table_number is null without a table; end_reason is "" until it ends."""
    tournament: Tournament = TournamentFactory()
    match: Match = scheduled_match(tournament, n_players=2)
    r = APIClient().get(f"/api/matches/{match.pk}/")
    assert r.status_code == 200
    assert r.json()["table_number"] is None
    assert r.json()["end_reason"] == ""
    conforms(api_schema, "/api/matches/{match_id}/", "GET", r)
    listed = APIClient().get(f"/api/tournaments/{tournament.slug}/matches/")
    conforms(api_schema, "/api/tournaments/{slug}/matches/", "GET", listed)


# --- integers past PostgreSQL's integer column were a 500 (DataError) ----------------------------


def _director_world() -> dict[str, Any]:
    tournament = TournamentFactory()
    director = director_of(tournament)
    players = Player.objects.bulk_create([Player(name=f"P{i}") for i in range(5)])
    Entry.objects.bulk_create(
        [Entry(tournament=tournament, player=p, checked_in=True) for p in players[1:]]
    )
    stage = stage_create(
        tournament=tournament,
        actor=director,
        name="Q",
        kind=Stage.Kind.QUALIFYING,
        swiss_rounds=2,
        auto_advance=True,
    )
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    match = match_in_progress(tournament)
    return {
        "director": director,
        "slug": tournament.slug,
        "player": players[1].pk,  # entered in the director's tournament: theirs to edit
        "free_player": players[0].pk,
        "entry": Entry.objects.filter(tournament=tournament).first().pk,  # type: ignore[union-attr]
        "match": match.pk,
        "round": rnd.pk,
        "stage": stage.pk,
    }


OVERFLOWS = [
    ("POST", "/api/players/", {"name": "X", "rating": INT_PAST}, "rating"),
    ("PATCH", "/api/players/{player}/", {"rating": -INT_PAST - 1}, "rating"),
    (
        "POST",
        "/api/tournaments/{slug}/entries/",
        {"player": "{free_player}", "seed": INT_PAST},
        "seed",
    ),
    ("PATCH", "/api/tournaments/{slug}/entries/{entry}/", {"seed": INT_PAST}, "seed"),
    ("POST", "/api/tournaments/{slug}/tables/", {"number": INT_PAST}, "number"),
    (
        "POST",
        "/api/matches/{match}/override/",
        {"scores": [INT_PAST, 0, 0, 0], "reason": "x"},
        "scores.0",
    ),
    ("POST", "/api/tournaments/{slug}/rounds/{round}/clock/", {"minutes": INT_PAST}, "minutes"),
    (
        "POST",
        "/api/tournaments/{slug}/stages/",
        {"name": "S", "kind": "qualifying", "swiss_rounds": 2, "round_time_limit": INT_PAST},
        "round_time_limit",
    ),
    (
        "POST",
        "/api/tournaments/{slug}/stages/",
        {"name": "S", "kind": "qualifying", "swiss_rounds": 2, "cut_size": INT_PAST},
        "cut_size",
    ),
    (
        "PATCH",
        "/api/tournaments/{slug}/stages/{stage}/",
        {"round_time_limit": INT_PAST},
        "round_time_limit",
    ),
]


@pytest.mark.parametrize(
    ("method", "path", "body", "field"), OVERFLOWS, ids=[f"{m} {p} {f}" for m, p, _, f in OVERFLOWS]
)
def test_integer_past_the_column_is_a_400_naming_the_field(
    method: str, path: str, body: dict[str, Any], field: str
) -> None:
    world = _director_world()
    api = APIClient()
    api.force_authenticate(world["director"])
    values = {k: v for k, v in world.items() if k != "director"}
    body = {
        k: (int(v.format(**values)) if isinstance(v, str) and "{" in v else v)
        for k, v in body.items()
    }
    r = api.generic(
        method, path.format(**values), json.dumps(body), content_type="application/json"
    )
    assert r.status_code == 400, r.content
    error = error_shape(r)
    assert field in error["fields"], error  # e.g. "scores.0": the first list item
    # A stage's cut and a round clock have product limits below the column's (one rule for
    # the page, the API and the services: brackets.models).
    limits = {"cut_size": "10000", "round_time_limit": "600", "minutes": "600"}
    message = error["fields"][field][0]
    if field in limits:
        assert limits[field] in message
    else:
        assert "2147483647" in message or "-2147483648" in message


@pytest.mark.django_db
def test_withdraw_and_disqualify_accept_post_only() -> None:
    from rest_framework.test import APIClient

    from tests.factories import EntryFactory, TournamentFactory, director_of

    tournament = TournamentFactory()
    entry = EntryFactory(tournament=tournament)
    api = APIClient()
    api.force_authenticate(director_of(tournament))
    for action in ("withdraw", "disqualify"):
        url = f"/api/tournaments/{tournament.slug}/entries/{entry.pk}/{action}/"
        assert api.get(url).status_code == 405
        assert api.patch(url, {"seed": 3}, format="json").status_code == 405
    entry.refresh_from_db()
    assert entry.seed != 3


# --- the public saw recorded_by: null and nothing of who recorded a hand (issue 12, 20) ---------


def test_the_hand_list_says_which_role_recorded_and_voided_each_hand_and_names_no_one(
    api_schema: Any, django_assert_max_num_queries: Any
) -> None:
    from scoring.services import hand_record, hand_void_last
    from tests.factories import UserFactory

    tournament = TournamentFactory()
    referee = referee_of(tournament)
    director = director_of(tournament)
    staff = UserFactory(is_staff=True, is_superuser=True)  # directs every tournament, no row
    match = match_in_progress(tournament, referee=referee)
    hand = {"poser": 2, "pose_tile": "6-6", "end": "domino", "winner": 0}
    hand_record(match_id=match.pk, actor=referee, expected_number=1, payload=hand)
    hand_void_last(match_id=match.pk, actor=director, reason="slip")
    hand_record(match_id=match.pk, actor=director, expected_number=1, payload=hand)
    hand_record(
        match_id=match.pk,
        actor=staff,
        expected_number=2,
        payload={"poser": 0, "pose_tile": "5-4", "end": "domino", "winner": 0},
    )
    url = f"/api/matches/{match.pk}/hands/"
    with django_assert_max_num_queries(8):  # not one query per hand
        r = Client().get(url)
    assert r.status_code == 200, r.content
    conforms(api_schema, "/api/matches/{match_id}/hands/", "GET", r)
    rows = sorted(r.json()["results"], key=lambda h: (h["number"], not h["void"]))
    seen = [(h["number"], h["void"], h["recorded_by_role"], h["voided_by_role"]) for h in rows]
    assert seen == [
        (1, True, "referee", "director"),
        (1, False, "director", None),
        (2, False, "director", None),  # a superuser directs every tournament
    ]
    # no user id in the public payload (the roles name no one)
    assert {h["recorded_by"] for h in rows} == {None}
    assert {h["voided_by"] for h in rows} == {None}
    for user in (referee, director, staff):
        assert f'"{user.username}"' not in r.content.decode()
    # a signed-in director still gets the ids, and the same labels
    api = APIClient()
    api.force_authenticate(director)
    signed_in = api.get(url).json()["results"]
    assert {h["recorded_by"] for h in signed_in} == {referee.pk, director.pk, staff.pk}
    assert sorted(h["recorded_by_role"] for h in signed_in) == sorted(
        h["recorded_by_role"] for h in rows
    )
