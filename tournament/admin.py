"""Django admin for directors: every tournament model, with search, filters and inlines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin

from core.exceptions import ApplicationError
from dominoes import PRESETS, InvalidRuleset
from tournament.models import (
    ActionLog,
    DirectorInvitation,
    Entry,
    Player,
    RefereeToken,
    Table,
    Tournament,
    TournamentRole,
)
from tournament.rulesets import tournament_ruleset
from tournament.slugs import tournament_slug_check, tournament_slug_taken_error

if TYPE_CHECKING:  # the admin classes are generic only for the type checker
    _Admin = admin.ModelAdmin[Any]
    _Inline = admin.TabularInline[Any, Any]
    _ModelForm = forms.ModelForm[Any]
else:
    _ModelForm = forms.ModelForm
    _Admin = admin.ModelAdmin
    _Inline = admin.TabularInline


class EntryInline(_Inline):
    model = Entry
    extra = 0
    fields = ["player", "seed", "status", "checked_in"]
    autocomplete_fields = ["player"]


class TableInline(_Inline):
    model = Table
    extra = 0


class RoleInline(_Inline):
    model = TournamentRole
    extra = 0
    autocomplete_fields = ["user"]


class TournamentAdminForm(_ModelForm):
    """The preset is a choice and the overrides are validated by the rules engine, the same
    validation as the services and the director's settings page: an invalid ruleset is
    refused on the field the engine names (RULES.md §1), never stored and silently ignored."""

    ruleset_preset = forms.ChoiceField(choices=[(name, name) for name in PRESETS])
    # A CharField, not the model's SlugField: the one slug rule words every refusal
    # (clean_slug); Django's said underscores were allowed.
    slug = forms.CharField(
        max_length=80,
        help_text="Letters, digits and hyphens; used in every link (/live/<slug>/).",
    )

    class Meta:
        model = Tournament
        fields = [
            "name",
            "slug",
            "venue",
            "starts_on",
            "ends_on",
            "status",
            "ruleset_preset",
            "ruleset_overrides",
        ]

    def clean_slug(self) -> str:
        """A new or changed slug by the one rule of the pages, the API and the service
        (:mod:`tournament.slugs`), in its words; a slug stored before the rule, left as it
        is, stays valid (links already printed keep working)."""
        typed = str(self.cleaned_data.get("slug") or "")
        if self.instance.pk is not None and typed == self.instance.slug:
            return typed
        try:
            slug = tournament_slug_check(typed)
        except ApplicationError as exc:
            raise forms.ValidationError(exc.fields["slug"], code=exc.code) from None
        taken = Tournament.objects.filter(slug__iexact=slug)
        if self.instance.pk is not None:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            refusal = tournament_slug_taken_error(slug)
            raise forms.ValidationError(refusal.message, code=refusal.code)
        return slug

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        overrides = data.get("ruleset_overrides")
        if overrides is None:
            overrides = {}
        if not isinstance(overrides, dict):
            self.add_error("ruleset_overrides", "An object of ruleset keys (§1).")
            return data
        try:
            ruleset = tournament_ruleset(data.get("ruleset_preset", ""), overrides)
        except InvalidRuleset as exc:
            field = "ruleset_preset" if exc.field == "preset" else "ruleset_overrides"
            self.add_error(field, f"{exc.field}: {exc.message} ({exc.rule})")
            return data
        self.instance.ruleset = ruleset.to_json()
        return data


@admin.register(Tournament)
class TournamentAdmin(_Admin):
    form = TournamentAdminForm
    list_display = ["name", "slug", "status", "venue", "starts_on", "ruleset_preset", "version"]
    list_filter = ["status", "ruleset_preset"]
    search_fields = ["name", "slug", "venue"]
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ["ruleset", "version", "created_by", "created_at", "updated_at"]
    inlines = [RoleInline, TableInline, EntryInline]


@admin.register(Player)
class PlayerAdmin(_Admin):
    list_display = ["name", "nickname", "country", "club", "rating", "user"]
    list_filter = ["country"]
    search_fields = ["name", "nickname", "club"]
    autocomplete_fields = ["user"]


@admin.register(Entry)
class EntryAdmin(_Admin):
    list_display = ["player", "tournament", "seed", "status", "checked_in"]
    list_filter = ["status", "checked_in", "tournament"]
    search_fields = ["player__name", "player__nickname", "tournament__name"]
    list_select_related = ["player", "tournament"]
    autocomplete_fields = ["player", "tournament"]


@admin.register(Table)
class TableAdmin(_Admin):
    list_display = ["number", "label", "tournament"]
    list_filter = ["tournament"]
    search_fields = ["label", "tournament__name"]


@admin.register(TournamentRole)
class TournamentRoleAdmin(_Admin):
    list_display = ["user", "role", "tournament"]
    list_filter = ["role", "tournament"]
    search_fields = ["user__username", "tournament__name"]
    autocomplete_fields = ["user", "tournament"]


@admin.register(RefereeToken)
class RefereeTokenAdmin(_Admin):
    list_display = ["short_key", "role", "label", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at", "role__tournament"]
    search_fields = ["role__user__username", "label"]
    readonly_fields = [
        "prefix",
        "key_hash",
        "issued_by",
        "last_used_at",
        "created_at",
        "updated_at",
    ]
    list_select_related = ["role__user", "role__tournament"]

    @admin.display(description="key")
    def short_key(self, obj: RefereeToken) -> str:
        return obj.prefix


@admin.register(DirectorInvitation)
class DirectorInvitationAdmin(_Admin):
    """View only: invitations are issued and revoked by the tournament's directors on its
    Directors page, where each change is in the action log (docs/security.md)."""

    list_display = ["prefix", "tournament", "label", "issued_by", "expires_at", "used_at"]
    list_filter = ["tournament"]
    search_fields = ["label", "prefix"]
    list_select_related = ["tournament", "issued_by"]

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(ActionLog)
class ActionLogAdmin(_Admin):
    """Append-only: visible, never edited or deleted from the admin."""

    list_display = ["created_at", "tournament", "actor", "verb", "target_type", "target_id"]
    list_filter = ["verb", "tournament"]
    search_fields = ["reason", "target_id", "actor__username"]
    readonly_fields = [
        "tournament",
        "actor",
        "verb",
        "target_type",
        "target_id",
        "reason",
        "data",
        "created_at",
        "updated_at",
    ]

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False
