"""The seeding page of a pairs stage (T9): partners are listed together among the other
entries, and a partnership left out of the seeding because a partner is not checked in is
named with that partner, instead of a "seed again" that never helps."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from brackets import services
from tests.brackets.factories_pages import director_client
from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages
from tournament.models import Entry, Player
from tournament.partnerships import partnership_register

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def _with_desert_bones() -> tuple[Any, Any, Any, Any]:
    """Four checked-in partnerships, and Desert Bones (Omar Haddad and Zara Farouk) with only
    Zara checked in."""
    t, d, _ = make_pairs_tournament(4)
    q, _k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    omar = Player.objects.create(name="Omar Haddad", club="Sahara")
    zara = Player.objects.create(name="Zara Farouk", club="Sahara")
    partnership_register(tournament=t, actor=d, players=[omar, zara], name="Desert Bones")
    Entry.objects.filter(tournament=t, player=zara).update(checked_in=True)
    return t, d, q, director_client(d)


def _seeding(client: Any, t: Any, q: Any) -> str:
    url = f"/director/tournaments/{t.slug}/stages/{q.pk}/seeding/"
    response = client.get(url)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def test_a_partner_not_checked_in_is_named_not_seed_again() -> None:
    """Bug: with one partner of a partnership checked in, the page kept saying "1 checked-in
    player is not in the seeding yet: seed again to include them", which never helped (T9: a
    partnership needs both partners). Now it names the partnership and the missing partner."""
    t, d, q, client = _with_desert_bones()
    services.stage_seed(stage=q, actor=d, method="rating")
    page = _seeding(client, t, q)
    assert "Desert Bones: Omar Haddad is not checked in." in page
    assert "seed again" not in page


def test_a_whole_partnership_checked_in_late_still_asks_to_seed_again() -> None:
    t, d, q, client = _with_desert_bones()
    services.stage_seed(stage=q, actor=d, method="rating")
    Entry.objects.filter(tournament=t, player__name="Omar Haddad").update(checked_in=True)
    page = _seeding(client, t, q)
    assert "2 checked-in players are not in the seeding yet: seed again" in page
    assert "is not checked in." not in page


def test_other_entries_list_partners_together() -> None:
    """Bug: before seeding, "Other entries" listed the players by name, partners apart. Now
    each partnership's players are together, under its name."""
    t, _d, q, client = _with_desert_bones()
    Entry.objects.filter(tournament=t, player__name="Omar Haddad").update(checked_in=True)
    page = _seeding(client, t, q)
    others = page[page.index('id="other-entries"') :]
    names = re.findall(r'<td class="player-name">([^<]+)', others)
    assert len(names) == 10
    omar, zara = names.index("Omar Haddad"), names.index("Zara Farouk")
    assert abs(omar - zara) == 1
    for k in range(4):  # make_pairs_tournament's partnerships: Q0000 & Q0001, ...
        a, b = names.index(f"Q{2 * k:04d}"), names.index(f"Q{2 * k + 1:04d}")
        assert b == a + 1
    assert '<td class="unit-name">Desert Bones</td>' in others
