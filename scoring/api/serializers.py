"""Input and output serializers of the scoring API.

The hand-recording body is NOT validated field by field here: the engine parses it
(``HandRecord.from_dict``) so every rejection names the engine's field, code and rule (§9).
:class:`HandRecordInput` documents the body for the OpenAPI schema.
"""

from __future__ import annotations

from typing import Any, cast

from django.contrib.auth import get_user_model
from django.db.models import Q
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers

from core.api.fields import BlankUntilSetChoiceField
from scoring.models import Hand, Match, Seat
from scoring.presenters.bodies import (
    HandRecordedSerializer,
    HandSerializer,
    MatchStateSerializer,
    NextHandSerializer,
    PlayLog,
    tile_field,
)
from tournament.api.rulesets import FrozenRulesetField
from tournament.models import TournamentRole

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
    version = serializers.IntegerField(
        min_value=0,
        max_value=INT_MAX,
        required=False,
        help_text="The match's `version` this decision was taken on: 409 `stale_match` if the "
        "match changed since.",
    )
    acknowledge_advanced = serializers.BooleanField(
        required=False,
        default=False,
        help_text="The round already advanced on this match's result (the next round is "
        "paired on it): true to override anyway; what followed stands and is not re-paired.",
    )


class ForfeitInput(serializers.Serializer[dict[str, Any]]):
    seat = serializers.IntegerField(min_value=0, max_value=3)
    reason = serializers.CharField(max_length=2000)


class ForfeitOutput(serializers.Serializer[dict[str, Any]]):
    match = MatchDetailOutput()
    continuation = MatchOutput(allow_null=True)


# -- query parameters: a documented parameter in the wrong shape is refused, not ignored ---------


class MatchListQuery(serializers.Serializer[dict[str, Any]]):
    """Filters of a tournament's match list (query parameters)."""

    status = serializers.ChoiceField(choices=Match.Status.choices, required=False)
    table = serializers.IntegerField(
        required=False, min_value=-ID_MAX, max_value=ID_MAX, help_text="A table's id"
    )
    referee = serializers.RegexField(
        r"^(?:[0-9]{1,18}|me)$",
        required=False,
        allow_blank=True,
        max_length=18,
        help_text="A referee's user id (`RoleOutput.user`), or `me`",
    )


class QueryBooleanField(serializers.BooleanField):
    """A boolean query parameter: ``true``/``false`` (or ``1``/``0``, ``yes``/``no``). Given
    but blank (``?include_void=``) is a 400 naming it, not read as absent: DRF's form rule
    (a blank box is no answer) made ``?include_void=`` list the voided hands, the default,
    when a client most likely meant the opposite."""

    def get_value(self, dictionary: Any) -> Any:
        if self.field_name in dictionary and dictionary.get(self.field_name) == "":
            return ""
        return super().get_value(dictionary)


class HandListQuery(serializers.Serializer[dict[str, Any]]):
    include_void = QueryBooleanField(
        required=False, default=True, help_text="Also the voided hands (default true)"
    )


# -- who recorded a hand, without saying who ------------------------------------------------------

RECORDER_ROLES = ["referee", "director", "staff"]


def recorder_roles(hands: list[Hand]) -> dict[tuple[int, int], str]:
    """``(match id, user id) -> role label`` of the users who recorded or voided ``hands``: the
    user's role in the match's tournament now (``referee``, ``director``; a superuser, who
    directs every tournament, ``director``), else ``staff`` for another staff account. At most
    three queries."""
    users = {u for h in hands for u in (h.recorded_by_id, h.voided_by_id) if u is not None}
    if not users:
        return {}
    tournament_of = dict(
        Match.objects.filter(pk__in={h.match_id for h in hands}).values_list("pk", "tournament_id")
    )
    held: dict[tuple[int, int], str] = {}
    rows = TournamentRole.objects.filter(
        user_id__in=users, tournament_id__in=set(tournament_of.values())
    ).values_list("tournament_id", "user_id", "role")
    for tournament_id, user_id, role in rows:
        if role == TournamentRole.Role.DIRECTOR or (tournament_id, user_id) not in held:
            held[(tournament_id, user_id)] = str(role)
    # A superuser directs every tournament without a role row (tournament_create gives them
    # none): "director", as everywhere else; other staff accounts are "staff".
    privileged = dict(
        get_user_model()
        .objects.filter(Q(is_staff=True) | Q(is_superuser=True), pk__in=users)
        .values_list("pk", "is_superuser")
    )
    labels = {}
    for match_id, tournament_id in tournament_of.items():
        for user_id in users:
            label = held.get((tournament_id, user_id))
            if label is None and user_id in privileged:
                label = "director" if privileged[user_id] else "staff"
            if label is not None:
                labels[(match_id, user_id)] = label
    return labels


class _HandReadList(serializers.ListSerializer):  # type: ignore[type-arg]
    def to_representation(self, data: Any) -> list[Any]:
        hands = list(data.all() if hasattr(data, "all") else data)
        context = cast(dict[str, Any], self.context)  # the root serializer's own dict
        context["recorder_roles"] = recorder_roles(hands)
        return list(super().to_representation(hands))


@extend_schema_serializer(component_name="RecordedHandRead")
class HandReadSerializer(HandSerializer):
    """A recorded hand as read from the match's hand list: also the recorder's (and voider's)
    role, a label that names no one, for every caller (issue 12: the public sees no user id)."""

    recorded_by_role = serializers.SerializerMethodField(
        help_text="The recording user's role: referee, director or staff; null if unknown "
        "(the account or its role is gone). Names no one."
    )
    voided_by_role = serializers.SerializerMethodField(
        help_text="The voiding user's role (as `recorded_by_role`); null if not voided."
    )

    class Meta(HandSerializer.Meta):
        fields = [*HandSerializer.Meta.fields, "recorded_by_role", "voided_by_role"]
        read_only_fields = fields
        list_serializer_class = _HandReadList

    def _label(self, hand: Hand, user_id: int | None) -> str | None:
        if user_id is None:
            return None
        roles = self.context.get("recorder_roles")
        if roles is None:
            roles = recorder_roles([hand])
        return roles.get((hand.match_id, user_id))

    @extend_schema_field(serializers.ChoiceField(choices=RECORDER_ROLES, allow_null=True))
    def get_recorded_by_role(self, hand: Hand) -> str | None:
        return self._label(hand, hand.recorded_by_id)

    @extend_schema_field(serializers.ChoiceField(choices=RECORDER_ROLES, allow_null=True))
    def get_voided_by_role(self, hand: Hand) -> str | None:
        return self._label(hand, hand.voided_by_id)
