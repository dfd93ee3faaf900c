"""The match page's result card names six-loves as the engine counted them (R31c).

Walkthrough: after a forfeit at a table of four (T7: the others play on in a new match) the
card of the forfeited match said "Six-love to A, B, C, D (R31c)": every seat left on 0 was
read as a six-love. Only the forfeiting player's 0-6 loss is one (T7), and it is the rule's, not
a six-love won at the table (R31c: nobody reached the target): the card says "Forfeit by C ·
Ana: a 0-6 loss (T7)"."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from scoring import services
from scoring.models import Match
from tests.factories import TournamentFactory, director_of, match_in_progress, scheduled_match

pytestmark = pytest.mark.django_db


def _card(match: Match, director: Any) -> str:
    client = Client()
    client.force_login(director)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    return page.split('class="result-card"', 1)[1].split("</section>", 1)[0]


def test_a_forfeit_at_a_table_that_plays_on_names_only_the_absent_player_t7() -> None:
    """T7: the forfeit is recorded as a 0-6 loss for that player (the engine's count on their
    seat); the players who play on got no six-love, though they too are on 0 here."""
    tournament = TournamentFactory()
    director = director_of(tournament)
    match = match_in_progress(tournament)
    result = services.match_forfeit(match_id=match.pk, actor=director, seat=2, reason="left")
    assert result.continuation is not None
    card = _card(match, director)
    assert card.count("Forfeit by C · ") == 1
    assert "a 0\u20136 loss (T7)" in card
    assert "Six-love" not in card
    assert "R31c" not in card  # nobody reached the target
    for seat in "ABD":
        assert f"{seat} · " not in card.split("Forfeit by", 1)[1].split("(T7)", 1)[0]


def test_a_two_player_forfeit_is_the_absent_players_0_6_loss_t7() -> None:
    tournament = TournamentFactory()
    director = director_of(tournament)
    match = scheduled_match(tournament, n_players=2)
    services.match_forfeit(match_id=match.pk, actor=director, seat=1, reason="no-show")
    card = _card(match, director)
    assert "Match over — A · " in card
    assert "Forfeit by B · " in card
    assert "a 0\u20136 loss (T7)" in card
    assert "Six-love" not in card  # the 0-6 is the forfeit's (T7), not R31c


def test_the_card_of_a_finished_match_lists_the_placings_and_leads_to_my_matches() -> None:
    """R33/T3: a referee finishing a match sees how the players placed (stored on the seats),
    shared placings together, and a way on to their next table ("My matches"); here a match
    with no confirmation at the table, where the card showed only the winner."""
    tournament = TournamentFactory()
    director = director_of(tournament)
    match = match_in_progress(tournament)
    services.match_result_override(
        match_id=match.pk,
        actor=director,
        scores=[6, 2, 0, 0],
        reason="score sheet",
        placings=[1, 2, 3, 3],
    )
    card = _card(match, director)
    placings = card.split('id="result-placings"', 1)[1].split("</ul>", 1)[0]
    items = [li.split("</li>", 1)[0] for li in placings.split("<li>")[1:]]
    assert len(items) == 3
    assert items[0].startswith("<strong>1.</strong> A")
    assert items[1].startswith("<strong>2.</strong> B")
    assert items[2].startswith("<strong>3.</strong> C")
    assert ", D" in items[2]
    assert 'href="/referee/" id="result-my-matches"' in card


def test_a_match_in_progress_shows_no_placings() -> None:
    tournament = TournamentFactory()
    director = director_of(tournament)
    match = match_in_progress(tournament)
    client = Client()
    client.force_login(director)
    page = client.get(f"/matches/{match.pk}/").content.decode()
    assert 'id="result-placings"' not in page


def test_a_partnership_card_places_the_partnerships_first_and_second_r42() -> None:
    """Demo walkthrough (referee phone, pairs table): the card of a partnership match read
    "1. A, C" and "3. B, D", the seat placings the match stores, where the players'
    confirmation, the spectators' pages and the exports say 1st and 2nd (R42, T4)."""
    tournament = TournamentFactory(ruleset_preset="wsod_partners")
    director = director_of(tournament)
    match = match_in_progress(tournament)
    for number in range(1, 7):  # A dominoes every hand (and poses the next, R44): AC 6-0
        tile = "6-6" if number == 1 else "5-4"
        services.hand_record(
            match_id=match.pk,
            actor=director,
            expected_number=number,
            payload={"poser": 0, "pose_tile": tile, "end": "domino", "winner": 0},
        )
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert list(match.seats.order_by("seat").values_list("placing", flat=True)) == [1, 3, 1, 3]
    card = _card(match, director)
    placings = card.split('id="result-placings"', 1)[1].split("</ul>", 1)[0]
    items = [li.split("</li>", 1)[0] for li in placings.split("<li>")[1:]]
    assert len(items) == 2
    assert items[0].startswith("<strong>1.</strong> A · ")
    assert ", C · " in items[0]
    assert items[1].startswith("<strong>2.</strong> B · ")
    assert ", D · " in items[1]
