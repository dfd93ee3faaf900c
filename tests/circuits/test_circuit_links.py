"""Spectators find circuits and tell their players apart (QA walkthrough of the demo).

* The circuit standings listed two "Pedro Castillo" with nothing to tell them apart: each row
  now shows the player's club and country (as a tournament's standings and the players
  directory do) and links that player's own profile.
* Nothing linked /circuits/: the home page and the live index link it, a member tournament's
  public pages say "Part of <circuit>", and a player's profile lists the circuits they have a
  result in, with their rank and points.

Also run on the embedded default (Makefile EMBEDDED_TESTS: tests/circuits).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from tests.factories import CircuitFactory, PlayerFactory, TournamentFactory, placed_tournament
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def namesakes() -> dict[str, Any]:
    circuit = CircuitFactory(name="Caribbean Tour", slug="caribbean-tour", season="2026")
    pedro_do = PlayerFactory(name="Pedro Castillo", club="Club Los Mina", country="DO")
    pedro_pr = PlayerFactory(name="Pedro Castillo", club="Doble Seis", country="PR")
    ana = PlayerFactory(name="Ana Rivera", club="", country="")
    event = placed_tournament(
        [(pedro_do, 1, 1), (ana, 2, 1), (pedro_pr, 3, 1)], circuit, name="Spring", slug="spring"
    )
    return {"circuit": circuit, "do": pedro_do, "pr": pedro_pr, "ana": ana, "event": event}


def _row(html: str, player_id: int) -> str:
    match = re.search(rf'<tr data-player="{player_id}">(.*?)</tr>', html, re.S)
    assert match, f"no row for player {player_id}"
    return match.group(1)


def test_circuit_standings_tell_namesakes_apart(client: Client, namesakes: dict[str, Any]) -> None:
    html = client.get("/circuits/caribbean-tour/").content.decode()
    do_row, pr_row = _row(html, namesakes["do"].pk), _row(html, namesakes["pr"].pk)
    assert "Club Los Mina" in do_row
    assert "DO" in do_row
    assert "Doble Seis" in pr_row
    assert "PR" in pr_row
    assert f'href="/players/{namesakes["do"].pk}/"' in do_row
    assert f'href="/players/{namesakes["pr"].pk}/"' in pr_row
    assert "—" in _row(html, namesakes["ana"].pk)  # no club, no country: a dash, not a gap
    # The header names the columns; the table scrolls in a labelled, focusable region.
    assert re.search(r"<th[^>]*>Club</th>.*<th[^>]*>Country</th>", html, re.S)
    assert re.search(
        r'<div class="table-scroll" role="region" aria-labelledby="[^"]+" tabindex="0">\s*'
        r'<table class="circuit-standings">',
        html,
    )


def test_the_home_page_and_the_live_index_link_the_circuits(client: Client) -> None:
    for path in ("/", "/live/"):
        assert 'href="/circuits/"' in client.get(path).content.decode(), path


def test_a_member_tournament_says_which_circuit_it_is_part_of(
    client: Client, namesakes: dict[str, Any]
) -> None:
    CircuitFactory(public=False, name="Secret series", slug="secret").members.create(
        tournament=namesakes["event"]
    )
    for page in ("", "standings/", "bracket/"):
        html = client.get(f"/live/spring/{page}").content.decode()
        assert re.search(
            r'class="part-of">Part of <a href="/circuits/caribbean-tour/">Caribbean Tour 2026</a>',
            html,
        ), page
        assert "Secret series" not in html  # a private circuit is not linked
    other = TournamentFactory(status=Tournament.Status.RUNNING, slug="not-in-a-circuit")
    assert "part-of" not in client.get(f"/live/{other.slug}/").content.decode()


def test_a_profile_lists_the_circuits_with_rank_and_points(
    client: Client, namesakes: dict[str, Any]
) -> None:
    html = client.get(f"/players/{namesakes['pr'].pk}/").content.decode()
    # 3rd place: 65 points of the factory's table; rank 3 of the circuit.
    assert re.search(
        r'<a href="/circuits/caribbean-tour/">Caribbean Tour 2026: rank 3, 65 points</a>', html
    )
    loner = PlayerFactory(name="Nobody Circuit")
    placed_tournament([(loner, 1, 1)], name="Outside")  # a tournament of no circuit
    assert "/circuits/" not in client.get(f"/players/{loner.pk}/").content.decode()


def test_joining_or_leaving_a_circuit_renews_the_tournaments_pages(
    client: Client, django_capture_on_commit_callbacks: Any
) -> None:
    # The "Part of" line is cached per tournament version, and the pages answer 304 on an
    # unchanged version: a change of membership must give the tournament a new version.
    t = TournamentFactory(status=Tournament.Status.RUNNING, slug="joins-later")
    first = client.get("/live/joins-later/")
    assert "part-of" not in first.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        member = CircuitFactory(name="Late Tour", slug="late-tour").members.create(tournament=t)
    fresh = {"HTTP_X_LIVE_VERSION": "999999"}  # no reuse of a recent version lookup
    again = client.get("/live/joins-later/", HTTP_IF_NONE_MATCH=first["ETag"], **fresh)
    assert again.status_code == 200
    assert 'href="/circuits/late-tour/"' in again.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        member.delete()
    left = client.get("/live/joins-later/", HTTP_IF_NONE_MATCH=again["ETag"], **fresh)
    assert left.status_code == 200
    assert "late-tour" not in left.content.decode()


def test_the_standings_api_names_each_players_club_and_country(
    client: Client, namesakes: dict[str, Any]
) -> None:
    """The API's rows hold what the page shows (the page reads them from the same cached
    document); an edit of a player through the service gives the circuit a new version, so
    a new ETag and the new club, never the cached document of the old one."""
    from tests.factories import staff_with
    from tournament.services import player_update

    url = "/api/circuits/caribbean-tour/standings/"
    first = client.get(url)
    rows = {row["player_id"]: row for row in first.json()["standings"]}
    assert (rows[namesakes["do"].pk]["club"], rows[namesakes["do"].pk]["country"]) == (
        "Club Los Mina",
        "DO",
    )
    assert (rows[namesakes["pr"].pk]["club"], rows[namesakes["pr"].pk]["country"]) == (
        "Doble Seis",
        "PR",
    )
    assert (rows[namesakes["ana"].pk]["club"], rows[namesakes["ana"].pk]["country"]) == ("", "")
    player_update(
        player=namesakes["ana"],
        actor=staff_with("tournament.change_player"),
        data={"club": "Capicúa", "country": "do"},
    )
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200
    assert again["ETag"] != first["ETag"]
    ana = next(r for r in again.json()["standings"] if r["player_id"] == namesakes["ana"].pk)
    assert (ana["club"], ana["country"]) == ("Capicúa", "DO")
    html = client.get("/circuits/caribbean-tour/").content.decode()
    assert "Capicúa" in _row(html, namesakes["ana"].pk)
