"""A player edited in the Django admin shows at once on the live pages of their tournaments.

Bug: the admin saved the Player row directly. ``player_update`` (the Players page, the API)
bumps the version of every tournament the player entered, which the live documents' caches
and ETags are keyed by; the admin did not, so the live standings, the player's page and the
circuit standings kept the old name or club (and answered 304 to a client holding the old
ETag) until some other change. Now the admin's save goes through the same step
(``tournament.services.player_changed``), and its form checks the fields by the one rule of
``tournament.player_fields``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from live.scope import RECENT
from tests.live.conftest import make_live_tournament
from tournament.models import Player

pytestmark = pytest.mark.django_db


def _change(admin_client: Client, player: Player, **typed: Any) -> Any:
    form = {
        "name": player.name,
        "nickname": player.nickname,
        "country": player.country,
        "club": player.club,
        "rating": "" if player.rating is None else str(player.rating),
        "user": "",
        **typed,
    }
    return admin_client.post(f"/admin/tournament/player/{player.pk}/change/", form)


def test_an_admin_rename_shows_on_the_live_standings_with_a_new_etag(
    admin_client: Client,
) -> None:
    lt = make_live_tournament(8, cut_size=4, slug="admin-open")
    url = "/api/live/admin-open/standings/"
    anon = Client()
    before = anon.get(url)
    assert before.status_code == 200
    player = Player.objects.filter(entries__tournament=lt.tournament).order_by("name").first()
    assert player is not None
    assert player.name in before.content.decode()  # and now cached under this version

    r = _change(admin_client, player, name="Renamed Ríos", club="New Club")
    assert r.status_code == 302, r.content
    RECENT.clear()  # a second later: the live API may reuse its 1 s old version lookup

    after = anon.get(url)
    assert after.status_code == 200
    assert after["ETag"] != before["ETag"]
    text = after.content.decode()
    assert "Renamed Ríos" in text
    assert f'"{player.name}"' not in text
    # A client holding the old ETag is told of the change, not "304 unchanged".
    assert anon.get(url, HTTP_IF_NONE_MATCH=before["ETag"]).status_code == 200


def test_the_admin_refuses_a_player_field_by_the_players_rule(admin_client: Client) -> None:
    player = Player.objects.create(name="Ana Ruiz", country="PR")
    r = _change(admin_client, player, name="\u200b", country="ZZ")
    assert r.status_code == 200  # the form again, with the errors on their fields
    errors = r.context["adminform"].form.errors
    assert set(errors) == {"name", "country"}
    player.refresh_from_db()
    assert (player.name, player.country) == ("Ana Ruiz", "PR")
    r = _change(admin_client, player, name="Ana Ruiz", country="do")
    assert r.status_code == 302
    player.refresh_from_db()
    assert (player.name, player.country) == ("Ana Ruiz", "DO")
