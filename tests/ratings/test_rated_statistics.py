"""The counts shown next to a rating count exactly the matches the rating counts
(``ratings.selectors.rated_matches``, README "Ratings"): a stand-alone match (created directly,
in no round) is never rated, so it is never one of a player's rated matches on the profile, the
directory or the rating API; the profile's statistics of every finished match say that they
count it. A match win is a first place alone (T3: a shared first is none; R42: both partners of
the first partnership win), in the statistics and the rated record alike. Runs embedded
(SQLite) too."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from ratings.models import PlayerRating, RatingChange
from ratings.selectors import RatedRecord, player_profile, rated_matches, rated_records
from ratings.services import rating_update_for_match, ratings_rebuild, ratings_reconcile
from ratings.stats import player_stats, tournament_leaders
from scoring.engine import Ruleset
from scoring.models import Match, Seat
from tests.brackets.conftest import play_match
from tests.factories import (
    EntryFactory,
    PlayerFactory,
    TournamentFactory,
    at_round_table,
    director_of,
    scheduled_match,
)
from tournament.models import Entry, Player, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

SHORT = {"target": 2}


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    # Spectator broadcasts are not under test here.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def _tournament() -> Tournament:
    return TournamentFactory(
        status="running",
        ruleset_overrides=SHORT,
        ruleset=Ruleset.from_preset("wsod", SHORT).to_json(),
    )


def _entry(tournament: Tournament, player: Player) -> Entry:
    entry = tournament.entries.filter(player=player).first()
    return entry or EntryFactory(tournament=tournament, player=player)


def _played(tournament: Tournament, player: Player, seed: int, *, at_a_round: bool) -> Match:
    """A 3-player match played to its end with ``player`` in seat ``seed % 3``: at a round's
    table, or stand-alone (as ``POST /api/tournaments/<slug>/matches/`` creates it)."""
    match = scheduled_match(tournament, n_players=3)
    Seat.objects.filter(match=match, seat=seed % 3).update(entry=_entry(tournament, player))
    if at_a_round:
        at_round_table(match)
    play_match(match, director_of(tournament), seed)
    match.refresh_from_db()
    assert (match.status, match.end_reason) == (Match.Status.FINISHED, Match.EndReason.NORMAL)
    return match


def _wins(player: Player, matches: list[Match]) -> int:
    """Match wins counted in Python: first, and nobody else first at the table (T3)."""
    wins = 0
    for match in matches:
        placings = dict(match.seats.values_list("entry__player_id", "placing"))
        wins += placings[player.pk] == 1 and list(placings.values()).count(1) == 1
    return wins


def _skill(player: Player) -> tuple[float, float, int]:
    r = PlayerRating.objects.get(player=player)
    return (r.mu, r.sigma, r.matches)


def _history() -> list[tuple[int, int, float, float]]:
    return list(
        RatingChange.objects.order_by("match_id", "player_id").values_list(
            "match_id", "player_id", "mu_after", "sigma_after"
        )
    )


def test_a_standalone_match_is_in_no_rated_count_and_leaves_the_rating_alone(
    client: Any,
) -> None:
    tournament = _tournament()
    hero = PlayerFactory(name="Hero Player")
    rounds = [_played(tournament, hero, seed, at_a_round=True) for seed in (1, 2, 4)]
    rated = _skill(hero)
    assert rated[2] == 3
    history = _history()

    friendly = _played(tournament, hero, 5, at_a_round=False)

    # The rating is what it was: the stand-alone match is not rated, now or after a rebuild.
    assert _skill(hero) == rated
    assert not RatingChange.objects.filter(match=friendly).exists()
    assert ratings_reconcile().changed is False
    ratings_rebuild()
    assert _skill(hero) == rated
    assert _history() == history
    assert set(rated_matches().filter(seats__entry__player=hero).values_list("pk", flat=True)) == {
        m.pk for m in rounds
    }

    # The rated record counts the three round matches only.
    record = rated_records(player_ids=[hero.pk])[hero.pk]
    assert record == RatedRecord(matches=3, wins=_wins(hero, rounds))
    profile = player_profile(player_id=hero.pk)
    assert profile is not None
    assert (profile.rated_matches, profile.rated_wins) == (3, record.wins)
    assert len(profile.history) == 3

    # The statistics of every finished match count the friendly too, and say so.
    stats = player_stats(player_id=hero.pk)
    assert stats.matches == 4
    assert stats.match_wins == _wins(hero, [*rounds, friendly])

    page = client.get(f"/players/{hero.pk}/").content.decode()
    rated_cell = re.search(r'<dd id="rated-matches">(\d+)', page)
    assert rated_cell is not None
    assert rated_cell.group(1) == "3"
    assert "stand-alone matches and forfeits included" in page
    assert "in 4 finished matches (rated or not)." in page

    directory = client.get("/players/").content.decode()
    row = re.search(rf'<tr data-player="{hero.pk}">(.*?)</tr>', directory, re.S)
    assert row is not None
    assert re.findall(r'<td class="num">(\d+)</td>', row.group(1))[-1] == "3"

    body = APIClient().get(f"/api/players/{hero.pk}/rating/").json()
    assert body["rated_matches"] == 3
    assert len(body["history"]) == 3
    assert friendly.pk not in {h["match"] for h in body["history"]}


def test_a_player_with_only_standalone_matches_has_no_rated_match(client: Any) -> None:
    tournament = _tournament()
    hero = PlayerFactory(name="Friendly Only")
    _played(tournament, hero, 1, at_a_round=False)
    assert rated_records(player_ids=[hero.pk]) == {}
    profile = player_profile(player_id=hero.pk)
    assert profile is not None
    assert (profile.rating, profile.rated_matches, profile.rated_wins) == (None, 0, 0)
    assert player_stats(player_id=hero.pk).matches == 1
    page = client.get(f"/players/{hero.pk}/").content.decode()
    assert '<dd id="rated-matches">0</dd>' in page
    assert "1 finished match (rated or not)" in page


def _decided(
    tournament: Tournament, players: list[Player], placings: list[int], **kw: Any
) -> Match:
    """A finished match at a round's table with these placings (hands played, so rated)."""
    match = Match.objects.create(
        tournament=tournament,
        n_players=len(players),
        scores=[0] * len(players),
        status=Match.Status.FINISHED,
        end_reason=kw.get("end_reason", Match.EndReason.TIME),
        started_at=timezone.now(),
        finished_at=timezone.now(),
        hands_count=1,
        ruleset=kw.get("ruleset", tournament.ruleset),
    )
    for seat, (player, placing) in enumerate(zip(players, placings, strict=True)):
        Seat.objects.create(
            match=match, seat=seat, entry=_entry(tournament, player), placing=placing
        )
    at_round_table(match)
    rating_update_for_match(match_id=match.pk)
    return match


