"""A four-player qualifying table with hands, then a mid-match withdrawal (T7): the forfeit and
the continuation the others play on in. Built through the services (factories for the
tournament and entries), so the same event replays on every run.

Hands of the forfeited match: C wins 2, then B wins 3 and D wins 4 -> 0-1-1-1 (R31: nobody at the
target); C withdraws (T7). The continuation (A, B, D) is won by B with six hands, six-love to A
and D (R31c).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brackets import services
from brackets.models import Round, RoundMatch, Stage
from scoring.models import Match
from scoring.services import hand_record
from tests.brackets.conftest import make_tournament
from tournament.models import Entry, Tournament


@dataclass
class ForfeitEvent:
    tournament: Tournament
    director: Any
    stage: Stage
    round: Round
    forfeited: Match
    continuation: Match
    entries: list[int]  # seat order of the forfeited match: A, B, C, D
    leaver: int  # C


def _win(match: Match, actor: Any, winner: int) -> None:
    """One hand won by domino by ``winner``; the poser is the one the match names (R5-R10)."""
    match.refresh_from_db()
    nh = match.next_hand or {}
    poser = nh.get("poser")
    if poser is None:
        poser = winner
    tile = nh.get("forced_tile") if nh.get("forced") else "5-4"
    hand_record(
        match_id=match.pk,
        actor=actor,
        expected_number=match.hands_count + 1,
        payload={"poser": poser, "pose_tile": tile or "5-4", "end": "domino", "winner": winner},
    )


def forfeit_event(*, finish: bool = True, sudden_death: bool = False) -> ForfeitEvent:
    """``sudden_death``: time is called (T3) before the withdrawal, the table kept for a
    sudden-death hand; its continuation inherits it (README rule decisions, T7), so ``finish``
    ends it with its first hand won."""
    t, d = make_tournament(4)
    stage = services.stage_create(
        tournament=t,
        actor=d,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=2,
        rng_seed=7,
        auto_advance=True,
    )
    services.stage_seed(stage=stage, actor=d)
    rnd = services.round_publish(stage=stage, actor=d)
    match = Match.objects.get(round_link__round=rnd)
    entries = list(match.seats.order_by("seat").values_list("entry_id", flat=True))
    from scoring.services import match_start

    match_start(match_id=match.pk, actor=d)
    for winner in (2, 1, 3):
        _win(match, d, winner)
    match.refresh_from_db()
    assert match.scores == [0, 1, 1, 1], match.scores
    leaver = entries[2]
    if sudden_death:
        services.round_call_time(round=rnd, actor=d, reason="hour up", sudden_death=[match.pk])
    services.stage_entry_withdraw(
        stage=stage, actor=d, entry=Entry.objects.get(pk=leaver), reason="left the hall"
    )
    match.refresh_from_db()
    continuation = Match.objects.get(continues=match)
    if finish:
        from scoring.services import match_start as start

        start(match_id=continuation.pk, actor=d)
        while True:
            continuation.refresh_from_db()
            if continuation.status == Match.Status.FINISHED:
                break
            _win(continuation, d, 1)
    assert RoundMatch.objects.filter(match=continuation, round=rnd).exists()
    return ForfeitEvent(t, d, stage, rnd, match, continuation, entries, leaver)
