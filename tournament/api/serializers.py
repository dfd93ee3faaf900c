"""Input and output serializers of the tournament API (HackSoft: one per direction)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import serializers

from tournament.api.rulesets import PresetField, RulesetField, RulesetOverridesField
from tournament.models import ActionLog, Entry, Player, RefereeToken, Table, Tournament
from tournament.models import TournamentRole as Role

INT_MIN, INT_MAX = -(2**31), 2**31 - 1  # PostgreSQL integer: past it a DataError (a 500)


# -- outputs --------------------------------------------------------------------------------------


class TournamentOutput(serializers.ModelSerializer[Tournament]):
    ruleset = RulesetField(read_only=True, help_text="Effective ruleset (RULES.md §1)")
    ruleset_overrides = RulesetOverridesField(read_only=True)
    ruleset_preset = PresetField(read_only=True)

    class Meta:
        model = Tournament
        fields = [
            "id",
            "name",
            "slug",
            "venue",
            "starts_on",
            "ends_on",
            "status",
            "ruleset_preset",
            "ruleset_overrides",
            "ruleset",
            "version",
        ]
        read_only_fields = fields


class PlayerOutput(serializers.ModelSerializer[Player]):
    class Meta:
        model = Player
        fields = ["id", "name", "nickname", "country", "club", "rating"]
        read_only_fields = fields


class EntryOutput(serializers.ModelSerializer[Entry]):
    player = PlayerOutput(read_only=True)

    class Meta:
        model = Entry
        fields = ["id", "player", "seed", "checked_in", "status", "status_reason"]
        read_only_fields = fields


class TableOutput(serializers.ModelSerializer[Table]):
    class Meta:
        model = Table
        fields = ["id", "number", "label"]
        read_only_fields = fields


class RoleOutput(serializers.ModelSerializer[Role]):
    user = serializers.IntegerField(source="user_id", read_only=True)
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Role
        fields = ["id", "user", "username", "role"]
        read_only_fields = fields


class RefereeTokenOutput(serializers.ModelSerializer[RefereeToken]):
    """Shown to the tournament's directors only: the key is the referee's credential."""

    user = serializers.IntegerField(source="role.user_id", read_only=True)
    username = serializers.CharField(source="role.user.username", read_only=True)
    link = serializers.SerializerMethodField()
    active = serializers.BooleanField(source="is_active", read_only=True)

    class Meta:
        model = RefereeToken
        fields = [
            "id",
            "user",
            "username",
            "label",
            "key",
            "link",
            "active",
            "created_at",
            "last_used_at",
            "revoked_at",
        ]
        read_only_fields = fields

    def get_link(self, obj: RefereeToken) -> str:
        """The private link (also the QR code's content): opens the referee's match page."""
        return f"{settings.SITE_URL.rstrip('/')}/ref/{obj.key}/"


class ActionLogOutput(serializers.ModelSerializer[ActionLog]):
    actor = serializers.IntegerField(source="actor_id", read_only=True, allow_null=True)
    data = serializers.DictField(read_only=True)  # type: ignore[assignment]

    class Meta:
        model = ActionLog
        fields = ["id", "created_at", "actor", "verb", "target_type", "target_id", "reason", "data"]
        read_only_fields = fields


# -- inputs ---------------------------------------------------------------------------------------


class TournamentCreateInput(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=160)
    slug = serializers.SlugField(max_length=80)
    venue = serializers.CharField(max_length=160, required=False, allow_blank=True, default="")
    starts_on = serializers.DateField(required=False, allow_null=True, default=None)
    ends_on = serializers.DateField(required=False, allow_null=True, default=None)
    ruleset_preset = PresetField(max_length=32, required=False, default="wsod")
    ruleset_overrides = RulesetOverridesField(required=False, default=dict)


class TournamentUpdateInput(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=160, required=False)
    venue = serializers.CharField(max_length=160, required=False, allow_blank=True)
    starts_on = serializers.DateField(required=False, allow_null=True)
    ends_on = serializers.DateField(required=False, allow_null=True)
    status = serializers.ChoiceField(choices=Tournament.Status.choices, required=False)
    ruleset_preset = PresetField(max_length=32, required=False)
    ruleset_overrides = RulesetOverridesField(required=False)


class PlayerInput(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=120)
    nickname = serializers.CharField(max_length=60, required=False, allow_blank=True, default="")
    country = serializers.CharField(max_length=2, required=False, allow_blank=True, default="")
    club = serializers.CharField(max_length=120, required=False, allow_blank=True, default="")
    rating = serializers.IntegerField(
        min_value=INT_MIN, max_value=INT_MAX, required=False, allow_null=True, default=None
    )


class PlayerUpdateInput(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=120, required=False)
    nickname = serializers.CharField(max_length=60, required=False, allow_blank=True)
    country = serializers.CharField(max_length=2, required=False, allow_blank=True)
    club = serializers.CharField(max_length=120, required=False, allow_blank=True)
    rating = serializers.IntegerField(
        min_value=INT_MIN, max_value=INT_MAX, required=False, allow_null=True
    )


class EntryCreateInput(serializers.Serializer[dict[str, Any]]):
    player = serializers.IntegerField(help_text="Player id")
    seed = serializers.IntegerField(
        min_value=1, max_value=INT_MAX, required=False, allow_null=True, default=None
    )


class EntryUpdateInput(serializers.Serializer[dict[str, Any]]):
    seed = serializers.IntegerField(min_value=1, max_value=INT_MAX, required=False, allow_null=True)
    checked_in = serializers.BooleanField(required=False)


class ReasonInput(serializers.Serializer[dict[str, Any]]):
    reason = serializers.CharField(max_length=2000)


class TableInput(serializers.Serializer[dict[str, Any]]):
    number = serializers.IntegerField(min_value=1, max_value=INT_MAX)
    label = serializers.CharField(  # type: ignore[assignment]
        max_length=60, required=False, allow_blank=True, default=""
    )


class RoleInput(serializers.Serializer[dict[str, Any]]):
    user = serializers.IntegerField(help_text="User id")
    role = serializers.ChoiceField(choices=Role.Role.choices)


class RefereeCreateInput(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField(max_length=150)
    display_name = serializers.CharField(
        max_length=150, required=False, allow_blank=True, default=""
    )


class RefereeTokenIssueInput(serializers.Serializer[dict[str, Any]]):
    user = serializers.IntegerField(help_text="User id of a referee of this tournament")
    label = serializers.CharField(  # type: ignore[assignment]
        max_length=60, required=False, allow_blank=True, default=""
    )
