"""One rule for a player's fields and for names, whichever path writes them.

Bug: the JSON API took a player the Players page and the CSV import refuse (country "ZZ" or
"-5", rating -5 or 99999: 201/200). Now ``player_create`` / ``player_update`` check every
value (``tournament.player_fields``) and the API answers 400 naming the field in the page's
words.

Bug: names of zero-width spaces only (U+200B) were accepted (tournament, player, referee
display name), so pages showed blank names; a right-to-left override (U+202E) in a nickname
reordered the text around it. Now nothing visible counts as empty ("Required." for a name)
and text-direction controls are refused (``core.visible_text``), on every path.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from brackets.csv_import import check_player, parse_players_csv
from core.exceptions import ApplicationError
from core.visible_text import has_visible, name_problem
from tests.factories import (
    PlayerFactory,
    TournamentFactory,
    director_of,
    tournament_creator,
)
from tournament.models import Player, Tournament
from tournament.services import (
    player_create,
    player_update,
    referee_create,
    table_create,
    tournament_create,
    tournament_update,
)

ZWSP = "\u200b"
RLO = "\u202e"


def test_visible_means_a_character_a_reader_sees() -> None:
    assert has_visible("Ana")
    assert not has_visible(ZWSP * 3)
    assert not has_visible(f" {ZWSP}\u2060\u00a0 ")
    assert name_problem(ZWSP, required=True) == "Required."
    assert name_problem(ZWSP) is None
    for control in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069":
        assert name_problem(f"Ana{control}x") is not None, hex(ord(control))
    assert name_problem("José Ñáñez") is None


@pytest.mark.django_db
class TestPlayerApi:
    @pytest.fixture
    def api(self) -> APIClient:
        client = APIClient()
        client.force_authenticate(director_of(TournamentFactory()))
        return client

    @pytest.mark.parametrize(
        ("field", "value", "words"),
        [
            ("country", "ZZ", "Country: 'ZZ' is not an ISO 3166-1 alpha-2 country code"),
            ("country", "-5", "Country: '-5' is not an ISO 3166-1 alpha-2 country code"),
            ("rating", -5, "Rating: '-5' is not a whole number from 0 to 9999."),
            ("rating", -1, "Rating: '-1' is not a whole number from 0 to 9999."),
            ("rating", 99999, "Rating: At most 9999 (99999)."),
            ("name", ZWSP * 3, "Name: Required."),
            ("nickname", f"El {RLO}oguJ", "Nickname: No text-direction control characters"),
        ],
    )
    def test_create_refuses_what_the_page_refuses(
        self, api: APIClient, field: str, value: Any, words: str
    ) -> None:
        body = {"name": "Ana Rivera", field: value}
        r = api.post("/api/v1/players/", body, format="json")
        assert r.status_code == 400, r.content
        error = r.json()["error"]
        assert list(error["fields"]) == [field]
        assert error["fields"][field][0].startswith(words), error
        assert not Player.objects.filter(name="Ana Rivera").exists()

    @pytest.mark.parametrize(
        ("field", "value"), [("country", "ZZ"), ("rating", -5), ("rating", 99999)]
    )
    def test_update_refuses_what_the_page_refuses(
        self, api: APIClient, field: str, value: Any
    ) -> None:
        player = PlayerFactory(country="PR", rating=1500)
        r = api.patch(f"/api/v1/players/{player.pk}/", {field: value}, format="json")
        assert r.status_code == 400, r.content
        assert list(r.json()["error"]["fields"]) == [field]
        stored = Player.objects.get(pk=player.pk)
        assert stored.country == "PR"
        assert stored.rating == 1500

    def test_good_values_still_pass_and_are_stored_clean(self, api: APIClient) -> None:
        r = api.post(
            "/api/v1/players/",
            {"name": "Ana", "country": "do", "rating": 9999, "nickname": ZWSP},
            format="json",
        )
        assert r.status_code == 201, r.content
        assert (r.json()["country"], r.json()["rating"], r.json()["nickname"]) == ("DO", 9999, "")


@pytest.mark.django_db
def test_every_service_path_refuses_a_bad_player() -> None:
    director = director_of(TournamentFactory())
    with pytest.raises(ApplicationError) as exc:
        player_create(actor=director, name="Ana", country="zz", rating=10000)
    assert set(exc.value.fields) == {"country", "rating"}
    player = player_create(actor=director, name="Ana", country="pr")
    with pytest.raises(ApplicationError) as exc:
        player_update(player=player, actor=director, data={"name": f"{ZWSP} "})
    assert exc.value.fields == {"name": ["Name: Required."]}


def test_the_csv_and_the_form_refuse_invisible_names_and_direction_controls() -> None:
    row, errors = check_player({"name": ZWSP * 2})
    assert row is None
    assert [(e.field, e.reason) for e in errors] == [("name", "Required.")]
    row, errors = check_player({"name": "Ana", "nickname": f"x{RLO}y"})
    assert row is None
    assert [e.field for e in errors] == ["nickname"]
    report = parse_players_csv(f"name,club\n{ZWSP},A\nAna,B{RLO}\n")
    assert [(e.row, e.field) for e in report.errors] == [(2, "name"), (3, "club")]


@pytest.mark.django_db
def test_tournament_referee_and_table_names_need_something_visible() -> None:
    director = tournament_creator()
    with pytest.raises(ApplicationError) as exc:
        tournament_create(actor=director, name=ZWSP * 4, slug="zw-cup")
    assert exc.value.fields == {"name": ["Name: Required."]}
    assert not Tournament.objects.filter(slug="zw-cup").exists()
    tournament = tournament_create(actor=director, name="Cup", slug="cup")
    with pytest.raises(ApplicationError) as exc:
        tournament_update(tournament=tournament, actor=director, data={"name": f"A{RLO}B"})
    assert list(exc.value.fields) == ["name"]
    with pytest.raises(ApplicationError) as exc:
        referee_create(
            tournament=tournament, actor=director, username="ana", display_name=f"{RLO}ana"
        )
    assert list(exc.value.fields) == ["display_name"]
    role = referee_create(
        tournament=tournament, actor=director, username="ana", display_name=ZWSP * 2
    )
    assert role.user.first_name == ""  # nothing visible is no display name
    with pytest.raises(ApplicationError) as exc:
        table_create(tournament=tournament, actor=director, number=1, label=f"{RLO}1")
    assert list(exc.value.fields) == ["label"]
