"""Leaderboards (/stats/<slug>/) treat players level on a statistic alike.

Walkthrough on a 390 px phone: players level on a statistic got different numbers (#9, #10) in
alphabetical order, and a board was cut at its tenth row inside a tie, so one player with
1 win was missing while others with 1 win were shown. Ranks are now competition ranks on the
statistic (1, 2, 2, 4; shown "2="), level players are listed by name, and a board stops only
between two values: everyone ranked in the top ten is on it, a long tie at the cut is counted
on one line instead of being split. The page also carries the tournament's public navigation
as every live page does.
"""

from __future__ import annotations

import doctest
import re
from functools import partial
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

import ratings.stats
from ratings.stats import board_cut, competition_ranks, tournament_leaders
from scoring.models import Match
from tests.factories import EntryFactory, PlayerFactory, TournamentFactory, scheduled_match


def test_the_doctests_of_the_board_rules_hold() -> None:
    result = doctest.testmod(ratings.stats)
    assert result.failed == 0
    assert result.attempted >= 6


@pytest.mark.parametrize(
    ("values", "ranks"),
    [
        ([], []),
        ([7], [1]),
        ([5, 3, 3, 1], [1, 2, 2, 4]),
        ([2, 2, 2], [1, 1, 1]),
        ([9, 8, 8, 8, 8, 8, 8, 8, 8, 8, 1, 1], [1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 11, 11]),
    ],
)
def test_competition_ranks(values: list[int], ranks: list[int]) -> None:
    assert competition_ranks(values) == ranks


@pytest.mark.parametrize(
    ("values", "limit", "max_rows", "cut"),
    [
        ([3, 2, 1], 10, 20, (3, 0)),  # fewer than the limit: everyone
        (list(range(20, 0, -1)), 10, 20, (10, 0)),  # no tie: the top ten
        ([5] * 9 + [2, 2, 2, 1], 10, 20, (12, 0)),  # the tie at tenth place is listed whole
        ([5] * 10 + [2, 2, 1], 10, 20, (10, 0)),  # a tie after the tenth is nobody's
        ([5] * 8 + [1] * 15, 10, 20, (8, 15)),  # a long tie at the cut: counted, not split
        ([1] * 30, 10, 20, (0, 30)),  # the whole board level
    ],
)
def test_a_board_is_cut_between_two_values_only(
    values: list[int], limit: int, max_rows: int, cut: tuple[int, int]
) -> None:
    named, counted = board_cut(values, limit=limit, max_rows=max_rows)
    assert (named, counted) == cut
    # Nobody named has an equal who is left off the board, counted or not.
    shown = named + counted
    if shown < len(values):
        assert values[shown] < values[shown - 1]
    if counted:
        assert values[named : named + counted] == [values[named]] * counted


def _finished_line(tournament: Any, name: str, **stats: int) -> None:
    """A finished 3-player match in which a player called ``name`` has ``stats`` (the
    others won nothing: off the board, which never lists anyone on 0)."""
    match = scheduled_match(tournament, n_players=3)
    seat = match.seats.get(seat=0)
    seat.entry = EntryFactory(tournament=tournament, player=PlayerFactory(name=name))
    for key, value in stats.items():
        setattr(seat, key, value)
    seat.placing = stats.get("placing", 2)
    seat.save()
    for other in match.seats.exclude(pk=seat.pk):
        other.placing = 3
        other.save(update_fields=["placing"])
    now = timezone.now()
    Match.objects.filter(pk=match.pk).update(
        status=Match.Status.FINISHED, started_at=now, finished_at=now, end_reason="normal"
    )


@pytest.fixture
def level_field(db: Any) -> Any:
    """Hands won: Zoe 5; then twelve players on 1, in no alphabetical order of creation."""
    tournament = TournamentFactory(status="running", slug="level-field")
    _finished_line(tournament, "Zoe Top", hands_won=5)
    ones = (
        "Mia",
        "Ana",
        "Luis",
        "Bea",
        "Kim",
        "Eva",
        "Hugo",
        "Álvaro",
        "Ines",
        "Jon",
        "Omar",
        "Gil",
    )
    for name in ones:
        _finished_line(tournament, name, hands_won=1)
    return tournament


def test_level_players_share_a_rank_and_nobody_level_is_cut_off(level_field: Any) -> None:
    board = tournament_leaders(tournament_id=level_field.pk)["hands_won"]
    assert [(r.name, r.rank, r.level) for r in board.rows[:1]] == [("Zoe Top", 1, False)]
    ones = board.rows[1:]
    # All twelve on 1 are listed (the tie straddles the tenth place), each ranked 2nd level,
    # by name (an accent does not send a name to the end).
    assert {r.rank for r in ones} == {2}
    assert all(r.level for r in ones)
    assert [r.name for r in ones] == [
        "Álvaro", "Ana", "Bea", "Eva", "Gil", "Hugo", "Ines", "Jon", "Kim", "Luis", "Mia", "Omar"
    ]  # fmt: skip
    assert board.rest is None


def test_a_long_tie_at_the_cut_is_counted_not_split(level_field: Any) -> None:
    board = tournament_leaders(tournament_id=level_field.pk, max_rows=8)["hands_won"]
    assert [r.name for r in board.rows] == ["Zoe Top"]
    assert board.rest is not None
    assert (board.rest.rank, board.rest.value, board.rest.count) == (2, 1, 12)


def test_the_page_shows_level_ranks_and_the_public_navigation(level_field: Any) -> None:
    client = Client()
    html = client.get("/stats/level-field/").content.decode()
    section = re.search(r'<section aria-labelledby="board-hands_won">.*?</section>', html, re.S)
    assert section is not None
    ranks = re.findall(r'<td class="rank">(\d+)(<span class="level-mark")?', section.group(0))
    assert ranks == [("1", "")] + [("2", '<span class="level-mark"')] * 12
    assert "Ana" in section.group(0)
    assert "Omar" in section.group(0)
    # The tournament's public pages, as on every live page.
    nav = re.search(r'<nav aria-label="Main">.*?</nav>', html, re.S)
    assert nav is not None
    for page in ("", "tables/", "standings/", "bracket/", "projector/"):
        assert f'href="/live/level-field/{page}"' in nav.group(0)
    assert "listed by name" in html


def test_the_page_counts_a_long_tie_on_one_line(level_field: Any, monkeypatch: Any) -> None:
    import ratings.views

    monkeypatch.setattr(
        ratings.views, "tournament_leaders", partial(tournament_leaders, max_rows=8)
    )
    html = Client().get("/stats/level-field/").content.decode()
    section = re.search(r'<section aria-labelledby="board-hands_won">.*?</section>', html, re.S)
    assert section is not None
    assert "Zoe Top" in section.group(0)
    assert "Ana" not in section.group(0)
    rest = re.search(r'<tr class="level-rest">.*?</tr>', section.group(0), re.S)
    assert rest is not None
    assert '<td class="rank">2<span class="level-mark"' in rest.group(0)
    assert "12 players level" in rest.group(0)
    assert "<td>1</td>" in rest.group(0)
