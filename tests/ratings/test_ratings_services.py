"""Ratings from finished matches (ratings.services): idempotent per match, deterministic from
any point, and a correction changes exactly the ratings it affects."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management import call_command

from brackets import services as brackets
from ratings.model import display_rating
from ratings.models import PlayerRating, RatingChange
from ratings.selectors import seeding_ratings
from ratings.services import rating_update_for_match, ratings_reconcile
from scoring.engine import Ruleset
from scoring.models import Match
from scoring.services import hand_void_last, match_forfeit, match_result_override
from tests.brackets.conftest import make_tournament, play_match
from tests.factories import (
    EntryFactory,
    TournamentFactory,
    at_round_table,
    director_of,
    match_in_progress,
)
from tournament.models import Player
from tournament.services import player_update as update_player

pytestmark = pytest.mark.django_db(transaction=True)

SHORT = {"target": 2}


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    # Spectator broadcasts are not under test here.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def _tournament() -> Any:
    return TournamentFactory(
        status="running",
        ruleset_overrides=SHORT,
        ruleset=Ruleset.from_preset("wsod", SHORT).to_json(),
    )


def _played(tournament: Any, seed: int, n_players: int = 4) -> Match:
    """A match played to its end at a round's table (only those are rated, README)."""
    director = director_of(tournament)
    match = at_round_table(match_in_progress(tournament, n_players=n_players))
    play_match(match, director, seed)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    return match


def _snapshot() -> dict[int, tuple[float, float, int]]:
    return {r.player_id: (r.mu, r.sigma, r.matches) for r in PlayerRating.objects.all()}


def _history() -> list[tuple[int, int, float, float]]:
    return list(
        RatingChange.objects.order_by("rated_at", "match_id", "player_id").values_list(
            "player_id", "match_id", "mu_after", "sigma_after"
        )
    )


def test_a_finished_match_rates_its_players_by_placing() -> None:
    match = _played(_tournament(), seed=3)
    changes = {c.player_id: c for c in RatingChange.objects.filter(match=match)}
    placing = {s.entry.player_id: s.placing for s in match.seats.select_related("entry")}
    assert set(changes) == set(placing)
    winner = next(p for p, pl in placing.items() if pl == 1)
    assert changes[winner].mu_after > changes[winner].mu_before
    assert all(c.placing == placing[p] and c.table_size == 4 for p, c in changes.items())
    assert PlayerRating.objects.get(player_id=winner).display > 1000


def test_updating_again_changes_nothing() -> None:
    match = _played(_tournament(), seed=4)
    rows = list(RatingChange.objects.values_list("id", "mu_after", "sigma_after"))
    assert rating_update_for_match(match_id=match.pk).changed is False
    assert list(RatingChange.objects.values_list("id", "mu_after", "sigma_after")) == rows


