"""Statistics across events and leaderboards (ratings.stats), checked against the stored seat
lines and hands counted in Python."""

from __future__ import annotations

from typing import Any

import pytest

from ratings.charts import bar_chart
from ratings.stats import SEAT_STATS, player_stats, tournament_leaders
from scoring.engine import Ruleset
from scoring.models import Hand, Match, Seat
from scoring.services import match_start
from tests.brackets.conftest import play_match
from tests.factories import EntryFactory, TournamentFactory, director_of, scheduled_match

pytestmark = pytest.mark.django_db(transaction=True)

SHORT = {"target": 2}


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def _tournament(**kwargs: Any) -> Any:
    return TournamentFactory(
        status="running",
        ruleset_overrides=SHORT,
        ruleset=Ruleset.from_preset("wsod", SHORT).to_json(),
        **kwargs,
    )


def _play_with(tournament: Any, player: Any, seed: int) -> Match:
    """A finished 3-player match with ``player`` in seat ``seed % 3``."""
    match = scheduled_match(tournament, n_players=3)
    seat = match.seats.get(seat=seed % 3)
    entry = tournament.entries.filter(player=player).first()
    seat.entry = entry or EntryFactory(tournament=tournament, player=player)
    seat.save(update_fields=["entry"])
    director = director_of(tournament)
    play_match(match, director, seed)
    match.refresh_from_db()
    return match


def _expected(player_id: int, tournament_id: int | None = None) -> dict[str, Any]:
    seats = Seat.objects.filter(entry__player_id=player_id, match__status="finished")
    if tournament_id:
        seats = seats.filter(match__tournament_id=tournament_id)
    out: dict[str, Any] = {name: sum(getattr(s, name) for s in seats) for name in SEAT_STATS}
    out["matches"] = seats.count()
    out["match_wins"] = sum(1 for s in seats if s.placing == 1)
    posed = won = six = six_won = 0
    for s in seats:
        for h in Hand.objects.filter(match_id=s.match_id, void=False, poser=s.seat):
            posed += 1
            won += h.winner == s.seat
            six += h.pose_tile == "6-6"
            six_won += h.pose_tile == "6-6" and h.winner == s.seat
    out["posing"] = (won, posed)
    out["double_six"] = (six_won, six)
    return out


def _actual(player_id: int, tournament_id: int | None = None) -> dict[str, Any]:
    stats = player_stats(player_id=player_id, tournament_id=tournament_id)
    out: dict[str, Any] = dict(stats.totals)
    out["matches"] = stats.matches
    out["match_wins"] = stats.match_wins
    out["posing"] = (stats.posing.won, stats.posing.of)
    out["double_six"] = (stats.double_six.won, stats.double_six.of)
    return out


def test_player_statistics_across_events_and_in_one(client: Any) -> None:
    first, second = _tournament(), _tournament()
    hero = EntryFactory(tournament=first).player
    for seed in range(3):
        _play_with(first, hero, seed)
    _play_with(second, hero, 5)
    unfinished = scheduled_match(second, n_players=3)
    match_start(match_id=unfinished.pk, actor=director_of(second))

    across = _actual(hero.pk)
    assert across == _expected(hero.pk)
    assert across["matches"] == 4
    assert across["posing"][1] > 0
    assert _actual(hero.pk, first.pk) == _expected(hero.pk, first.pk)
    assert _actual(hero.pk, first.pk)["matches"] == 3

    page = client.get(f"/players/{hero.pk}/").content.decode()
    assert "Statistics" in page
    assert f"in {across['matches']} finished matches" in page


def test_leaderboards_rank_by_each_statistic(client: Any) -> None:
    tournament = _tournament()
    for seed in range(4):
        match = scheduled_match(tournament, n_players=3)
        play_match(match, director_of(tournament), seed)
    boards = tournament_leaders(tournament_id=tournament.pk)
    seats = list(Seat.objects.filter(match__tournament=tournament).select_related("entry"))
    for stat in SEAT_STATS:
        best = max(getattr(s, stat) for s in seats)
        if best:
            assert boards[stat].rows[0].value == best
            values = [row.value for row in boards[stat].rows]
            assert values == sorted(values, reverse=True)
        else:
            assert boards[stat].rows == []
    assert sum(r.value for r in boards["match_wins"].rows) == 4

    page = client.get(f"/stats/{tournament.slug}/")
    assert page.status_code == 200
    assert "Hands won" in page.content.decode()
    # Bug: "Resets caused (Six Love)" mixed a reset (R31, R32) up with a six-love (R31c).
    assert "Resets caused (R31, R32)" in page.content.decode()
    assert "Six Love" not in page.content.decode()
    tournament.status = "draft"
    tournament.save(update_fields=["status"])
    assert client.get(f"/stats/{tournament.slug}/").status_code == 404


@pytest.mark.parametrize(
    ("items", "widths"),
    [([("a", 3), ("b", 1)], [272.0, 90.7]), ([("a", 0), ("b", 0)], None)],
)
def test_bar_chart_scales_to_the_largest_value(items: Any, widths: Any) -> None:
    chart = bar_chart(items)
    if widths is None:
        assert chart is None
    else:
        assert chart is not None
        assert [b.width for b in chart.bars] == widths


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_statistics_chart_keeps_its_numbers_in_every_language(
    client: Any, language: str
) -> None:
    """SVG coordinates are numbers: a Spanish page wrote the bar widths as "272,0", which
    the browser drops (no bars, console errors)."""
    import re

    tournament = _tournament()
    hero = EntryFactory(tournament=tournament).player
    for seed in range(3):
        _play_with(tournament, hero, seed)
    page = client.get(f"/players/{hero.pk}/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    svg = page[page.index("<svg") : page.index("</svg>")]
    numbers = re.findall(r'\b(?:x|y|width|height)="([^"]*)"', svg)
    assert numbers, svg
    assert all(re.fullmatch(r"-?\d+(\.\d+)?", n) for n in numbers), numbers
