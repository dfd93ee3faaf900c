"""The director's Players page shows the rating seeding by rating uses (T8, README "Ratings").

A tester saw the Players page list the rating the director typed while the seeding list, the
standings and the player's results used the system rating (``ratings``): a player typed at
1500 who had played rated matches read 1500 there and 1880 on the seeding page. Now the page's
"Rating (T8)" column is the seeding's: the system rating once the player has a rated match,
else the typed one, with the typed one beside it where they differ, and a note saying which.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from brackets import services
from ratings.models import PlayerRating
from tests.brackets.factories_pages import director_client
from tests.factories import EntryFactory, PlayerFactory, TournamentFactory, director_of
from tournament.models import Entry

pytestmark = pytest.mark.django_db


def _rating_cell(page: str, entry_id: int) -> str:
    """The rating cell of the entry's row, tags stripped."""
    row = re.search(rf'<tr data-entry="{entry_id}">(.*?)</tr>', page, re.S)
    assert row is not None
    cell = re.search(r'<td class="num rating">(.*?)</td>', row.group(1), re.S)
    assert cell is not None
    return re.sub(r"<[^>]+>", "", cell.group(1)).strip()


def test_the_players_page_shows_the_rating_seeding_uses() -> None:
    t = TournamentFactory()
    d = director_of(t)
    rated = EntryFactory(tournament=t, player=PlayerFactory(name="Ana Rivera", rating=1500))
    PlayerRating.objects.create(player=rated.player, mu=25.0, sigma=1.0, matches=4)
    typed = EntryFactory(tournament=t, player=PlayerFactory(name="Ben Okafor", rating=1700))
    unrated = EntryFactory(tournament=t, player=PlayerFactory(name="Carmen Diaz", rating=None))
    system = PlayerRating.objects.get(player=rated.player).display
    assert system == 1880  # 1000 + 40 x (25 - 3 x 1)

    client: Client = director_client(d)
    page = client.get(f"/director/tournaments/{t.slug}/players/import/").content.decode()
    assert '<th class="num">Rating (T8)</th>' in page
    assert (
        "what seeding by rating uses. That is the system rating once the player has a rated "
        "match, else the rating entered" in page
    )
    # Rated matches: the system's rating, the typed one beside it (it no longer seeds).
    assert _rating_cell(page, rated.pk) == f"{system} (entered 1500)"
    # No rated match yet: the typed rating is the one seeding uses, shown once.
    assert _rating_cell(page, typed.pk) == "1700"
    assert _rating_cell(page, unrated.pk) == "—"

    # The seeding list shows the same number for the same player.
    EntryFactory(tournament=t, player=PlayerFactory(name="Desmond Clarke", rating=1600))
    Entry.objects.filter(tournament=t).update(checked_in=True)
    q = services.stage_create(
        tournament=t, actor=d, name="Qualifying", kind="qualifying", swiss_rounds=1, cut_size=3
    )
    services.stage_seed(stage=q, actor=d, method="rating")
    seeding = client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/seeding/").content
    assert f'<td class="num">{system} <small class="muted"' in seeding.decode()
