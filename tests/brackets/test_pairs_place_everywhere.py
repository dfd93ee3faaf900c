"""A partnership's place at its table reads the same on every page (R42, T4, T10): 1st or 2nd of
the two partnerships, by one rule (``scoring.engine.placing.side_places``), while the seats
keep the placings the ratings read (1, 3, 1, 3)."""

from __future__ import annotations

import csv
import html
import io
import re
from typing import Any

import pytest
from django.test import Client

from ratings.services import rating_update_for_match
from scoring.engine.placing import seat_side_places, side_places
from scoring.models import Hand, Seat
from scoring.presenters.confirmation import held_result
from tests.brackets.pairs_helpers import (
    AC_SIX_LOVE,
    play_pairs_match,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.mark.parametrize(
    ("placings", "forfeited", "sides"),
    [
        ([1, 3, 1, 3], [], (1, 2)),
        ([3, 1, 3, 1], [], (2, 1)),
        ([1, 3, 2, 3], [], (1, 2)),  # a director's seat-by-seat override
        ([1, 1, 1, 1], [], (1, 1)),  # level: a shared first, no win (T3)
        ([None, 1, None, 1], [True, False, False, False], (2, 1)),  # T7
        ([None, None, None, None], [], (None, None)),
    ],
)
def test_one_rule_turns_seat_placings_into_partnership_places(
    placings: list[int | None], forfeited: list[bool], sides: tuple[int | None, int | None]
) -> None:
    assert side_places(placings, forfeited) == sides
    assert seat_side_places(placings, forfeited) == [sides[i % 2] for i in range(4)]


def test_the_referees_result_card_says_1st_and_2nd() -> None:
    """Bug: the card the players confirm at the end of a pairs match read "1st" and "3rd" (the
    seat placings). Now it reads each partnership's place, 1st and 2nd."""
    *_, match = play_pairs_match(AC_SIX_LOVE, confirmation="match_end")  # held (issue 15)
    live = list(Hand.objects.filter(match=match, void=False).order_by("number"))
    held = held_result(match, live)
    assert held is not None
    assert held["placings"] == [1, 2, 1, 2]


def test_the_results_sheet_and_the_export_say_1st_and_2nd(client: Client) -> None:
    """Bug: the printable results sheet and matches.csv gave the partnership that lost place 3
    (its seat placing). Now both give 2 of the two partnerships."""
    t, _, q, match = play_pairs_match(AC_SIX_LOVE)
    stored = list(
        Seat.objects.filter(match=match).order_by("seat").values_list("placing", flat=True)
    )
    assert stored == [1, 3, 1, 3]  # what the ratings read stays per seat
    rnd = q.rounds.get()
    page = client.get(f"/live/{t.slug}/rounds/{rnd.pk}/results/").content.decode()
    places = re.findall(
        r'<td class="num">(\d|—)</td>\s*<td class="num">\d+</td>\s*<td class="num">\d+</td>', page
    )
    assert places == ["1", "2", "1", "2"]
    assert "partnership's place at the table" in html.unescape(page)

    body = client.get(f"/live/{t.slug}/export/matches.csv").content.decode()
    row = next(csv.DictReader(io.StringIO(body)))
    assert [row[f"{c}_placing"] for c in "ABCD"] == ["1", "2", "1", "2"]


def test_the_rating_history_says_the_partnerships_place(client: Client) -> None:
    """Bug: a player's rating history read "3 / 4" for a pairs match their partnership lost.
    Now it reads "2 / 2": 2nd of the two partnerships."""
    _, _, _, match = play_pairs_match(AC_SIX_LOVE)
    rating_update_for_match(match_id=match.pk)
    loser = Seat.objects.select_related("entry").get(match=match, seat=1).entry.player_id
    winner = Seat.objects.select_related("entry").get(match=match, seat=2).entry.player_id
    lost = client.get(f"/players/{loser}/").content.decode()
    won = client.get(f"/players/{winner}/").content.decode()
    assert "<td>2 / 2</td>" in lost
    assert "3 / 4" not in lost
    assert "<td>1 / 2</td>" in won
