"""The public players directory (``/players/``): every player of a published tournament, by
the system rating (unrated after the rated) or by name, searchable, 50 a page; a draft's
entries stay private. And the profile names the rating entered at registration (T8). Runs
embedded (SQLite) too."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from ratings.model import display_rating
from ratings.models import PlayerRating
from tests.factories import PlayerFactory, TournamentFactory
from tournament.models import Entry, Player

pytestmark = pytest.mark.django_db


def _enter(t: object, **player: object) -> Player:
    p = PlayerFactory(**player)
    Entry.objects.create(tournament=t, player=p)
    return p


def _rated(p: Player, mu: float, sigma: float, matches: int = 3) -> int:
    PlayerRating.objects.update_or_create(
        player=p, defaults={"mu": mu, "sigma": sigma, "matches": matches}
    )
    return display_rating(mu, sigma)


def _names(html: str) -> list[str]:
    # the name, then the nickname muted in quotes (tournament.player_names)
    link = r'<td class="person"><a href="/players/\d+/">([^<]+?)'
    link += r'(?: <span class="nickname[^<]*</span>)?</a>'
    return re.findall(link, html)


def test_players_by_rating_then_the_unrated_and_drafts_stay_private(client: Client) -> None:
    public = TournamentFactory(status="running")
    draft = TournamentFactory(status="draft")
    low = _enter(public, name="Low Rated")
    high = _enter(public, name="High Rated")
    _enter(public, name="Zed Unrated")
    _enter(public, name="Abe Unrated", rating=1900)  # entered rating: not a system rating
    _enter(draft, name="Draft Only")
    shown_high = _rated(high, 30.0, 2.0)
    _rated(low, 25.0, 3.0)
    r = client.get("/players/")
    assert r.status_code == 200
    html = r.content.decode()
    assert _names(html) == ["High Rated", "Low Rated", "Abe Unrated", "Zed Unrated"]
    assert "Draft Only" not in html
    assert f'<td class="num">{shown_high}</td>' in html
    assert html.count('<span class="muted">not rated yet</span>') == 2
    by_name = _names(client.get("/players/?order=name").content.decode())
    assert by_name == ["Abe Unrated", "High Rated", "Low Rated", "Zed Unrated"]
    # A bad order falls back to the rating list, never a 500.
    assert _names(client.get("/players/?order=;drop").content.decode())[0] == "High Rated"


def test_search_by_name_nickname_or_club(client: Client) -> None:
    t = TournamentFactory(status="finished")
    _enter(t, name="Ana Rivera", club="Bayamón")
    _enter(t, name="José Pérez", nickname="El Zorro", club="Santo Domingo")
    _enter(t, name="Bea Cruz", club="Club Bayamón Norte")
    assert _names(client.get("/players/?q=bayam&order=name").content.decode()) == [
        "Ana Rivera",
        "Bea Cruz",
    ]
    assert _names(client.get("/players/?q=zorro").content.decode()) == ["José Pérez"]
    # Accents are optional both ways (phones rarely type them): "perez" finds "Pérez".
    assert _names(client.get("/players/?q=jose%20perez").content.decode()) == ["José Pérez"]
    _enter(t, name="Luis Pena", club="Caguas")
    assert _names(client.get("/players/?q=PEÑA").content.decode()) == ["Luis Pena"]
    # Regular-expression characters are searched as typed.
    assert "No player matches" in client.get("/players/?q=a.b(").content.decode()
    none = client.get("/players/?q=nobody").content.decode()
    assert "No player matches “nobody”." in none


def test_fifty_a_page(client: Client) -> None:
    t = TournamentFactory(status="running")
    Player.objects.bulk_create([Player(name=f"P{i:03d}") for i in range(55)])
    Entry.objects.bulk_create([Entry(tournament=t, player=p) for p in Player.objects.all()])
    first = client.get("/players/?order=name").content.decode()
    assert len(_names(first)) == 50
    assert "Page 1 of 2" in first
    second = client.get("/players/?order=name&page=2").content.decode()
    assert _names(second) == [f"P{i:03d}" for i in range(50, 55)]
    assert client.get("/players/?page=999").status_code == 200  # the last page


def test_the_home_page_links_the_directory_and_the_profile_names_the_entered_rating(
    client: Client,
) -> None:
    assert 'href="/players/"' in client.get("/").content.decode()
    t = TournamentFactory(status="running")
    p = _enter(t, name="Fiona Entered", rating=1545)
    page = client.get(f"/players/{p.pk}/").content.decode()
    assert "Rating entered at registration" in page
    assert "used for seeding until the first rated match, T8" in page
    _rated(p, 25.0, 8.0)
    page = client.get(f"/players/{p.pk}/").content.decode()
    assert "seeding uses the system rating above since the first rated match, T8" in page
