"""Complete tournaments end to end through the services, every match played by the rules
engine's simulator through ``scoring.services.hand_record`` (issue "Done when")."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest
from django.db.models import Count

from brackets import services
from brackets.engine import plan_tables
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.selectors import standings_for_stage, tournament_placings
from scoring.engine import Ruleset
from scoring.models import Match, Seat
from tests.brackets.conftest import make_tournament, play_round
from tournament.models import Tournament


def current_round(tournament: Tournament) -> Round | None:
    return (
        Round.objects.filter(stage__tournament=tournament, status=Round.Status.PUBLISHED)
        .order_by("stage__number", "number")
        .first()
    )


def n_seed(tournament: Tournament) -> int:
    return tournament.entries.count()


def run_tournament(tournament: Tournament, director: Any, *, max_rounds: int = 40) -> int:
    """Play published rounds until nothing is published any more; auto-advance does the rest."""
    rounds = 0
    while (rnd := current_round(tournament)) is not None:
        play_round(rnd, director, seed=n_seed(tournament))
        rounds += 1
        assert rounds <= max_rounds, "the tournament does not end"
    return rounds


def round_players(rnd: Round) -> list[int]:
    first_match_per_table: dict[int, int] = {}
    for table_number, match_id in (
        RoundMatch.objects.filter(round=rnd)
        .order_by("table_number", "match_id")
        .values_list("table_number", "match_id")
    ):
        first_match_per_table.setdefault(table_number, match_id)
    seated = list(
        Seat.objects.filter(match_id__in=first_match_per_table.values()).values_list(
            "entry_id", flat=True
        )
    )
    return seated + list(rnd.byes)


def check_tournament(tournament: Tournament, n: int) -> None:
    stages = list(Stage.objects.filter(tournament=tournament).order_by("number"))
    assert all(s.status == Stage.Status.FINISHED for s in stages)
    for stage in stages:
        entrants = {e.entry_id: e for e in StageEntry.objects.filter(stage=stage)}
        for rnd in stage.rounds.order_by("number"):
            assert rnd.status == Round.Status.CLOSED
            assert rnd.advanced_at is not None
            players = round_players(rnd)
            # Every player seated exactly once per round they play.
            assert len(players) == len(set(players)), f"{rnd}: a player sits twice"
            sizes = sorted(
                (
                    Seat.objects.filter(match__round_link__round=rnd)
                    .values("match_id")
                    .annotate(n=Count("id"))
                    .values_list("n", flat=True)
                ),
                reverse=True,
            )
            if rnd.kind == Round.Kind.PLAYOFF:
                assert set(players) == set(rnd.playoff_players)
                continue
            # Table sizes follow T1 (4s, then the fewest 3s; byes only when unavoidable).
            plan = plan_tables(len(players), allow_three=stage.allow_three)
            assert tuple(sizes) == plan.sizes, f"{rnd}: {sizes} vs {plan}"
            assert len(rnd.byes) == plan.byes
            # Who plays: every entrant still in at that round, nobody else.
            expected = {
                p
                for p, e in entrants.items()
                if e.joined_round <= rnd.number
                and (e.out_round is None or e.out_round >= rnd.number)
            }
            assert set(players) == expected, f"{rnd}: wrong field"
        if stage.kind == Stage.Kind.KNOCKOUT:
            final = stage.rounds.get(kind=Round.Kind.FINAL)
            match = Match.objects.get(round_link__round=final)
            assert match.status == Match.Status.FINISHED
            assert match.end_reason == "normal"
            assert match.n_players == stage.final_table_size
            # T6: the final's result places its players; players level at the table take
            # the places their shared placing covers, in the stage's standings order (T5),
            # and a shared first stays shared (T3).
            table = list(Seat.objects.filter(match=match).values_list("entry_id", "placing"))
            placings = [placing for _, placing in table]
            for entry_id, placing in table:
                assert placing is not None
                place = entrants[entry_id].placing
                assert place is not None
                assert placing <= place < placing + placings.count(placing)
                if placing == 1:
                    assert place == 1
    tournament.refresh_from_db()
    assert tournament.status == "finished"  # the final table ended the tournament
    placings = tournament_placings(tournament_id=tournament.pk)
    assert len(placings) == n
    assert {p.entry_id for p in placings} == set(tournament.entries.values_list("id", flat=True))
    # Competition places 1..n: players level in the standings share a place (1, 2, 2, 4).
    places = sorted(p.place for p in placings)
    assert places[0] == 1
    for i in range(1, n):
        assert places[i] in (i + 1, places[i - 1]), f"place {places[i]} at position {i + 1}"
    assert all(p.place <= 4 for p in placings[:4])
    # Consistent with standings: within each stage, the players who went out after the last
    # round are placed in standings order; players who went further place higher.
    for stage in stages:
        rank = {r.player_id: r.rank for r in standings_for_stage(stage_id=stage.pk)}
        out = StageEntry.objects.filter(stage=stage, status=StageEntry.Status.ELIMINATED)
        last_round = stage.rounds.filter(kind__in=["swiss", "knockout"]).order_by("-number").first()
        final_out = [e for e in out if last_round and e.out_round == last_round.number]
        # A better standings rank never places lower (level players may be split by a
        # play-off table, T6).
        for a, b in itertools.combinations(final_out, 2):
            if rank[a.entry_id] < rank[b.entry_id]:
                assert (a.placing or 0) <= (b.placing or 0), f"{stage}: {a} placed below {b}"
        if stage.kind == Stage.Kind.KNOCKOUT:
            worst_by_round: dict[int, int] = {}
            best_by_round: dict[int, int] = {}
            for e in out:
                if e.out_round is None or e.placing is None:
                    continue
                worst_by_round[e.out_round] = max(worst_by_round.get(e.out_round, 0), e.placing)
                best_by_round[e.out_round] = min(best_by_round.get(e.out_round, 10**9), e.placing)
            rounds = sorted(worst_by_round)
            for earlier, later in itertools.pairwise(rounds):
                assert best_by_round[earlier] > worst_by_round[later]


# The big fields play to 3 instead of 6 (about 6 hands a match instead of 32) to keep the
# suite's time reasonable; every hand still goes through hand_record and the rules engine.
FORMATS: dict[int, dict[str, Any]] = {
    4: {"qualifying": {"swiss_rounds": 2, "cut_size": 4}, "knockout": {}},
    7: {"qualifying": {"swiss_rounds": 3, "cut_size": 4}, "knockout": {}},
    13: {"qualifying": {"swiss_rounds": 3, "cut_size": 8}, "knockout": {"advance_per_table": 1}},
    64: {
        "qualifying": {"swiss_rounds": 3, "cut_size": 32},
        "knockout": {"advance_per_table": 2},
        "ruleset_overrides": {"target": 3},
    },
    301: {
        "qualifying": {"swiss_rounds": 3, "cut_size": 64},
        "knockout": {"advance_per_table": 1},
        "ruleset_overrides": {"target": 3},
    },
}


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    # Spectator broadcasts are not under test here; Redis round trips per hand are slow.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("n", [4, 7, 13, 64, pytest.param(301, marks=pytest.mark.slow)])
def test_complete_tournament(n: int) -> None:
    fmt = FORMATS[n]
    overrides = fmt.get("ruleset_overrides", {})
    tournament, director = make_tournament(
        n,
        referees=3,
        ruleset_overrides=overrides,
        ruleset=Ruleset.from_preset("wsod", overrides).to_json(),
    )
    qualifying = services.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        rng_seed=1000 + n,  # recorded seeds: the run replays (STYLE.md §1)
        auto_advance=True,
        **fmt["qualifying"],
    )
    services.stage_create(
        tournament=tournament,
        actor=director,
        name="Knockout",
        kind="knockout",
        rng_seed=2000 + n,
        auto_advance=True,
        **fmt["knockout"],
    )
    services.stage_seed(stage=qualifying, actor=director, method="rating")
    services.round_publish(stage=qualifying, actor=director, expected_number=1)
    rounds = run_tournament(tournament, director)
    assert rounds >= fmt["qualifying"]["swiss_rounds"] + 1
    check_tournament(tournament, n)
    counts = Counter(
        Round.objects.filter(stage__tournament=tournament).values_list("kind", flat=True)
    )
    assert counts["final"] == 1
    print(f"{n} players: rounds by kind {dict(counts)}")  # shown with -s
