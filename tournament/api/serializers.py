"""Input and output serializers of the tournament API (HackSoft: one per direction)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from core.exceptions import ApplicationError
from tournament.api.rulesets import PresetField, RulesetField
from tournament.api.rulesets import RulesetOverridesField as DocumentedOverridesField
from tournament.models import ActionLog, Entry, Player, RefereeToken, Table, Tournament
from tournament.models import TournamentRole as Role
from tournament.referee_names import (
    REFEREE_NAME_ALLOWED,
    REFEREE_NAME_MAX_LENGTH,
    REFEREE_NAME_PATTERN,
    referee_name_of,
)
from tournament.slugs import tournament_slug_check

RULESET_OVERRIDES_MAX = 64  # far more than the ruleset has options (scoring.engine.Ruleset)

INT_MIN, INT_MAX = -(2**31), 2**31 - 1  # PostgreSQL integer: past it a DataError (a 500)
ID_MAX = 2**63 - 1  # PostgreSQL bigint: the largest primary key


class RulesetOverridesField(DocumentedOverridesField):
    """Ruleset options by name (validated by the engine); at most RULESET_OVERRIDES_MAX keys,
    each at most 64 characters (the parser already refused NUL and lone surrogates). The
    schema is the typed ``RulesetOverrides`` generated from the engine (issue 20)."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        value = dict(super().to_internal_value(data))
        if len(value) > RULESET_OVERRIDES_MAX:
            raise serializers.ValidationError(f"At most {RULESET_OVERRIDES_MAX} options.")
        if any(len(str(key)) > 64 for key in value):
            raise serializers.ValidationError("An option name is longer than 64 characters.")
        return value


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


class ShownUsernameField(serializers.CharField):
    """A user name as the API shows it: a referee's is the name its director typed, without
    the internal ``ref:<tournament>:`` prefix (``tournament.referee_names``)."""

    def to_representation(self, value: Any) -> str:
        return referee_name_of(str(value))


class RoleOutput(serializers.ModelSerializer[Role]):
    user = serializers.IntegerField(source="user_id", read_only=True)
    username = ShownUsernameField(
        source="user.username",
        read_only=True,
        help_text="The account's user name; a referee's: the name its director typed.",
    )

    class Meta:
        model = Role
        fields = ["id", "user", "username", "role"]
        read_only_fields = fields


class RefereeTokenOutput(serializers.ModelSerializer[RefereeToken]):
    """A referee credential (directors only). ``key`` and ``link`` are filled ONCE, in the
    answer that issues it: only a hash is stored, so a list never shows them (re-issue to
    print again)."""

    user = serializers.IntegerField(source="role.user_id", read_only=True)
    username = ShownUsernameField(
        source="role.user.username",
        read_only=True,
        help_text="The referee's name, as its director typed it.",
    )
    key = serializers.SerializerMethodField()
    link = serializers.SerializerMethodField()
    active = serializers.BooleanField(source="is_active", read_only=True)

    class Meta:
        model = RefereeToken
        fields = [
            "id",
            "user",
            "username",
            "label",
            "prefix",
            "key",
            "link",
            "active",
            "created_at",
            "last_used_at",
            "revoked_at",
        ]
        read_only_fields = fields

    def get_key(self, obj: RefereeToken) -> str | None:
        """``<prefix>.<secret>``: in the issuing answer only."""
        return getattr(obj, "key", None)

    def get_link(self, obj: RefereeToken) -> str | None:
        """The private link (and QR content), in the issuing answer only. The key rides in the
        fragment (``/ref/#<key>``), which browsers never send: it reaches no access log."""
        key = getattr(obj, "key", None)
        return referee_link(key) if key else None


def referee_link(key: str) -> str:
    return f"{settings.SITE_URL.rstrip('/')}/ref/#{key}"


class SessionLoginInput(serializers.Serializer[dict[str, Any]]):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=4096, trim_whitespace=False)


class StatusChangeInput(serializers.Serializer[dict[str, Any]]):
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    reason = serializers.CharField(max_length=2000, required=False, allow_blank=True, default="")


class MeOutput(serializers.Serializer[dict[str, Any]]):
    kind = serializers.ChoiceField(choices=["anonymous", "user", "referee"])
    user = serializers.DictField(allow_null=True)
    referee = serializers.DictField(allow_null=True)
    tournaments = serializers.ListField(child=serializers.DictField())


class ActionLogOutput(serializers.ModelSerializer[ActionLog]):
    actor = serializers.IntegerField(source="actor_id", read_only=True, allow_null=True)
    data = serializers.DictField(read_only=True)  # type: ignore[assignment]

    class Meta:
        model = ActionLog
        fields = ["id", "created_at", "actor", "verb", "target_type", "target_id", "reason", "data"]
        read_only_fields = fields


