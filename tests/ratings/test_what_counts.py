"""What counts for ratings (ratings.selectors.rated_matches, README "Ratings"): only games played
at an event's tables. A match is rated when it is at a table of a round of a stage (T2), at
least one hand was completed, and the tournament is not a draft; a director's override of
such a match is rated by the director's placings (T4). A stand-alone match, an override of a
match with no hand played (a decision, like a forfeit, T7) and a draft's matches are not, so a
director of one event cannot move a player's rating, nor the seeding of the other events the
player entered (T8).

The security finding: co-director alice of one event entered another event's player, created
stand-alone matches with them and overrode each 0-6; three overrides took the player from
2257 to 1835, which the other event's seeding by rating then used.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from brackets import services as brackets
from brackets.models import RoundMatch, StageEntry
from ratings.models import PlayerRating, RatingChange
from ratings.selectors import seeding_ratings
from ratings.services import rating_update_for_match, ratings_rebuild, ratings_reconcile
from scoring.engine import Ruleset
from scoring.models import Match
from scoring.services import hand_record, match_forfeit, match_result_override
from tests.brackets.conftest import play_match
from tests.factories import (
    EntryFactory,
    PlayerFactory,
    TournamentFactory,
    at_round_table,
    director_of,
    match_in_progress,
)
from tournament.models import Entry, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

SHORT = {"target": 2}
# One hand that does not end a six-love match to 6: seat 2 dominoes (R33 needs the target).
HAND = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 2}


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    # Spectator broadcasts are not under test here.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def _running(**fields: Any) -> Tournament:
    return TournamentFactory(status="running", **fields)


def _short() -> Tournament:
    return _running(ruleset_overrides=SHORT, ruleset=Ruleset.from_preset("wsod", SHORT).to_json())


def _players(match: Match) -> list[int]:
    return list(match.seats.order_by("seat").values_list("entry__player_id", flat=True))


def _ratings() -> dict[int, tuple[float, float, int]]:
    return {r.player_id: (r.mu, r.sigma, r.matches) for r in PlayerRating.objects.all()}


def _history() -> list[tuple[int, int, float, float]]:
    return list(
        RatingChange.objects.order_by("rated_at", "match_id", "player_id").values_list(
            "player_id", "match_id", "mu_after", "sigma_after"
        )
    )


def _seeds(stage: Any) -> dict[int, int | None]:
    return dict(StageEntry.objects.filter(stage=stage).values_list("entry_id", "seed"))


def test_chain_entry_standalone_match_override_moves_no_rating_nor_seeding_t8() -> None:
    """The finding's chain, through the API, as co-director of event Y only: enter event X's
    player, create a stand-alone match with them and override it 0-6, three times. Every
    request is accepted (stand-alone matches stay possible), but nothing is rated: the
    player's rating, their seeding in X and every stored rating change are unchanged."""
    x = _running(name="Demo Pairs")
    director_x = director_of(x)
    star = PlayerFactory(name="Star", rating=2257)
    field = [PlayerFactory(rating=r) for r in (2100, 2000, 1900, 1800, 1700, 1600, 1500)]
    for player in [star, *field]:
        EntryFactory(tournament=x, player=player, checked_in=True)
    stage = brackets.stage_create(
        tournament=x,
        actor=director_x,
        name="Qualifying",
        kind="qualifying",
        rng_seed=7,
        swiss_rounds=1,
    )
    brackets.stage_seed(stage=stage, actor=director_x, method="rating")
    seeds = _seeds(stage)
    star_entry = Entry.objects.get(tournament=x, player=star)
    assert seeds[star_entry.pk] == 1  # the top seed by the rating typed for them (T8)
    # Someone already rated (at a round's table) keeps their rating too.
    elsewhere = _short()
    rated = at_round_table(match_in_progress(elsewhere, n_players=2))
    play_match(rated, director_of(elsewhere), seed=3)
    before, history = _ratings(), _history()
    assert before
    assert star.pk not in before

    y = _running(name="Demo Open")
    alice = director_of(y)  # an invited co-director of Y: a director role in Y only
    api = APIClient()
    api.force_authenticate(alice)
    other = EntryFactory(tournament=y).pk
    r = api.post(f"/api/tournaments/{y.slug}/entries/", {"player": star.pk}, format="json")
    assert r.status_code == 201, r.content
    mine = r.json()["id"]
    rated_player = _players(rated)[0]
    r = api.post(f"/api/tournaments/{y.slug}/entries/", {"player": rated_player}, format="json")
    assert r.status_code == 201, r.content
    rated_entry = r.json()["id"]
    for opponent in (other, rated_entry, other):
        r = api.post(
            f"/api/tournaments/{y.slug}/matches/", {"entries": [mine, opponent]}, format="json"
        )
        assert r.status_code == 201, r.content
        match_id = r.json()["id"]
        r = api.post(
            f"/api/matches/{match_id}/override/", {"scores": [0, 6], "reason": "x"}, format="json"
        )
        assert r.status_code == 200, r.content
        assert Match.objects.get(pk=match_id).end_reason == Match.EndReason.OVERRIDE

    assert _ratings() == before
    assert _history() == history
    assert not RatingChange.objects.filter(tournament=y).exists()
    assert seeding_ratings(player_ids=[star.pk]) == {star.pk: 2257.0}
    # The beat sweep and a full rebuild agree: nothing of Y counts.
    assert ratings_reconcile().changed is False
    ratings_rebuild()
    assert _ratings() == before
    assert _history() == history
    # X's seeding by rating is what it was.
    brackets.stage_seed(stage=stage, actor=director_x, method="rating")
    assert _seeds(stage) == seeds


