"""The director's player edit page (``players/<entry_id>/edit/``): a typo at registration is
corrected from the product's pages, with the add form's checks, the service's rule on who may
change a player seen in several events, the action log, and nothing saved on a refusal. Runs
embedded (SQLite) too."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from core.exceptions import PermissionDeniedError
from tests.factories import (
    PlayerFactory,
    RoleFactory,
    TournamentFactory,
    director_of,
    referee_of,
)
from tournament.models import ActionLog, Entry, Player, Tournament, TournamentRole

pytestmark = pytest.mark.django_db


def _entry(t: Tournament, **player: Any) -> Entry:
    # A rating the form accepts (0-9999): PlayerFactory's sequence passes 9999 in a long run.
    player.setdefault("rating", 1600)
    return Entry.objects.create(tournament=t, player=PlayerFactory(**player))


def _url(t: Tournament, entry: Entry) -> str:
    return f"/director/tournaments/{t.slug}/players/{entry.pk}/edit/"


def _form(player: Player, **changes: Any) -> dict[str, Any]:
    data = {
        "name": player.name,
        "nickname": player.nickname,
        "club": player.club,
        "country": player.country,
        "rating": "" if player.rating is None else str(player.rating),
    }
    data.update(changes)
    return data


def test_a_director_corrects_a_typo_from_the_players_page(client: Client) -> None:
    t = TournamentFactory()
    entry = _entry(t, name="Ana Rivra", club="Bayamon", country="PR", rating=1500)
    client.force_login(director_of(t))
    players = client.get(f"/director/tournaments/{t.slug}/players/import/").content.decode()
    assert f'href="{_url(t, entry)}"' in players  # linked from the roster
    page = client.get(_url(t, entry))
    assert page.status_code == 200
    assert 'value="Ana Rivra"' in page.content.decode()
    r = client.post(_url(t, entry), _form(entry.player, name="Ana Rivera", rating="1530"))
    assert r.status_code == 302
    player = Player.objects.get(pk=entry.player_id)
    assert (player.name, player.rating, player.club) == ("Ana Rivera", 1530, "Bayamon")
    log = ActionLog.objects.get(tournament=t, verb="player.update")
    assert log.data == {
        "name": {"before": "Ana Rivra", "after": "Ana Rivera"},
        "rating": {"before": 1500, "after": 1530},
    }
    shown = client.get(f"/director/tournaments/{t.slug}/log/").content.decode()
    assert "Player details corrected" in shown
    assert "Ana Rivera" in shown
    # The change reads as words, not the stored data structure.
    assert "Name: Ana Rivra \u2192 Ana Rivera" in shown
    assert "Rating: 1500 \u2192 1530" in shown


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"name": ""}, "name", "required"),
        ({"rating": "12000"}, "rating", "9999"),
        ({"country": "Puerto Rico"}, "country", "alpha-2"),
    ],
)
def test_bad_input_is_named_on_its_field_and_nothing_saved(
    client: Client, changes: dict[str, str], field: str, words: str
) -> None:
    t = TournamentFactory()
    entry = _entry(t, name="Ana Rivera", country="PR", rating=1500)
    client.force_login(director_of(t))
    r = client.post(_url(t, entry), _form(entry.player, **changes))
    assert r.status_code == 400
    errors = " ".join(r.context["form"].errors[field])
    assert words in errors.lower() or words in errors
    player = Player.objects.get(pk=entry.player_id)
    assert (player.name, player.country, player.rating) == ("Ana Rivera", "PR", 1500)
    assert not ActionLog.objects.filter(verb="player.update").exists()


def test_two_entries_of_one_name_and_club_are_refused(client: Client) -> None:
    t = TournamentFactory()
    _entry(t, name="José Pérez", club="Santo Domingo")
    entry = _entry(t, name="Jose Perez", club="Santo Domingo")
    client.force_login(director_of(t))
    r = client.post(_url(t, entry), _form(entry.player, name="josé  pérez"))
    assert r.status_code == 400
    assert "another player" in r.context["form"].errors["name"][0]
    assert Player.objects.get(pk=entry.player_id).name == "Jose Perez"


def test_a_player_of_another_directors_event_keeps_their_name_and_rating(
    client: Client,
) -> None:
    """Chain: the director of one event cannot rename a player who also entered an event
    they do not direct (their name there would change too), nor change their typed rating
    (it seeds them there, T8)."""
    from ratings.selectors import seeding_ratings

    mine, theirs = TournamentFactory(), TournamentFactory()
    entry = _entry(mine, name="Ana Rivera", rating=1500)
    Entry.objects.create(tournament=theirs, player=entry.player)
    client.force_login(director_of(mine))
    page = client.get(_url(mine, entry)).content.decode()
    assert "also entered 1 other tournament" in page
    # The page offers only what it will accept: every field is locked, said why, no button.
    assert 'id="identity-locked"' in page
    assert "seeds them in those events" in page
    for name in ("name", "rating"):
        assert re.search(rf'<input[^>]*name="{name}"[^>]*disabled', page), name
    assert "Save the player" not in page
    # A forged POST of a new name or rating changes nothing (locked fields keep their value) ...
    r = client.post(_url(mine, entry), _form(entry.player, name="Ana R. Impostor", rating="9"))
    assert r.status_code == 302
    player = Player.objects.get(pk=entry.player_id)
    assert (player.name, player.rating) == ("Ana Rivera", 1500)
    assert seeding_ratings(player_ids=[player.pk]) == {player.pk: 1500.0}
    assert not ActionLog.objects.filter(verb="player.update").exists()
    # ... and the service refuses it on its own (the rule is the service's, not the page's).
    from tournament.services import player_update

    for data in ({"name": "X"}, {"rating": 9}):
        with pytest.raises(PermissionDeniedError) as refused:
            player_update(player=entry.player, actor=r.wsgi_request.user, data=data)
        assert list(refused.value.fields) == list(data)
    # Directing the other event too unlocks the page.
    RoleFactory(tournament=theirs, user=r.wsgi_request.user, role=TournamentRole.Role.DIRECTOR)
    assert 'id="identity-locked"' not in client.get(_url(mine, entry)).content.decode()
    assert client.post(_url(mine, entry), _form(entry.player, rating="1600")).status_code == 302
    assert Player.objects.get(pk=entry.player_id).rating == 1600


def test_only_this_tournaments_directors_reach_the_page(client: Client) -> None:
    t, other = TournamentFactory(), TournamentFactory()
    entry = _entry(t, name="Ana Rivera")
    assert client.get(_url(t, entry)).status_code == 302  # to the sign-in
    client.force_login(referee_of(t))
    assert client.get(_url(t, entry)).status_code == 403
    assert client.post(_url(t, entry), _form(entry.player, name="X")).status_code == 403
    client.force_login(director_of(other))
    assert client.get(_url(t, entry)).status_code == 403
    # Another tournament's entry id under my tournament's address: 404, nothing changed.
    client.force_login(director_of(other))
    assert client.post(_url(other, entry), _form(entry.player, name="X")).status_code == 404
    assert Player.objects.get(pk=entry.player_id).name == "Ana Rivera"
