"""A pairs match in a player's record (R42, T4): both partners share their partnership's
result, in the statistics across events, the profile page and the rating, which rates the
two partnerships as teams."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from ratings.model import Skill, rate_table
from ratings.models import RatingChange
from ratings.services import ratings_rebuild
from ratings.stats import player_stats
from scoring.models import Seat
from tests.brackets.pairs_helpers import AC_SIX_LOVE, play_pairs_match
from tournament.models import Player

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def test_both_partners_win_the_match_in_their_record_and_rating_r42_t4() -> None:
    t, _, _, match = play_pairs_match(AC_SIX_LOVE)
    t.refresh_from_db()
    player = dict(Seat.objects.filter(match=match).values_list("seat", "entry__player_id"))
    for seat in (0, 2):
        assert player_stats(player_id=player[seat]).match_wins == 1
    for seat in (1, 3):
        assert player_stats(player_id=player[seat]).match_wins == 0
    # C (seat 2) won only two of the six hands, yet the partnership's win is C's too.
    page = Client().get(f"/players/{player[2]}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "1 match win in 1 finished match (rated or not)." in text  # proper plurals (walkthrough)

    # As newcomers with no typed rating (they start level, model.starting_skill): rebuilt.
    Player.objects.filter(pk__in=player.values()).update(rating=None)
    ratings_rebuild()
    changes = {c.player_id: c for c in RatingChange.objects.filter(match=match)}
    assert {changes[player[s]].placing for s in (0, 2)} == {1}
    assert {changes[player[s]].placing for s in (1, 3)} == {3}
    # People read the partnership's place, 1st of the two (T4, R42), not the seat's of four.
    assert "<td>1 / 2</td>" in Client().get(f"/players/{player[2]}/").content.decode()
    # Rated as a team against a team: equal skills before, so partners move alike, the
    # winners up and the losers down by the same amount (never partner against partner).
    a, b, c, d = (changes[player[s]] for s in range(4))
    team = rate_table([Skill()] * 4, [1, 3, 1, 3], partners=True)
    assert [x.mu_after for x in (a, b, c, d)] == pytest.approx([x.mu for x in team])
    assert a.mu_after == pytest.approx(c.mu_after)
    assert b.mu_after == pytest.approx(d.mu_after)
    assert a.mu_after > a.mu_before
    assert b.mu_after < b.mu_before
    assert a.mu_after - a.mu_before == pytest.approx(b.mu_before - b.mu_after)