def test_a_shared_first_is_no_match_win_t3_and_both_partners_win_r42() -> None:
    tournament = _tournament()
    a, b, c, d = (PlayerFactory(name=n) for n in ("Ana", "Bea", "Cai", "Dan"))
    # Time called with two players level on every key (T3): they share 1st, neither wins.
    _decided(tournament, [a, b, c], [1, 1, 3])
    # A partnership table (R42): AC first, both partners win; then level partnerships.
    partners = Ruleset.from_preset("wsod_partners").to_json()
    _decided(tournament, [a, b, c, d], [1, 3, 1, 3], ruleset=partners)
    _decided(tournament, [a, b, c, d], [1, 1, 1, 1], ruleset=partners)
    # A table won alone.
    _decided(tournament, [b, c, d], [1, 2, 3], end_reason=Match.EndReason.NORMAL)

    expected = {a: (3, 1), b: (4, 1), c: (4, 1), d: (3, 0)}
    records = rated_records(player_ids=[p.pk for p in expected])
    assert {p: (records[p.pk].matches, records[p.pk].wins) for p in expected} == expected
    for player, (matches, wins) in expected.items():
        stats = player_stats(player_id=player.pk)
        assert (stats.matches, stats.match_wins) == (matches, wins)
        assert PlayerRating.objects.get(player=player).matches == matches
    board = tournament_leaders(tournament_id=tournament.pk)["match_wins"]
    assert {row.player_id: row.value for row in board.rows} == {a.pk: 1, b.pk: 1, c.pk: 1}
