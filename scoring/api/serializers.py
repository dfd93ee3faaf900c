"""Input and output serializers of the scoring API.

The hand-recording body is NOT validated field by field here: the engine parses it
(``HandRecord.from_dict``) so every rejection names the engine's field, code and rule (§9).
:class:`HandRecordInput` documents the body for the OpenAPI schema.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from core.api.fields import BlankUntilSetChoiceField
from scoring.models import Match, Seat
from scoring.representations import (
    HandRecordedSerializer,
    HandSerializer,
    MatchStateSerializer,
    NextHandSerializer,
    PlayLog,
    tile_field,
)
from tournament.api.rulesets import FrozenRulesetField

__all__ = [
    "HandRecordedSerializer",
    "HandSerializer",
    "MatchStateSerializer",
    "NextHandSerializer",
]

INT_MAX = 2**31 - 1  # PostgreSQL integer: a larger value stored is a DataError (a 500)
ID_MAX = 2**63 - 1  # PostgreSQL bigint: the largest primary key


class SeatOutput(serializers.ModelSerializer[Seat]):
    """A seat with its player and result; ``score`` is the live score, ``love`` marks 0."""

    entry = serializers.IntegerField(source="entry_id", read_only=True)
    player = serializers.IntegerField(source="entry.player_id", read_only=True)
    name = serializers.CharField(source="entry.player.name", read_only=True)
    nickname = serializers.CharField(source="entry.player.nickname", read_only=True)
    score = serializers.SerializerMethodField()
    love = serializers.SerializerMethodField(help_text="True when the player is on 0 (love)")

    class Meta:
        model = Seat
        fields = [
            "seat",
            "entry",
            "player",
            "name",
            "nickname",
            "score",
            "love",
            "placing",
            "points",
            "hands_won",
            "domino_wins",
            "block_wins",
            "llaves",
            "ties",
            "replays_won",
            "resets_caused",
            "playoffs_won",
            "six_love_given",
            "six_love_received",
            "forfeited",
        ]
        read_only_fields = fields

    def _score(self, obj: Seat) -> int:
        scores = obj.match.scores or []
        return int(scores[obj.seat]) if obj.seat < len(scores) else 0

    def get_score(self, obj: Seat) -> int:
        return self._score(obj)

    def get_love(self, obj: Seat) -> bool:
        return self._score(obj) == 0


class MatchOutput(serializers.ModelSerializer[Match]):
    """A match with seats, scores (love marked) and the engine's next-hand description."""

    tournament = serializers.IntegerField(
        source="tournament_id", read_only=True, help_text="The tournament's id"
    )
    table = serializers.IntegerField(
        source="table_id",
        read_only=True,
        allow_null=True,
        help_text="The table's id (`/api/tournaments/{slug}/tables/`), null if none",
    )
    table_number = serializers.IntegerField(
        source="table.number", read_only=True, default=None, allow_null=True
    )
    referee = serializers.IntegerField(
        source="referee_id",
        read_only=True,
        allow_null=True,
        help_text="The assigned referee's user id (`RoleOutput.user`), null if none",
    )
    scores = serializers.ListField(child=serializers.IntegerField(), read_only=True)
    next_hand = NextHandSerializer(allow_null=True, read_only=True)
    seats = SeatOutput(many=True, read_only=True)
    # "" until the match ends in v1, null from v2 (core.api.versioning)
    end_reason = BlankUntilSetChoiceField(choices=Match.EndReason.choices)

    class Meta:
        model = Match
        fields = [
            "id",
            "tournament",
            "table",
            "table_number",
            "label",
            "status",
            "referee",
            "n_players",
            "lot_winner",
            "scores",
            "hands_count",
            "next_hand",
            "winner_seat",
            "end_reason",
            "started_at",
            "finished_at",
            "version",
            "seats",
        ]
        read_only_fields = fields


class MatchDetailOutput(MatchOutput):
    ruleset = FrozenRulesetField(
        read_only=True, help_text="Frozen at start, `{}` before (RULES.md §1)"
    )

    class Meta(MatchOutput.Meta):
        fields = [*MatchOutput.Meta.fields, "ruleset"]
        read_only_fields = fields


class MatchCreateInput(serializers.Serializer[dict[str, Any]]):
    entries = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        min_length=2,
        max_length=4,
        help_text="Entry ids of this tournament (`EntryOutput.id`), in play order (seat 0 first)",
    )
    table = serializers.IntegerField(
        min_value=1,
        max_value=ID_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="A table id of this tournament (`TableOutput.id`)",
    )
    referee = serializers.IntegerField(
        min_value=1,
        max_value=ID_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text="A referee's user id in this tournament (`RoleOutput.user`)",
    )
    label = serializers.CharField(  # type: ignore[assignment]
        max_length=80, required=False, allow_blank=True, default=""
    )
    lot_winner = serializers.IntegerField(min_value=0, max_value=3, required=False, default=0)


class MatchStartInput(serializers.Serializer[dict[str, Any]]):
    lot_winner = serializers.IntegerField(
        min_value=0, max_value=3, required=False, allow_null=True, default=None
    )


class AssignRefereeInput(serializers.Serializer[dict[str, Any]]):
    referee = serializers.IntegerField(
        min_value=1,
        max_value=ID_MAX,
        allow_null=True,
        help_text="A referee's user id in this tournament (`RoleOutput.user`); null unassigns",
    )


class HandRecordInput(serializers.Serializer[dict[str, Any]]):
    """Documentation of the hand body (RULES.md §9). Validated by the engine, not here."""

    number = serializers.IntegerField(
        min_value=1,
        max_value=INT_MAX,
        help_text="The hand number this submission creates (409 when stale)",
    )
    poser = serializers.IntegerField(min_value=0, max_value=3, required=False)
    pose_tile = tile_field(required=False)
    end = serializers.ChoiceField(choices=["domino", "block"], required=False)
    winner = serializers.IntegerField(min_value=0, max_value=3, required=False, allow_null=True)
    counts = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=INT_MAX),
        max_length=4,
        required=False,
        allow_null=True,
    )
    llave = serializers.BooleanField(required=False, default=False)
    sporting = serializers.BooleanField(required=False, default=False)
    play_log = PlayLog(
        required=False, allow_null=True, help_text="Full play log; replaces the outcome fields"
    )


class HandVoidInput(serializers.Serializer[dict[str, Any]]):
    number = serializers.IntegerField(
        min_value=1,
        max_value=INT_MAX,
        required=False,
        allow_null=True,
        help_text="The last hand's number (guard)",
    )
    reason = serializers.CharField(max_length=2000)


class OverrideInput(serializers.Serializer[dict[str, Any]]):
    scores = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=INT_MAX), max_length=4
    )
    placings = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=4),
        max_length=4,
        required=False,
        allow_null=True,
        default=None,
    )
    reason = serializers.CharField(max_length=2000)


class ForfeitInput(serializers.Serializer[dict[str, Any]]):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    reason = serializers.CharField(max_length=2000)


class ForfeitOutput(serializers.Serializer[dict[str, Any]]):
    match = MatchDetailOutput()
    continuation = MatchOutput(allow_null=True)
