"""Imports say which new players share a known player's name (walkthrough of a pairs event).

A form asks "is this the same person?" before it adds a namesake (brackets.services.
registration); an import cannot ask row by row, so before it created "Pedro Castillo" of
another club, or a "Fiona Walsh" where two known players have that name and no club tells them
apart, as new people without a word. It still does (a file is all or nothing), and now says
which: the import page and the Partnerships page warn, naming them, and the action log keeps
the list.
"""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from brackets.csv_import import PlayerRow
from brackets.services.imports import players_import_csv
from tests.brackets.factories_pages import director_client
from tests.brackets.pairs_helpers import make_pairs_tournament
from tests.factories import PlayerFactory, TournamentFactory, director_of
from tournament.models import ActionLog, Partnership, Player

pytestmark = pytest.mark.django_db


def _known() -> None:
    PlayerFactory(name="Pedro Castillo", club="Tijuana")
    PlayerFactory(name="Fiona Walsh", club="")
    PlayerFactory(name="Fiona Walsh", club="")
    PlayerFactory(name="Ana Rivera", club="Club A")


def test_the_service_lists_new_players_with_a_known_name() -> None:
    _known()
    tournament = TournamentFactory()
    rows = [
        PlayerRow(2, "pedro castillo", club="Fichas"),  # another club: a new person
        PlayerRow(3, "Fiona Walsh"),  # two known, no club tells them apart: a new person
        PlayerRow(4, "Ana Rivera", club="club a"),  # exactly one known: entered again
        PlayerRow(5, "Zoe Nuevo"),  # nobody of that name: new, nothing to check
    ]
    result = players_import_csv(tournament=tournament, actor=director_of(tournament), rows=rows)
    assert (result.created, result.reused) == (3, 1)
    assert result.namesakes == ("pedro castillo", "Fiona Walsh")
    assert ActionLog.objects.get(verb="players.import").data["namesakes"] == [
        "pedro castillo",
        "Fiona Walsh",
    ]
    assert Player.objects.filter(name__iexact="Pedro Castillo").count() == 2


def test_an_import_of_new_names_only_warns_of_nothing() -> None:
    tournament = TournamentFactory()
    rows = [PlayerRow(2, "Uno"), PlayerRow(3, "Dos")]
    result = players_import_csv(tournament=tournament, actor=director_of(tournament), rows=rows)
    assert result.namesakes == ()


def _messages(client: Client, url: str) -> str:
    return client.get(url).content.decode()


def test_the_import_page_warns_naming_them() -> None:
    _known()
    tournament = TournamentFactory()
    client = director_client(director_of(tournament))
    url = reverse("brackets:import", args=[tournament.slug])
    csv = "name,club\nPedro Castillo,Fichas\nZoe Nuevo,\n"
    upload = SimpleUploadedFile("players.csv", csv.encode(), content_type="text/csv")
    response = client.post(url, {"file": upload})
    assert response.status_code == 302
    page = _messages(client, response["Location"])
    assert "1 new player has the name of a known player: Pedro Castillo." in page
    assert "Possible duplicate players" in page
    assert "Zoe Nuevo." not in page


def test_the_partnerships_page_warns_naming_them() -> None:
    _known()
    t, director, _ = make_pairs_tournament(0, status="registration")
    client = Client()
    client.force_login(director)
    url = f"/director/tournaments/{t.slug}/pairs/"
    csv = "name,club,pair\nFiona Walsh,,Primos\nBeto Cruz,X,Primos\nPedro Castillo,Y,T\nDani,Y,T\n"
    response = client.post(url, {"action": "import", "csv_text": csv})
    assert response.status_code == 302
    assert Partnership.objects.filter(tournament=t).count() == 2
    page = _messages(client, response["Location"])
    assert "2 new players have the names of known players: Fiona Walsh, Pedro Castillo." in page