def test_rebuild_from_scratch_equals_the_incremental_ratings() -> None:
    tournament = _tournament()
    for seed in range(5):
        _played(tournament, seed=seed, n_players=2 + seed % 3)
    before, history = _snapshot(), _history()
    call_command("ratings_recalculate", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert _history() == history
    assert _snapshot() == before


def test_a_forfeit_is_not_rated_and_its_continuation_is() -> None:
    tournament = _tournament()
    director = director_of(tournament)
    match = at_round_table(match_in_progress(tournament, n_players=4))
    result = match_forfeit(match_id=match.pk, actor=director, seat=1, reason="left the hall")
    assert result.continuation is not None  # wsod allows 3 players (T7)
    play_match(result.continuation, director, seed=9)
    assert not RatingChange.objects.filter(match=match).exists()
    assert RatingChange.objects.filter(match=result.continuation).count() == 3


def test_a_correction_changes_exactly_the_affected_ratings() -> None:
    tournament = _tournament()
    director = director_of(tournament)
    corrected = _played(tournament, seed=11)
    other = _played(tournament, seed=12)  # other players, later in the order
    table = {s.entry.player_id for s in corrected.seats.select_related("entry")}
    others = {s.entry.player_id for s in other.seats.select_related("entry")}
    before = _snapshot()

    # The director voids the hand that ended the match: in progress again, and unrated.
    hand_void_last(match_id=corrected.pk, actor=director, reason="wrong winner recorded")
    assert not RatingChange.objects.filter(match=corrected).exists()
    # Its players had no other rated match; the others' ratings stay.
    assert set(_snapshot()) == others
    # ... then settles it by override with the seats in reverse order.
    match_result_override(
        match_id=corrected.pk,
        actor=director,
        scores=[0, 0, 1, 2],
        placings=[4, 3, 2, 1],
        reason="referee error",
    )
    after = _snapshot()
    changed = {p for p in before if before[p] != after.get(p)}
    # Only the corrected table's players (one may keep the same placing, and rating).
    assert changed
    assert changed <= table
    assert all(before[p] == after[p] for p in others)
    assert RatingChange.objects.filter(match=corrected).count() == 4


def test_reconcile_rates_a_match_whose_update_was_lost() -> None:
    match = _played(_tournament(), seed=21)
    RatingChange.objects.all().delete()
    PlayerRating.objects.all().delete()
    result = ratings_reconcile()
    assert result.changed
    assert RatingChange.objects.filter(match=match).count() == 4
    assert ratings_reconcile().changed is False


def test_seeding_uses_the_system_rating_once_a_player_is_rated() -> None:
    match = _played(_tournament(), seed=5)
    rated = [s.entry.player for s in match.seats.select_related("entry__player")]
    newcomer = Player.objects.create(name="New", rating=1234)
    ratings = seeding_ratings(player_ids=[p.pk for p in rated] + [newcomer.pk])
    assert ratings[newcomer.pk] == 1234.0
    for p in rated:
        assert ratings[p.pk] == float(PlayerRating.objects.get(player=p).display)


def _event_ratings(offset: int) -> list[tuple[float, float, int]]:
    """Play a seeded 64-player event (fresh players) and return its players' ratings in
    player-creation order."""
    overrides = {"target": 3}
    tournament, director = make_tournament(
        64, ruleset_overrides=overrides, ruleset=Ruleset.from_preset("wsod", overrides).to_json()
    )
    players = list(
        Player.objects.filter(entries__tournament=tournament)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    stage = brackets.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        rng_seed=4242,
        swiss_rounds=2,
        cut_size=16,
        auto_advance=True,
    )
    brackets.stage_seed(stage=stage, actor=director, method="rating")
    brackets.round_publish(stage=stage, actor=director, expected_number=1)
    from tests.brackets.test_brackets_e2e import run_tournament

    run_tournament(tournament, director)
    current = {
        r.player_id: (r.mu, r.sigma, r.matches)
        for r in PlayerRating.objects.filter(player_id__in=players)
    }
    return [current.get(p, (0.0, 0.0, 0)) for p in players]


@pytest.mark.slow
def test_a_seeded_64_player_event_replayed_gives_identical_ratings() -> None:
    first = _event_ratings(0)
    second = _event_ratings(1)  # the same event again, with fresh players
    assert any(m for _, _, m in first)
    assert first == second


def test_profile_page_and_api_show_rating_and_history(client: Any) -> None:
    tournament = _tournament()
    match = _played(tournament, seed=6)
    winner = match.seats.select_related("entry__player").get(placing=1).entry.player
    rating = PlayerRating.objects.get(player=winner)

    page = client.get(f"/players/{winner.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert winner.name in html
    assert str(rating.display) in html
    assert tournament.name in html
    assert 'id="rating-chart-title"' not in html  # one match: a table, no line chart yet

    api = client.get(f"/api/players/{winner.pk}/rating/")
    assert api.status_code == 200
    body = api.json()
    assert body["rating"] == rating.display
    assert body["rated_matches"] == 1
    assert [h["match"] for h in body["history"]] == [match.pk]
    assert body["history"][0]["placing"] == 1

    _played(tournament, seed=7)  # other players: the winner's profile is unchanged
    second = _played(tournament, seed=8)
    assert client.get("/players/999999/").status_code == 404
    assert client.get("/api/players/999999/rating/").status_code == 404
    some = second.seats.select_related("entry").first().entry.player_id
    assert client.get(f"/api/players/{some}/rating/").json()["rated_matches"] == 1


def test_draft_tournaments_stay_out_of_profiles(client: Any) -> None:
    tournament = _tournament()
    match = _played(tournament, seed=6)
    player = match.seats.select_related("entry__player").first().entry.player
    EntryFactory(tournament=TournamentFactory(status="finished"), player=player)
    alone = match.seats.select_related("entry").last().entry.player_id  # only in this one
    tournament.status = "draft"
    tournament.save(update_fields=["status"])
    html = client.get(f"/players/{player.pk}/").content.decode()
    assert tournament.name not in html
    assert client.get(f"/api/players/{player.pk}/rating/").json()["history"] == []
    # A player of the draft alone is not public at all (tournament.selectors.player_visible).
    assert client.get(f"/players/{alone}/").status_code == 404
    assert client.get(f"/api/players/{alone}/rating/").status_code == 404


def test_the_first_rated_match_starts_from_the_typed_rating_t8() -> None:
    """A champion entered at 1690 who wins is not seeded below a newcomer typed at 1500 (the
    walkthrough's finding: every player used to restart at 1000)."""
    tournament = _tournament()
    match = at_round_table(match_in_progress(tournament, n_players=4))
    players = [s.entry.player for s in match.seats.select_related("entry__player").order_by("seat")]
    for player, typed in zip(players, (1690, 1500, None, 800), strict=True):
        Player.objects.filter(pk=player.pk).update(rating=typed)
    play_match(match, director_of(tournament), seed=3)
    match.refresh_from_db()
    changes = {c.player_id: c for c in RatingChange.objects.filter(match=match)}
    for player, typed in zip(players, (1690, 1500, None, 800), strict=True):
        before = changes[player.pk]
        assert display_rating(before.mu_before, before.sigma_before) == (typed or 1000)
    winner = next(s.entry.player_id for s in match.seats.select_related("entry") if s.placing == 1)
    typed_of = {p.pk: t for p, t in zip(players, (1690, 1500, None, 800), strict=True)}
    assert seeding_ratings(player_ids=[winner])[winner] > (typed_of[winner] or 1000)


def test_changing_a_typed_rating_rebuilds_from_the_players_first_rated_match() -> None:
    tournament = _tournament()
    first = _played(tournament, seed=5)
    _played(tournament, seed=6)
    player = first.seats.select_related("entry__player").order_by("seat")[0].entry.player
    rated = PlayerRating.objects.get(player=player).display
    others = {p: v for p, v in _snapshot().items() if p != player.pk}
    # Higher than where they started, whatever it was, within the field's limit (9999): the
    # factory's ratings reach 9499 (+900 was refused at 10029 when the sequence ran high).
    typed = min((player.rating or 1000) + 900, 9999)
    update_player(player=player, actor=director_of(tournament), data={"rating": typed})
    # Celery runs eagerly in tests: the handler rebuilt already.
    assert PlayerRating.objects.get(player=player).display > rated
    start = RatingChange.objects.filter(player=player).order_by("rated_at", "match_id").first()
    assert start is not None
    assert display_rating(start.mu_before, start.sigma_before) == typed
    # Only the player and those who met them after move; a rebuild from scratch agrees.
    after, history = _snapshot(), _history()
    call_command("ratings_recalculate", stdout=open("/dev/null", "w"))  # noqa: SIM115
    assert _snapshot() == after
    assert _history() == history
    assert set(others) <= set(after)


def test_a_typed_rating_change_before_any_rated_match_rebuilds_nothing() -> None:
    tournament = _tournament()
    _played(tournament, seed=7)
    history = _history()
    newcomer = EntryFactory(tournament=tournament).player
    update_player(player=newcomer, actor=director_of(tournament), data={"rating": 1800})
    assert _history() == history
    assert seeding_ratings(player_ids=[newcomer.pk])[newcomer.pk] == 1800
