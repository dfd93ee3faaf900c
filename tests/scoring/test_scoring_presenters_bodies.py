"""The recording hot path builds its JSON directly; it must equal the documented serializers."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.utils.encoders import JSONEncoder

from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.models import Hand, Match
from scoring.presenters.bodies import (
    HandRecordedSerializer,
    HandSerializer,
    MatchStateSerializer,
    hand_body,
    hand_recorded_body,
    match_state_body,
)
from scoring.services import hand_record, hand_void_last
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of

pytestmark = pytest.mark.django_db


def plain(data: Any) -> Any:
    return json.loads(json.dumps(data, cls=JSONEncoder))


def test_direct_bodies_equal_the_serializers_through_a_whole_match() -> None:
    tournament = TournamentFactory()
    referee = referee_of(tournament)
    sim = simulate_match(Ruleset.from_preset("wsod"), 4, seed=11)
    match = match_in_progress(tournament, referee=referee, lot_winner=sim.lot_winner)
    assert match_state_body(match) == plain(MatchStateSerializer(match).data)
    for number, record in enumerate(sim.records, start=1):
        result = hand_record(
            match_id=match.pk,
            actor=referee,
            expected_number=number,
            payload=record.to_dict(),
            idempotency_key=f"k{number}",
        )
        assert result.status == 201
        hand = Hand.objects.get(match=match, number=number, void=False)
        match = Match.objects.get(pk=match.pk)
        assert hand_body(hand) == plain(HandSerializer(hand).data)
        assert match_state_body(match) == plain(MatchStateSerializer(match).data)
        expected = plain(
            HandRecordedSerializer({"hand": hand, "match": match, "tournament_version": 5}).data
        )
        assert hand_recorded_body(hand=hand, match=match, tournament_version=5) == expected
    assert match.status == Match.Status.FINISHED

    # A voided hand carries who / when / why (a director may undo the hand that ended a match).
    hand_void_last(match_id=match.pk, actor=director_of(tournament), reason="scoring slip")
    voided = Hand.objects.get(match=match, number=len(sim.records), void=True)
    assert voided.voided_at is not None
    assert hand_body(voided) == plain(HandSerializer(voided).data)
    match = Match.objects.get(pk=match.pk)
    assert match_state_body(match) == plain(MatchStateSerializer(match).data)