#: What the one slug rule accepts as typed (any case: it is stored lowercase), for the schema.
SLUG_SCHEMA_PATTERN = "^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$"

# -- inputs ---------------------------------------------------------------------------------------


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": 80, "pattern": SLUG_SCHEMA_PATTERN}
)
class TournamentSlugField(serializers.CharField):
    """A new tournament's slug by the one rule of the page, the admin and the service
    (:func:`tournament.slugs.tournament_slug_check`), in its words and with its code
    (``invalid_slug``, ``reserved_slug``); lowercased. DRF's ``SlugField`` took underscores
    the rule refuses, and refused accents in words of its own."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 80)
        kwargs.setdefault("help_text", SLUG_HELP)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = super().to_internal_value(data)
        try:
            return tournament_slug_check(value)
        except ApplicationError as exc:
            raise serializers.ValidationError(exc.fields["slug"], code=exc.code) from None


SLUG_HELP = (
    "The short name in links (/live/<slug>/): ASCII letters, digits and single hyphens between "
    "them, stored lowercase (`UPPER-Case` becomes `upper-case`); no underscores, spaces or "
    "accents (400 `invalid_slug`), not a word the site's own links use (400 `reserved_slug`), "
    "and free whatever its case (400 `slug_taken`)."
)


class TournamentCreateInput(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=160)
    slug = TournamentSlugField()
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


# The rule is the service's (tournament.player_fields), as on the Players page and in the CSV
# import: a refused value is a 400 naming the field in the page's words.
COUNTRY_HELP = "ISO 3166-1 alpha-2 code (e.g. PR), any case; blank for none."
RATING_HELP = (
    "The typed rating: a whole number from 0 to 9999, or null (it seeds every event the "
    "player entered until they have a rated match, T8)."
)


class PlayerInput(serializers.Serializer[dict[str, Any]]):
    """Names need a visible character and hold no text-direction controls (U+202A-U+202E,
    U+2066-U+2069)."""

    name = serializers.CharField(max_length=120)
    nickname = serializers.CharField(max_length=60, required=False, allow_blank=True, default="")
    country = serializers.CharField(
        max_length=2, required=False, allow_blank=True, default="", help_text=COUNTRY_HELP
    )
    club = serializers.CharField(max_length=120, required=False, allow_blank=True, default="")
    rating = serializers.IntegerField(
        min_value=INT_MIN,
        max_value=INT_MAX,
        required=False,
        allow_null=True,
        default=None,
        help_text=RATING_HELP,
    )


class PlayerUpdateInput(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=120, required=False)
    nickname = serializers.CharField(max_length=60, required=False, allow_blank=True)
    country = serializers.CharField(
        max_length=2, required=False, allow_blank=True, help_text=COUNTRY_HELP
    )
    club = serializers.CharField(max_length=120, required=False, allow_blank=True)
    rating = serializers.IntegerField(
        min_value=INT_MIN, max_value=INT_MAX, required=False, allow_null=True, help_text=RATING_HELP
    )


class EntryCreateInput(serializers.Serializer[dict[str, Any]]):
    player = serializers.IntegerField(
        min_value=1,
        max_value=ID_MAX,
        help_text="Player id: a player you may see (`GET /api/players/{id}/`); any other id, "
        "missing or hidden from you, is a 400 `unknown_player`.",
    )
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
    user = serializers.IntegerField(min_value=1, max_value=ID_MAX, help_text="User id")
    role = serializers.ChoiceField(choices=Role.Role.choices)


class RefereeCreateInput(serializers.Serializer[dict[str, Any]]):
    username = serializers.RegexField(
        rf"\A{REFEREE_NAME_PATTERN}\Z",
        max_length=REFEREE_NAME_MAX_LENGTH,
        error_messages={"invalid": REFEREE_NAME_ALLOWED},
        help_text=(
            "The referee's name: letters, digits, - and _ only, as on the referees page (the "
            "display name holds a full name). Unique in this tournament whatever its case "
            "(another tournament may have a referee of the same name). It is not a site login."
        ),
    )
    display_name = serializers.CharField(
        max_length=150, required=False, allow_blank=True, default=""
    )


class RefereeTokenIssueInput(serializers.Serializer[dict[str, Any]]):
    user = serializers.IntegerField(
        min_value=1, max_value=ID_MAX, help_text="User id of a referee of this tournament"
    )
    label = serializers.CharField(  # type: ignore[assignment]
        max_length=60, required=False, allow_blank=True, default=""
    )
