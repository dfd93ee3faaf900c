"""No 500 on any input (issue 12, item 5; the findings of its "Why" item 6, one test each).

Each of these answered 500 before core.request_limits, the action log's JSON encoding and the
CSV reader's NUL check: a 4xx in the API error shape naming the field, and nothing stored.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.services import hand_record
from tests.factories import (
    TournamentFactory,
    director_of,
    match_in_progress,
    referee_of,
    scheduled_match,
)
from tournament.models import ActionLog, Entry, Player, Tournament

pytestmark = pytest.mark.django_db


def error(response: Any) -> dict[str, Any]:
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"}, body
    assert {"code", "message", "fields"} <= set(body["error"]), body
    return dict(body["error"])


@pytest.fixture
def director_api() -> tuple[APIClient, Tournament]:
    tournament = TournamentFactory()
    api = APIClient()
    api.force_authenticate(director_of(tournament))
    return api, tournament


# --- query strings and paths -------------------------------------------------------------------


def test_player_search_with_nul_is_400_naming_search() -> None:
    response = Client().get("/api/players/?search=%00")
    assert response.status_code == 400
    assert "search" in error(response)["fields"]


def test_match_list_status_with_nul_is_400_naming_status() -> None:
    tournament = TournamentFactory()
    scheduled_match(tournament, n_players=3)
    response = Client().get(f"/api/tournaments/{tournament.slug}/matches/?status=%00")
    assert response.status_code == 400
    assert "status" in error(response)["fields"]


def test_nul_in_a_query_name_is_400() -> None:
    response = Client().get("/api/players/?se%00arch=x")
    assert response.status_code == 400
    assert list(error(response)["fields"]) == ["se\\u0000arch"]


def test_nul_in_the_path_is_400() -> None:
    response = Client().get("/api/players/%00/")
    assert response.status_code == 400
    assert "path" in error(response)["fields"]
    page = Client().get("/live/%00/")
    assert page.status_code == 400
    assert page["Content-Type"].startswith("text/plain")


def test_nul_in_the_session_cookie_is_400_not_a_database_error() -> None:
    """The session cookie is looked up in the database: on PostgreSQL a NUL in it was a
    ``DataError`` (a 500) on every page, before any view ran."""
    cookie = {"HTTP_COOKIE": "sessionid=abcdefgh\x00ijklmnop"}
    response = Client().get("/api/me/", **cookie)
    assert response.status_code == 400
    assert list(error(response)["fields"]) == ["cookie sessionid"]
    for path in ("/", "/director/", "/ref/"):
        page = Client().get(path, **cookie)
        assert page.status_code == 400, path
        assert page["Content-Type"].startswith("text/plain")


def test_broken_utf8_in_the_query_is_not_a_500() -> None:
    # %ED%A0%80 is a UTF-16 surrogate encoded as UTF-8: Django decodes it with replacement.
    response = Client().get("/api/players/?search=%ED%A0%80")
    assert response.status_code == 200


# --- JSON bodies -------------------------------------------------------------------------------


def test_json_nested_100000_deep_is_400_not_recursion_error(
    director_api: tuple[APIClient, Tournament],
) -> None:
    api, tournament = director_api
    body = "[" * 100_000 + "]" * 100_000
    response = api.patch(
        f"/api/tournaments/{tournament.slug}/", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert error(response)["code"] == "parse_error"


def test_json_nested_past_the_limit_is_400_naming_the_field(
    director_api: tuple[APIClient, Tournament], settings: Any
) -> None:
    api, tournament = director_api
    deep: Any = 1
    for _ in range(settings.API_JSON_MAX_DEPTH + 1):
        deep = {"x": deep}
    response = api.patch(
        f"/api/tournaments/{tournament.slug}/", {"ruleset_overrides": deep}, format="json"
    )
    assert response.status_code == 400
    fields = error(response)["fields"]
    assert any(name.startswith("ruleset_overrides") for name in fields), fields


def test_ruleset_overrides_with_a_lone_surrogate_key_is_400(
    director_api: tuple[APIClient, Tournament],
) -> None:
    api, tournament = director_api
    before = tournament.ruleset_overrides
    body = '{"ruleset_overrides": {"\\ud800": 1}}'
    response = api.patch(
        f"/api/tournaments/{tournament.slug}/", body, content_type="application/json"
    )
    assert response.status_code == 400
    assert list(error(response)["fields"]) == ["ruleset_overrides.\\ud800"]
    tournament.refresh_from_db()
    assert tournament.ruleset_overrides == before


@pytest.mark.parametrize("value", ["\\u0000", "a\\udfffb"])
def test_nul_or_surrogate_in_a_json_string_is_400(
    director_api: tuple[APIClient, Tournament], value: str
) -> None:
    api, _ = director_api
    response = api.post("/api/players/", f'{{"name": "{value}"}}', content_type="application/json")
    assert response.status_code == 400, response.content
    assert "name" in error(response)["fields"]
    assert not Player.objects.exists()


@pytest.mark.parametrize("digits", ["9" * 5000, "-" + "9" * 5000, "9" * 101])
def test_an_integer_with_thousands_of_digits_is_400_naming_the_field(
    director_api: tuple[APIClient, Tournament], digits: str
) -> None:
    """Bug: a 5,000-digit integer in a JSON body answered a parse error telling the client to
    call ``sys.set_int_max_str_digits()``. Now 400 naming the field, in plain words."""
    api, _ = director_api
    body = f'{{"name": "Ana", "rating": {digits}}}'
    response = api.post("/api/players/", body, content_type="application/json")
    assert response.status_code == 400, response.content
    body_error = error(response)
    assert body_error["fields"] == {"rating": ["A number has too many digits (at most 100)."]}
    assert "sys." not in response.content.decode()
    assert not Player.objects.exists()
    nested = api.post(
        "/api/players/", f'{{"name": "Ana", "x": [1, {digits}]}}', content_type="application/json"
    )
    assert nested.status_code == 400
    assert list(error(nested)["fields"]) == ["x[1]"]


def test_tournament_patch_with_starts_on_logs_the_date(
    director_api: tuple[APIClient, Tournament],
) -> None:
    api, tournament = director_api
    # A ruleset change is logged with every changed field (the date made the log 500).
    body = {"starts_on": "2027-03-04", "ruleset_overrides": {}}
    response = api.patch(f"/api/tournaments/{tournament.slug}/", body, format="json")
    assert response.status_code == 200, response.content
    log = ActionLog.objects.filter(tournament=tournament).latest("id")
    assert "2027-03-04" in json.dumps(log.data)


# --- body size ---------------------------------------------------------------------------------


def test_oversized_body_is_413_before_parsing(
    director_api: tuple[APIClient, Tournament], settings: Any
) -> None:
    api, tournament = director_api
    settings.REQUEST_BODY_MAX_BYTES = 1000
    body = json.dumps({"name": "x" * 2000})
    response = api.patch(
        f"/api/tournaments/{tournament.slug}/", body, content_type="application/json"
    )
    assert response.status_code == 413
    assert error(response)["code"] == "too_large"
    tournament.refresh_from_db()
    assert tournament.name != "x" * 2000


def test_oversized_page_post_is_413() -> None:
    response = Client().post(
        reverse("login"), "x" * 3_000_000, content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 413


@pytest.mark.parametrize(
    ("language", "words"),
    [
        ("en", ["larger than 2.5 MB", "Nothing was saved", "at most 2 MB"]),
        ("es", ["mayor que 2.5 MB", "No se guardó nada", "como máximo 2 MB"]),
    ],
)
def test_a_too_big_upload_on_a_page_gets_a_page_saying_the_limit(
    language: str, words: list[str]
) -> None:
    """Walkthrough: a 2.7 MB CSV on the import page got a bare 413 in plain text ("The request
    body is larger than 2621440 bytes."). A page (not the API) now gets an HTML page in the
    visitor's language naming the limits and what to do; nothing was read or saved."""
    tournament = TournamentFactory()
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(director_of(tournament))
    big = SimpleUploadedFile("p.csv", b"name\n" + b"x" * 2_700_000, content_type="text/csv")
    response = client.post(reverse("brackets:import", args=[tournament.slug]), {"file": big})
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    for text in words:
        assert text in page
    assert not Entry.objects.filter(tournament=tournament).exists()


# --- CSV upload --------------------------------------------------------------------------------


def test_players_csv_with_nul_is_reported_not_500() -> None:
    tournament = TournamentFactory()
    client = Client()
    client.force_login(director_of(tournament))
    data = b"name,club\nAna\x00,Club A\nBo,Club B\n"
    response = client.post(
        reverse("brackets:import", args=[tournament.slug]),
        {"file": SimpleUploadedFile("p.csv", data, content_type="text/csv"), "import_valid": "on"},
    )
    assert response.status_code == 400
    assert b"NUL byte" in response.content
    assert not Player.objects.exists()


# --- public payloads (issue 12, item 6) ----------------------------------------------------------


def test_hands_list_shows_no_user_id_to_anonymous_callers() -> None:
    tournament = TournamentFactory()
    referee = referee_of(tournament)
    sim = simulate_match(Ruleset.from_json(tournament.ruleset), 4, 3)
    match = match_in_progress(tournament, referee=referee, lot_winner=sim.lot_winner)
    payload = sim.records[0].to_dict()
    hand_record(match_id=match.pk, actor=referee, expected_number=1, payload=payload)
    url = f"/api/matches/{match.pk}/hands/"
    public = Client().get(url).json()["results"][0]
    assert public["recorded_by"] is None
    assert public["voided_by"] is None
    signed_in = APIClient()
    signed_in.force_authenticate(referee)
    assert signed_in.get(url).json()["results"][0]["recorded_by"] == referee.pk
