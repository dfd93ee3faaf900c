"""JSON forms of matches and hands, shared by the API and the recording service.

The recording service stores the response body of an idempotent request, so a retry gets the
original answer (the same JSON value; PostgreSQL's jsonb may order the keys differently). That
is why these output serializers live outside ``scoring.api``. They read model instances only:
no query is made while rendering a hand or a match state.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_serializer
from rest_framework import serializers

from core.api.fields import BlankUntilSetChoiceField
from scoring.engine.match import NextHand
from scoring.models import Hand, Match


def next_hand_json(nh: NextHand | None) -> dict[str, Any] | None:
    """The engine's NextHand as stored in ``Match.next_hand`` (R5-R10, R26, R28)."""
    if nh is None:
        return None
    return {
        "number": nh.number,
        "poser": nh.poser,
        "forced": nh.forced,
        "forced_tile": str(nh.forced_tile) if nh.forced_tile is not None else None,
        "value": nh.value,
        "is_replay": nh.is_replay,
        "is_playoff": nh.is_playoff,
        "tie_run": nh.tie_run,
        "leader": nh.leader,
        "reason": nh.reason,
        "rule": getattr(nh, "rule", None),
    }


@extend_schema_serializer(component_name="NextHandDescription")
class NextHandSerializer(serializers.Serializer[dict[str, Any]]):
    """Who poses the next hand and what it is worth (RULES.md R5-R10, R26-R28)."""

    number = serializers.IntegerField()
    poser = serializers.IntegerField(allow_null=True, help_text="null: whoever holds 6-6 (R5)")
    forced = serializers.BooleanField()
    forced_tile = serializers.CharField(allow_null=True)
    value = serializers.IntegerField()
    is_replay = serializers.BooleanField()
    is_playoff = serializers.BooleanField()
    tie_run = serializers.IntegerField()
    leader = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField()
    rule = serializers.CharField(allow_null=True)


@extend_schema_serializer(component_name="MatchState")
class MatchStateSerializer(serializers.ModelSerializer[Match]):
    """The folded state of a match (snapshot columns), without seats: no extra query."""

    tournament = serializers.IntegerField(source="tournament_id", read_only=True)
    next_hand = NextHandSerializer(allow_null=True, read_only=True)
    scores = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    # "" until the match ends in v1, null from v2 (core.api.versioning)
    end_reason = BlankUntilSetChoiceField(choices=Match.EndReason.choices)

    class Meta:
        model = Match
        fields = [
            "id",
            "tournament",
            "status",
            "version",
            "n_players",
            "scores",
            "hands_count",
            "next_hand",
            "winner_seat",
            "end_reason",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


# A tile (R1): "6-3" as the API answers it; the engine also reads "6:3", "6|3" and "63".
TILE_PATTERN = r"^\s*(?:[0-6]\s*[-|:]\s*[0-6]|[0-6][0-6])\s*$"
TILE_HELP = 'A tile (R1), e.g. "6-3" (also read: "6:3", "6|3", "63")'


def tile_field(**kwargs: Any) -> serializers.RegexField:
    return serializers.RegexField(TILE_PATTERN, max_length=8, help_text=TILE_HELP, **kwargs)


class PlayLogDeal(serializers.Serializer[dict[str, Any]]):
    """Who was dealt which tiles (R2); ``stock`` is the boneyard's tiles."""

    hands = serializers.ListField(
        child=serializers.ListField(child=tile_field(), max_length=28),
        min_length=2,
        max_length=4,
        help_text="Each seat's tiles, seat 0 first",
    )
    stock = serializers.ListField(child=tile_field(), max_length=28, required=False)
    boneyard = serializers.ChoiceField(
        choices=["none", "sleeping", "draw"], required=False, help_text="R2, R15, R16"
    )


class PlayLogMove(serializers.Serializer[dict[str, Any]]):
    """One turn (R12): ``pose`` and ``play`` name a tile, ``play`` the end (R13), ``draw``
    the tile drawn (R16), ``pass`` nothing."""

    seat = serializers.IntegerField(min_value=0, max_value=3)
    kind = serializers.ChoiceField(choices=["pose", "play", "draw", "pass"])
    tile = tile_field(required=False)
    end = serializers.ChoiceField(choices=["left", "right"], required=False)


class PlayLog(serializers.Serializer[dict[str, Any]]):
    """A hand move by move (RULES.md §9): replayed and checked by the engine."""

    deal = PlayLogDeal()
    moves = PlayLogMove(many=True)


@extend_schema_serializer(component_name="RecordedHand")
class HandSerializer(serializers.ModelSerializer[Hand]):
    """A recorded hand (void ones included, with who / when / why)."""

    match = serializers.IntegerField(source="match_id", read_only=True)
    # null: not voided yet / the user was deleted (SET_NULL) / an anonymous caller (below)
    recorded_by = serializers.IntegerField(
        source="recorded_by_id",
        read_only=True,
        allow_null=True,
        help_text="The recording user's id; null for anonymous callers (no user ids in public).",
    )
    voided_by = serializers.IntegerField(
        source="voided_by_id",
        read_only=True,
        allow_null=True,
        help_text="The voiding user's id; null for anonymous callers (no user ids in public).",
    )
    counts = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, read_only=True
    )
    scores_after = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    notes = serializers.ListField(child=serializers.CharField(), read_only=True)
    play_log = PlayLog(allow_null=True, read_only=True)

    class Meta:
        model = Hand
        fields = [
            "id",
            "match",
            "number",
            "poser",
            "pose_tile",
            "end",
            "winner",
            "counts",
            "llave",
            "sporting",
            "play_log",
            "value",
            "paid",
            "tied",
            "reset",
            "scores_after",
            "notes",
            "recorded_by",
            "recorded_at",
            "void",
            "voided_by",
            "voided_at",
            "void_reason",
        ]
        read_only_fields = fields

    def to_representation(self, instance: Hand) -> dict[str, Any]:
        data = dict(super().to_representation(instance))
        request = self.context.get("request")
        if request is not None and not request.user.is_authenticated:
            # User ids are sequential and name accounts: never in a public payload (issue 12).
            data["recorded_by"] = data["voided_by"] = None
        return data


