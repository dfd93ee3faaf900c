"""The pose tile on a forced pose (R5; QA: the referee could pick another tile on hand 1).

The panel offers only the tiles R5 allows, the forced tile chosen: 6-6 alone when every tile
is dealt; with tiles left undealt, 6-6 and the fallbacks R5 allows. A free pose offers every
tile after "choose the tile posed". The server still refuses a wrong tile.
"""

from __future__ import annotations

import re
from typing import cast

import pytest
from django.test import Client

from core.exceptions import ApplicationError
from scoring.models import Match
from scoring.services import hand_record
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tests.pages.conftest import Setup
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def _select(html: str) -> tuple[str, list[tuple[str, bool]]]:
    """The pose tile <select> tag and its options (value, selected)."""
    found = re.search(r'(<select id="pose-tile"[^>]*>)(.*?)</select>', html, re.S)
    assert found is not None
    options = re.findall(r'<option value="([^"]*)"( selected)?>', found.group(2))
    return found.group(1), [(value, bool(selected)) for value, selected in options]


def _panel(client: Client, match: Match) -> str:
    response = client.get(f"/matches/{match.pk}/panel/")
    assert response.status_code == 200
    return response.content.decode()


def test_a_forced_pose_offers_6_6_alone_and_a_free_pose_every_tile(
    client: Client, setup: Setup
) -> None:
    client.force_login(setup.director)
    tag, options = _select(_panel(client, setup.match))
    assert options == [("6-6", True)]
    assert 'data-locked="1"' in tag
    assert 'data-forced-tiles="6-6"' in tag
    assert len(re.search(r'data-tiles="([^"]*)"', tag).group(1).split()) == 28  # type: ignore[union-attr]

    hand_record(
        match_id=setup.match.pk,
        actor=setup.referee,
        expected_number=1,
        payload={"poser": 2, "pose_tile": "6-6", "end": "domino", "winner": 2},
    )
    tag, options = _select(_panel(client, setup.match))
    assert options[0] == ("", True)  # "— choose the tile posed —"
    assert len(options) == 1 + 28
    assert not any(selected for _, selected in options[1:])
    assert "data-locked" not in tag


def test_the_server_still_refuses_another_tile_on_a_forced_pose(setup: Setup) -> None:
    with pytest.raises(ApplicationError) as refused:
        hand_record(
            match_id=setup.match.pk,
            actor=setup.referee,
            expected_number=1,
            payload={"poser": 0, "pose_tile": "5-5", "end": "domino", "winner": 2},
        )
    assert (refused.value.code, refused.value.rule) == ("wrong_pose_tile", "R5")


def test_with_tiles_left_undealt_a_forced_pose_offers_the_fallbacks_of_r5(client: Client) -> None:
    """The block preset deals 7 tiles each, so some stay undealt; with a forced opening the
    holder of 6-6 leads it, or if nobody was dealt 6-6 the highest double held, and so on
    (R5): the form offers those tiles, 6-6 chosen."""
    tournament = cast(
        Tournament,
        TournamentFactory(  # type: ignore[no-untyped-call]
            ruleset_preset="block", ruleset_overrides={"opening": "forced_six_six"}
        ),
    )
    director = director_of(tournament)
    match = match_in_progress(tournament, referee=referee_of(tournament))
    client.force_login(director)
    _tag, options = _select(_panel(client, match))
    values = [value for value, _ in options]
    assert options[0] == ("6-6", True)
    assert "" not in values
    assert 1 < len(values) < 28
    assert {"5-5", "4-4"} <= set(values)
    assert "1-0" not in values


def test_the_match_page_carries_the_lists_for_hands_drawn_on_the_phone(
    client: Client, setup: Setup
) -> None:
    client.force_login(setup.director)
    html = client.get(f"/matches/{setup.match.pk}/").content.decode()
    tag, _options = _select(html)
    assert 'data-forced-tiles="6-6"' in tag
    assert "data-tiles=" in tag
