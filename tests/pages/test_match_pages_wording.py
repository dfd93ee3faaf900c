"""The match pages after the QA walkthrough. Runs embedded (SQLite) too.

- The director's match page offered "Enter the hand move by move" under "This match is over":
  the link shows only while a hand can be recorded (not on a finished or void match, nor on
  one held for the players' confirmation, issue 15).
- The spectators' match page said only "tied" of a tied hand, where the referee page names
  the seats sharing the lowest count and the counts (R20): both say it now with one presenter
  (``scoring.presenters.match.tie_line``).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from live.scope import RECENT
from scoring.models import Match
from scoring.services import hand_record
from tests.pages.conftest import Setup

pytestmark = pytest.mark.django_db

MOVES = "Enter the hand move by move"


def _record(match: Match, actor: Any, number: int, **payload: Any) -> None:
    result = hand_record(match_id=match.pk, actor=actor, expected_number=number, payload=payload)
    assert result.status == 201


def _director_page(setup: Setup) -> str:
    client = Client()
    client.force_login(setup.director)
    page = client.get(f"/matches/{setup.match.pk}/")
    assert page.status_code == 200
    return page.content.decode()


def test_move_by_move_entry_is_offered_only_while_a_hand_can_be_recorded(setup: Setup) -> None:
    match = setup.match
    assert MOVES in _director_page(setup)  # in progress: offered
    assert f"/matches/{match.pk}/moves/" in _director_page(setup)
    Match.objects.filter(pk=match.pk).update(confirmation_hold="result")
    assert MOVES not in _director_page(setup)  # held for the players' taps (issue 15)
    Match.objects.filter(pk=match.pk).update(confirmation_hold="")
    for status in (Match.Status.FINISHED, Match.Status.VOID):
        Match.objects.filter(pk=match.pk).update(status=status)
        html = _director_page(setup)
        assert "This match is over" in html
        assert MOVES not in html, status
        assert f"/matches/{match.pk}/moves/" not in html


def _tied(setup: Setup) -> tuple[Match, str]:
    match = setup.match
    _record(match, setup.referee, 1, poser=2, pose_tile="6-6", end="domino", winner=0)
    # B and C share the lowest count: a tie (R20).
    _record(match, setup.referee, 2, poser=0, pose_tile="5-5", end="block", counts=[9, 3, 3, 12])
    names = {s.seat: s.entry.player.name for s in match.seats.select_related("entry__player")}
    counts = "\u2013".join(("9", "3", "3", "12"))
    return match, f"{names[1]} and {names[2]} ({counts})"


@pytest.mark.parametrize(("language", "tie"), [("en", "tie: "), ("es", "empate: ")])
def test_the_spectator_page_names_who_tied_and_on_what_count(
    setup: Setup, language: str, tie: str
) -> None:
    match, said = _tied(setup)
    if language == "es":
        said = said.replace(" and ", " y ")
    RECENT.clear()
    page = Client().get(
        f"/live/{setup.tournament.slug}/matches/{match.pk}/", HTTP_ACCEPT_LANGUAGE=language
    )
    assert page.status_code == 200
    html = page.content.decode()
    assert f"{tie}{said}" in html
    assert "<td>tied</td>" not in html
    assert "<td>empatada</td>" not in html
    if language == "en":  # the referee's page says the same of the hand, seats lettered
        first, rest = said.split(" and ")
        assert f"{tie}B \u00b7 {first} and C \u00b7 {rest}" in _director_page(setup)


def test_the_live_match_json_carries_a_blocks_counts(setup: Setup) -> None:
    match, _said = _tied(setup)
    RECENT.clear()
    body = Client().get(f"/api/live/{setup.tournament.slug}/matches/{match.pk}/").json()
    hands = {h["number"]: h for h in body["hands"]}
    assert hands[2]["tied"] is True
    assert hands[2]["counts"] == [9, 3, 3, 12]
    assert hands[1]["counts"] is None  # a domino has no counts