def test_a_standalone_match_played_to_its_end_is_not_rated() -> None:
    """Hands played in full do not make a stand-alone match count: no round's table."""
    tournament = _short()
    match = match_in_progress(tournament, n_players=4)
    play_match(match, director_of(tournament), seed=3)
    match.refresh_from_db()
    assert (match.status, match.end_reason) == (Match.Status.FINISHED, Match.EndReason.NORMAL)
    assert match.hands_count > 0
    assert rating_update_for_match(match_id=match.pk).changed is False
    assert not RatingChange.objects.exists()
    assert not PlayerRating.objects.exists()


def test_an_override_at_a_round_table_with_no_hand_played_is_not_rated_t7() -> None:
    """An override before any hand is a decision, not a game (like a forfeit, T7)."""
    tournament = _running()
    director = director_of(tournament)
    match = at_round_table(match_in_progress(tournament, n_players=4))
    players = _players(match)
    typed = seeding_ratings(player_ids=players)
    match_result_override(
        match_id=match.pk, actor=director, scores=[6, 0, 0, 0], reason="table did not play"
    )
    match.refresh_from_db()
    assert (match.status, match.end_reason) == (Match.Status.FINISHED, Match.EndReason.OVERRIDE)
    assert match.hands_count == 0
    assert not RatingChange.objects.filter(match=match).exists()
    assert not PlayerRating.objects.filter(player_id__in=players).exists()
    assert seeding_ratings(player_ids=players) == typed


def test_an_override_at_a_round_table_after_hands_is_rated_by_the_directors_placings_t4() -> None:
    tournament = _running()
    director = director_of(tournament)
    match = at_round_table(match_in_progress(tournament, n_players=4))
    hand_record(match_id=match.pk, actor=director, expected_number=1, payload=HAND)
    match.refresh_from_db()
    assert (match.status, match.hands_count) == (Match.Status.IN_PROGRESS, 1)
    match_result_override(
        match_id=match.pk,
        actor=director,
        scores=[0, 0, 1, 6],
        placings=[4, 3, 2, 1],
        reason="referee error",
    )
    players = _players(match)
    changes = {c.player_id: c for c in RatingChange.objects.filter(match=match)}
    assert {p: changes[p].placing for p in players} == dict(zip(players, [4, 3, 2, 1], strict=True))
    assert changes[players[3]].mu_after > changes[players[3]].mu_before
    assert changes[players[0]].mu_after < changes[players[0]].mu_before
    ratings = seeding_ratings(player_ids=players)
    for p in players:
        assert ratings[p] == float(PlayerRating.objects.get(player_id=p).display)


