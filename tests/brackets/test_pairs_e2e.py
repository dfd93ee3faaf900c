"""Pairs events end to end (issue 17, T9-T11): registration to champion through the real
services, every match played by the rules engine's simulator through ``hand_record``."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from brackets import services
from brackets.models import Round, RoundMatch, Stage, StageEntry
from scoring.models import Match, Seat
from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages
from tests.brackets.test_brackets_e2e import run_tournament
from tournament.models import PartnershipMember, Tournament


def pair_of(tournament: Tournament) -> dict[int, int]:
    return dict(
        PartnershipMember.objects.filter(partnership__tournament=tournament).values_list(
            "entry_id", "partnership_id"
        )
    )


def round_tables(rnd: Round, pairs: dict[int, int]) -> list[tuple[int, int]]:
    """(AC, BD) partnerships of every table, checking partners sit opposite (R42)."""
    out = []
    for link in RoundMatch.objects.filter(round=rnd).order_by("table_number"):
        seats = list(
            Seat.objects.filter(match_id=link.match_id)
            .order_by("seat")
            .values_list("entry_id", flat=True)
        )
        assert len(seats) == 4
        assert pairs[seats[0]] == pairs[seats[2]]
        assert pairs[seats[1]] == pairs[seats[3]]
        assert pairs[seats[0]] != pairs[seats[1]]
        out.append((pairs[seats[0]], pairs[seats[1]]))
    return out


def check_pairs_event(tournament: Tournament, n: int, cut: int) -> None:
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED
    pairs = pair_of(tournament)
    q, k = Stage.objects.filter(tournament=tournament).order_by("number")
    assert q.status == k.status == Stage.Status.FINISHED
    met: Counter[tuple[int, int]] = Counter()
    for rnd in q.rounds.filter(kind=Round.Kind.SWISS).order_by("number"):
        assert rnd.status == Round.Status.CLOSED
        assert rnd.advanced_at is not None
        tables = round_tables(rnd, pairs)
        seated = [p for t in tables for p in t] + list({pairs[e] for e in rnd.byes})
        assert len(seated) == len(set(seated)) == n  # every partnership once (T9)
        assert len(rnd.byes) == 2 * (n % 2)  # an odd partnership out (T9, T1)
        met.update(tuple(sorted(t)) for t in tables)
    # Swiss avoids repeat opposing partnerships where possible (T9): with 8+ partnerships
    # and 3-4 rounds it always is.
    assert max(met.values()) == 1
    # The cut (T10): exactly ``cut`` partnerships reach the knockout, both partners each.
    ko_entries = list(StageEntry.objects.filter(stage=k).order_by("seed"))
    assert len(ko_entries) == 2 * cut
    assert len({pairs[e.entry_id] for e in ko_entries}) == cut
    # Knockout (T10): each table's winner goes on; an odd field gives the top seed a bye
    # (T9, T1): 6 partnerships -> 3 winners -> the top seed sits out, the other two play.
    sizes = [
        (RoundMatch.objects.filter(round=r).count(), len(r.byes) // 2)
        for r in k.rounds.filter(kind=Round.Kind.KNOCKOUT).order_by("number")
    ]
    expected, field_ = [], cut
    while field_ > 2:
        expected.append((field_ // 2, field_ % 2))
        field_ = field_ // 2 + field_ % 2
    assert sizes == expected
    final = k.rounds.get(kind=Round.Kind.FINAL)
    ((ac, bd),) = round_tables(final, pairs)
    match = Match.objects.get(round_link__round=final)
    assert match.status == Match.Status.FINISHED
    # R42/T4: both partners of the winning partnership hold placing 1.
    firsts = {
        pairs[e]
        for e in Seat.objects.filter(match=match, placing=1).values_list("entry_id", flat=True)
    }
    assert len(firsts) == 1
    (winner_pair,) = firsts
    # Places: champion partnership 1st (both players), finalist 2nd.
    places = {
        e.entry_id: e.placing for e in StageEntry.objects.filter(stage=k, placing__isnull=False)
    }
    champions = [e for e, pl in places.items() if pl == 1]
    assert {pairs[e] for e in champions} == {winner_pair}
    assert len(champions) == 2
    runner_up = {ac, bd} - {winner_pair}
    assert {pairs[e] for e, pl in places.items() if pl == 2} == runner_up


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    # Spectator broadcasts are not under test here; Redis round trips per hand are slow.
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("n", "swiss_rounds", "cut"),
    [(8, 3, 4), (14, 3, 6), (64, 4, 8)],
    ids=["8-partnerships", "14-partnerships", "64-partnerships"],
)
def test_pairs_event_plays_from_registration_to_champion(
    n: int, swiss_rounds: int, cut: int
) -> None:
    tournament, director, _ = make_pairs_tournament(n, ruleset_overrides={"target": 3})
    q, _k = pairs_stages(tournament, director, swiss_rounds=swiss_rounds, cut_size=cut)
    services.stage_seed(stage=q, actor=director, method="rating")
    services.round_publish(stage=q, actor=director)
    run_tournament(tournament, director, max_rounds=swiss_rounds + 8)
    check_pairs_event(tournament, n, cut)
