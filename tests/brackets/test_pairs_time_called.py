"""Time called at a partnership table (T3 read by R42/T10): the partnerships are placed by their
score, who reached it first, then the *partnership's* hands won (R46), never by one partner's."""

from __future__ import annotations

from typing import Any

import pytest

from brackets import services
from brackets.models import Round, RoundMatch
from core.exceptions import ApplicationError
from scoring.models import Match, Seat
from scoring.services import hand_record, match_result_override, match_start
from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages
from tournament.models import ActionLog

pytestmark = pytest.mark.django_db


def _pairs_table() -> tuple[Any, Any, Round, int]:
    """A two-partnership event's one round-1 table, started: tournament, director, round,
    match id."""
    t, d, _ = make_pairs_tournament(2)
    q, _ = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    rnd = services.round_publish(stage=q, actor=d)
    match_id = RoundMatch.objects.get(round=rnd).match_id
    match_start(match_id=match_id, actor=d, lot_winner=0)
    return t, d, rnd, match_id


def _call_time(rnd: Round, director: Any) -> None:
    services.round_clock_start(round=rnd, actor=director, minutes=45)
    services.round_call_time(round=rnd, actor=director, reason="clock ran out")


def _play(match_id: int, director: Any, winners: list[int]) -> list[int]:
    """Record a domino by each seat of ``winners`` in turn, posed by the seat the engine names
    (R7, R44), or after a reset by the 6-6 holder, here the winner-to-be (R5, R8); returns the
    scores after the last hand."""
    body: dict[str, Any] = {"match": {"next_hand": {"poser": None, "forced_tile": "6-6"}}}
    for number, winner in enumerate(winners, start=1):
        upcoming = body["match"]["next_hand"]
        forced = upcoming["poser"] is None
        result = hand_record(
            match_id=match_id,
            actor=director,
            expected_number=number,
            payload={
                "poser": winner if forced else upcoming["poser"],
                "pose_tile": upcoming["forced_tile"] if forced else "5-4",
                "end": "domino",
                "winner": winner,
            },
        )
        body = result.body
    return list(body["match"]["scores"])


def test_level_partnerships_share_first_though_one_partner_won_most_hands() -> None:
    t, d, rnd, match_id = _pairs_table()
    # A, B (both partnerships have scored: R44 resets to love), A, D (reset again). Each
    # partnership won 2 hands; A alone won 2, as many as B and D together.
    scores = _play(match_id, d, [0, 1, 0, 3])
    assert scores == [0, 0, 0, 0]
    hands_won = dict(Seat.objects.filter(match_id=match_id).values_list("seat", "hands_won"))
    assert hands_won == {0: 2, 1: 1, 2: 0, 3: 1}

    _call_time(rnd, d)

    match = Match.objects.get(pk=match_id)
    assert (match.status, match.end_reason) == ("finished", "time")
    placings = dict(Seat.objects.filter(match=match).values_list("seat", "placing"))
    # T3/T10: level on score (love), on hands won (2 and 2): they share first, no match win.
    assert placings == {0: 1, 1: 1, 2: 1, 3: 1}
    assert match.winner_seat is None
    log = ActionLog.objects.get(tournament=t, verb="round.call_time")
    assert log.data["ended"][str(match_id)]["winner"] is None


def test_the_partnership_with_more_hands_won_places_first_not_the_best_partner() -> None:
    _, d, rnd, match_id = _pairs_table()
    # A, B (reset), A, D (reset), B, D, A (reset): level on love. A alone won 3 hands, more
    # than B or D (2 each), but BD won 4 hands to AC's 3: BD places first (T3, T10, R46).
    scores = _play(match_id, d, [0, 1, 0, 3, 1, 3, 0])
    assert scores == [0, 0, 0, 0]
    hands_won = dict(Seat.objects.filter(match_id=match_id).values_list("seat", "hands_won"))
    assert hands_won == {0: 3, 1: 2, 2: 0, 3: 2}
    _call_time(rnd, d)
    match = Match.objects.get(pk=match_id)
    placings = dict(Seat.objects.filter(match=match).values_list("seat", "placing"))
    assert placings == {0: 3, 1: 1, 2: 3, 3: 1}
    assert match.winner_seat == 1


def test_a_final_ended_level_tells_the_director_how_to_go_on_t3_t10() -> None:
    """A final that time leaves level cannot be advanced; the message says what the pages
    offer (a sudden-death hand at the table, entered with Override), and that works."""
    t, d, _ = make_pairs_tournament(2)
    q, k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    match_id = RoundMatch.objects.get(round=r1).match_id
    match_result_override(match_id=match_id, actor=d, scores=[6, 0, 6, 0], reason="sheet")
    services.round_close(round=r1, actor=d)
    services.stage_advance(stage=q, actor=d)
    final = services.round_publish(stage=k, actor=d)
    assert final.kind == Round.Kind.FINAL
    final_id = RoundMatch.objects.get(round=final).match_id
    match_start(match_id=final_id, actor=d, lot_winner=0)
    _call_time(final, d)
    with pytest.raises(ApplicationError) as exc:
        services.round_advance(round_id=final.pk, actor=d)
    assert "enter its winner with Override (placings), then advance" in str(exc.value)
    match_result_override(
        match_id=final_id, actor=d, scores=[0, 0, 0, 0], placings=[3, 1, 3, 1], reason="sd"
    )
    services.round_advance(round_id=final.pk, actor=d)
