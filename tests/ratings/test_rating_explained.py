"""The player's profile explains, next to the rating, why a newcomer's rating can rise after
a loss (README "Ratings": the shown rating is a cautious estimate, mu minus three sigma).
Runs embedded (SQLite) too."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import PlayerFactory, TournamentFactory
from tournament.models import Entry

pytestmark = pytest.mark.django_db


def test_the_profile_says_the_rating_is_a_cautious_estimate(client: Client) -> None:
    player = PlayerFactory(name="Nuevo")
    Entry.objects.create(tournament=TournamentFactory(status="running"), player=player)
    html = client.get(f"/players/{player.pk}/").content.decode()
    assert 'id="rating-explained"' in html
    assert "cautious estimate" in html
    assert "even after a loss" in html
