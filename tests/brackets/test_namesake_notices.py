"""A new player who shares a known player's name but not their club or country is not asked
about (the club tells them apart), but the director is told, as after an import; and the staff
page those warnings point to lists such players (walkthrough: the Players page said only
"Nathan Green added." and the duplicates page did not list him)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.brackets.factories_pages import director_client
from tests.factories import PlayerFactory, TournamentFactory, director_of, staff_with
from tournament.models import Player

pytestmark = pytest.mark.django_db


def _messages(client: Client, response: object) -> list[str]:
    page = client.get(response["Location"])  # type: ignore[index]
    return [str(m) for m in page.context["messages"]]


def test_a_new_namesake_from_another_club_is_added_with_the_imports_warning() -> None:
    PlayerFactory(name="Nathan Green", club="Brooklyn Tiles", country="US")
    tournament = TournamentFactory()
    client = director_client(director_of(tournament))
    response = client.post(
        reverse("brackets:player-add", args=[tournament.slug]),
        {"name": "Nathan Green", "club": "Brooklyn Tile", "country": "US"},
    )
    assert response.status_code == 302
    assert Player.objects.filter(name="Nathan Green").count() == 2
    said = _messages(client, response)
    assert said[0] == "Nathan Green added."
    assert said[1].startswith("1 new player has the name of a known player: Nathan Green.")
    assert "Possible duplicate players" in said[1]


def test_no_warning_for_a_name_nobody_else_has() -> None:
    PlayerFactory(name="Nathan Greene", club="Brooklyn Tiles")
    tournament = TournamentFactory()
    client = director_client(director_of(tournament))
    response = client.post(
        reverse("brackets:player-add", args=[tournament.slug]), {"name": "Nathan Green"}
    )
    assert _messages(client, response) == ["Nathan Green added."]


def test_no_second_warning_after_the_director_said_a_different_person() -> None:
    """Same name, no club to tell them apart: the form asks; answered "a different person",
    the page does not warn again."""
    known = PlayerFactory(name="Ana Ruiz", club="Club A", country="PR")
    tournament = TournamentFactory()
    client = director_client(director_of(tournament))
    url = reverse("brackets:player-add", args=[tournament.slug])
    asked = client.post(url, {"name": "Ana Ruiz"})
    assert asked.status_code == 200
    assert "already known" in asked.content.decode()
    response = client.post(url, {"name": "Ana Ruiz", "add_anyway": "on", "warned": str(known.pk)})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert _messages(client, response) == ["Ana Ruiz added."]


def test_the_duplicates_page_lists_namesakes_of_another_club_apart(client: Client) -> None:
    a = PlayerFactory(name="Pedro Castillo", club="Club Nuevo", country="MX")
    b = PlayerFactory(name="pedro castillo", club="Ciudad de México Mulas", country="MX")
    likely = [
        PlayerFactory(name="Ana Ruiz", club="Club A", country="PR"),
        PlayerFactory(name="ana ruiz", club="club a", country="PR"),
    ]
    PlayerFactory(name="Solo Player")
    # Staff who may list and merge players (the admin's permissions on players).
    client.force_login(
        staff_with("tournament.view_player", "tournament.change_player", "tournament.delete_player")
    )
    page = client.get("/players/duplicates/")
    assert [[p.pk for p in g.players] for g in page.context["groups"]] == [[p.pk for p in likely]]
    assert [[p.pk for p in g.players] for g in page.context["namesakes"]] == [[a.pk, b.pk]]
    text = page.content.decode()
    assert text.index("Likely the same person") < text.index("ana ruiz")
    assert text.index("Same name, another club or country") < text.index("pedro castillo")
    assert "Solo Player" not in text
    # Staff may merge them from there, like any listed pair.
    client.post("/players/duplicates/", {"keep": a.pk, "other": b.pk, "reason": "same man"})
    assert not Player.objects.filter(pk=b.pk).exists()