@extend_schema_serializer(component_name="HandRecorded")
class HandRecordedSerializer(serializers.Serializer[dict[str, Any]]):
    """Response of recording (or voiding) a hand: the hand and the match state after it."""

    hand = HandSerializer()
    match = MatchStateSerializer()
    tournament_version = serializers.IntegerField()


def hand_recorded_body(
    *, hand: Hand, match: Match, tournament_version: int | None
) -> dict[str, Any]:
    """Plain-JSON body of :class:`HandRecordedSerializer` (stored for idempotent retries).

    Built directly rather than through the serializer: a ``ModelSerializer`` introspects the
    model on every instantiation, which cost more than the engine fold on the recording hot
    path (bench/bench_hands.py). ``tests/scoring/test_scoring_presenters_bodies.py`` asserts
    that this equals the serializer's output, so the documented schema and the body agree.
    """
    return {
        "hand": hand_body(hand),
        "match": match_state_body(match),
        "tournament_version": tournament_version,
    }


_DATETIME = serializers.DateTimeField()


def _datetime(value: Any) -> str | None:
    return None if value is None else _DATETIME.to_representation(value)


def hand_body(hand: Hand) -> dict[str, Any]:
    """:class:`HandSerializer`'s output as plain JSON types."""
    return {
        "id": hand.pk,
        "match": hand.match_id,
        "number": hand.number,
        "poser": hand.poser,
        "pose_tile": hand.pose_tile,
        "end": hand.end,
        "winner": hand.winner,
        "counts": None if hand.counts is None else [int(c) for c in hand.counts],
        "llave": hand.llave,
        "sporting": hand.sporting,
        "play_log": hand.play_log,
        "value": hand.value,
        "paid": hand.paid,
        "tied": hand.tied,
        "reset": hand.reset,
        "scores_after": [int(x) for x in hand.scores_after],
        "notes": [str(n) for n in hand.notes],
        "recorded_by": hand.recorded_by_id,
        "recorded_at": _datetime(hand.recorded_at),
        "void": hand.void,
        "voided_by": hand.voided_by_id,
        "voided_at": _datetime(hand.voided_at),
        "void_reason": hand.void_reason,
    }


def match_state_body(match: Match) -> dict[str, Any]:
    """:class:`MatchStateSerializer`'s output as plain JSON types (no query)."""
    return {
        "id": match.pk,
        "tournament": match.tournament_id,
        "status": match.status,
        "version": match.version,
        "n_players": match.n_players,
        "scores": [int(x) for x in match.scores],
        "hands_count": match.hands_count,
        "next_hand": match.next_hand,
        "winner_seat": match.winner_seat,
        "end_reason": match.end_reason,
        "started_at": _datetime(match.started_at),
        "finished_at": _datetime(match.finished_at),
    }