def test_a_finished_round_match_is_rated_as_before() -> None:
    tournament = _short()
    match = at_round_table(match_in_progress(tournament, n_players=4))
    play_match(match, director_of(tournament), seed=3)
    match.refresh_from_db()
    assert match.end_reason == Match.EndReason.NORMAL
    placing = dict(match.seats.values_list("entry__player_id", "placing"))
    changes = {c.player_id: c.placing for c in RatingChange.objects.filter(match=match)}
    assert changes == placing
    assert PlayerRating.objects.filter(player_id__in=placing, matches=1).count() == 4


def test_a_drafts_matches_are_not_rated() -> None:
    """A match can only start while a tournament runs: one played at a round's table, in a
    tournament set back to draft (as the draft-visibility tests do), stops counting."""
    tournament = _short()
    match = at_round_table(match_in_progress(tournament, n_players=4))
    play_match(match, director_of(tournament), seed=3)
    assert RatingChange.objects.filter(match=match).count() == 4
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.DRAFT)
    assert rating_update_for_match(match_id=match.pk).changed is True
    assert not RatingChange.objects.exists()
    assert not PlayerRating.objects.exists()
    ratings_rebuild()
    assert not RatingChange.objects.exists()


def test_the_sweep_removes_ratings_of_matches_that_no_longer_count() -> None:
    """Ratings stored by an earlier release for a match that no longer counts (here: a match
    rated at a round's table, then unlinked, as a stand-alone match was stored) go at the
    next beat sweep, by themselves: its players are seeded by their typed rating again (T8),
    the other ratings stay, and a rebuild from scratch agrees."""
    tournament = _short()
    director = director_of(tournament)
    gone = at_round_table(match_in_progress(tournament, n_players=2))
    play_match(gone, director, seed=3)
    kept = at_round_table(match_in_progress(tournament, n_players=2))
    play_match(kept, director, seed=4)
    typed = {
        p: float(r) for p, r in gone.seats.values_list("entry__player_id", "entry__player__rating")
    }
    assert seeding_ratings(player_ids=typed) != typed
    others = {p: v for p, v in _ratings().items() if p not in typed}
    RoundMatch.objects.filter(match=gone).delete()

    assert ratings_reconcile().changed is True
    assert not RatingChange.objects.filter(match=gone).exists()
    assert seeding_ratings(player_ids=typed) == typed
    assert not PlayerRating.objects.filter(player_id__in=typed).exists()
    assert RatingChange.objects.filter(match=kept).count() == 2
    assert _ratings() == others
    assert ratings_reconcile().changed is False
    after = (_ratings(), _history())
    ratings_rebuild()
    assert (_ratings(), _history()) == after


def test_a_continuation_not_yet_linked_counts_through_the_match_it_continues_t7() -> None:
    """Brackets links a forfeit's continuation to the round when it next checks the round;
    the continuation is played at that round's table meanwhile, and is rated."""
    tournament = _short()
    director = director_of(tournament)
    match = at_round_table(match_in_progress(tournament, n_players=4))
    result = match_forfeit(match_id=match.pk, actor=director, seat=1, reason="left the hall")
    continuation = result.continuation
    assert continuation is not None
    RoundMatch.objects.filter(match=continuation).delete()  # the round check has not run
    play_match(continuation, director, seed=9)
    assert not RoundMatch.objects.filter(match=continuation).exists()
    assert not RatingChange.objects.filter(match=match).exists()  # the forfeit (T7)
    assert RatingChange.objects.filter(match=continuation).count() == 3
