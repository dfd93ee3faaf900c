"""Django admin for directors: every tournament model, with search, filters and inlines."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.actions import delete_selected
from django.contrib.admin.utils import unquote
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.db import transaction
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from core.exceptions import ApplicationError
from dominoes import PRESETS
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
from tournament.player_fields import player_field_problems, player_fields_clean
from tournament.rulesets import tournament_ruleset, tournament_ruleset_refusals
from tournament.services import (
    director_removals_refusals,
    player_changed,
    roles_remove_by_staff,
    users_delete_by_staff,
)
from tournament.services.roles import last_director_refusal
from tournament.slugs import tournament_slug_check, tournament_slug_taken_error

if TYPE_CHECKING:  # the admin classes are generic only for the type checker
    _Admin = admin.ModelAdmin[Any]
    _Inline = admin.TabularInline[Any, Any]
    _ModelForm = forms.ModelForm[Any]
    _UserAdmin = DjangoUserAdmin[Any]
else:
    _UserAdmin = DjangoUserAdmin
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


class LastDirectorAdminMixin(_Admin):
    """Deletes that go through the rule a tournament keeps at least one director
    (:mod:`tournament.services.staff_removals`): the delete page, the bulk delete action and
    the delete itself. A refused delete shows the rule as an admin error message, before any
    confirmation page, and deletes nothing."""

    def roles_removed(self, objs: Iterable[Any]) -> list[TournamentRole]:
        raise NotImplementedError

    def remove(self, request: HttpRequest, pks: list[Any]) -> None:
        raise NotImplementedError

    def _refused(self, request: HttpRequest, objs: Iterable[Any]) -> bool:
        refusals = director_removals_refusals(roles=self.roles_removed(objs))
        for refusal in refusals:
            self.message_user(request, _refusal_text(refusal), messages.ERROR)
        return bool(refusals)

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        obj = self.get_object(request, unquote(object_id))
        back = (
            reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[obj.pk])
            if obj is not None
            else None
        )
        if obj is not None and back is not None and self._refused(request, [obj]):
            return HttpResponseRedirect(back)
        try:
            return super().delete_view(request, object_id, extra_context)
        except ApplicationError as exc:  # raced another removal: nothing was deleted
            self.message_user(request, _refusal_text(exc), messages.ERROR)
            return HttpResponseRedirect(back or request.path)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        found = actions.get("delete_selected")
        if found is not None:
            _func, name, description = found
            actions["delete_selected"] = (cast(Any, _delete_selected_by_rule), name, description)
        return actions

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        self.remove(request, [obj.pk])

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        self.remove(request, list(queryset.values_list("pk", flat=True)))


def _refusal_text(refusal: ApplicationError) -> str:
    rule = f" ({refusal.rule})" if refusal.rule and refusal.rule not in refusal.message else ""
    return f"{refusal.message}{rule}"


def _delete_selected_by_rule(
    modeladmin: LastDirectorAdminMixin, request: HttpRequest, queryset: QuerySet[Any]
) -> HttpResponse | None:
    """Django's bulk delete, refused (back to the list, with the rule) when it would leave a
    tournament without a director; one transaction, so a refusal raced in at the confirmation
    leaves no "deleted" entry in the admin's history either."""
    if modeladmin._refused(request, queryset):
        return None
    try:
        with transaction.atomic():
            return delete_selected(modeladmin, request, queryset)
    except ApplicationError as exc:
        modeladmin.message_user(request, _refusal_text(exc), messages.ERROR)
        return None


class RoleInlineFormSet(BaseInlineFormSet):  # type: ignore[type-arg]
    """The roles of a tournament's change page: removing (or changing to referee) its last
    director is refused on the page, by the rule of the directors page."""

    def clean(self) -> None:
        super().clean()
        if self.instance.pk is None:
            return
        had = TournamentRole.objects.filter(
            tournament=self.instance, role=TournamentRole.Role.DIRECTOR
        ).exists()
        keeps = any(
            form.cleaned_data.get("role") == TournamentRole.Role.DIRECTOR
            and not form.cleaned_data.get("DELETE")
            for form in self.forms
            if getattr(form, "cleaned_data", None)
        )
        if had and not keeps:
            raise forms.ValidationError(
                _refusal_text(last_director_refusal()), code="last_director"
            )


class RoleInline(_Inline):
    model = TournamentRole
    formset = RoleInlineFormSet
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
        preset = data.get("ruleset_preset", "")
        # Every refused key at once, as the director's form and the API name them (§1): the
        # one walk of tournament_ruleset_refusals.
        refused = False
        for exc, _remaining in tournament_ruleset_refusals(preset, overrides):
            refused = True
            field = "ruleset_preset" if exc.field == "preset" else "ruleset_overrides"
            self.add_error(field, f"{exc.field}: {exc.message} ({exc.rule})")
        if refused:
            return data
        self.instance.ruleset = tournament_ruleset(preset, overrides).to_json()
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


class PlayerAdminForm(_ModelForm):
    """A player's fields by their one rule (:mod:`tournament.player_fields`), as the Players
    page, the CSV import and the API check them: a refused value is named on its field."""

    class Meta:
        model = Player
        fields = ["name", "nickname", "country", "club", "rating", "user"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        typed = {
            key: data[key]
            for key in ("name", "nickname", "country", "club", "rating")
            if data.get(key) is not None
        }
        problems = player_field_problems(typed)
        for key, reason in problems.items():
            self.add_error(key, reason)
        if not problems:
            data.update(player_fields_clean(typed))
        return data


@admin.register(Player)
class PlayerAdmin(_Admin):
    form = PlayerAdminForm
    list_display = ["name", "nickname", "country", "club", "rating", "user"]
    list_filter = ["country"]
    search_fields = ["name", "nickname", "club"]
    autocomplete_fields = ["user"]

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        """Saved as :func:`tournament.services.player_update` saves: the tournaments the
        player entered get a new version (their cached live pages, player pages and circuit
        standings show the new name or club at once) and a changed typed rating restarts
        the player's ratings (T8). A player entered anywhere cannot be deleted (their entries
        protect them), so a delete changes no tournament's pages."""
        super().save_model(request, obj, form, change)
        if change and form.changed_data:
            player_changed(player=obj, fields=form.changed_data)


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


class TournamentRoleAdminForm(_ModelForm):
    """A director role changed to referee, or moved to another tournament, leaves its
    tournament: refused when it is that tournament's last director."""

    class Meta:
        model = TournamentRole
        fields = ["tournament", "user", "role"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.instance.pk is None:
            return data
        before = TournamentRole.objects.filter(pk=self.instance.pk).first()
        leaves = before is not None and before.role == TournamentRole.Role.DIRECTOR
        if leaves and before is not None:
            stays = (
                data.get("role") == TournamentRole.Role.DIRECTOR
                and data.get("tournament") == before.tournament
            )
            if not stays and director_removals_refusals(roles=[before]):
                raise forms.ValidationError(
                    _refusal_text(director_removals_refusals(roles=[before])[0]),
                    code="last_director",
                )
        return data


@admin.register(TournamentRole)
class TournamentRoleAdmin(LastDirectorAdminMixin):
    form = TournamentRoleAdminForm
    list_display = ["user", "role", "tournament"]
    list_filter = ["role", "tournament"]
    search_fields = ["user__username", "tournament__name"]
    autocomplete_fields = ["user", "tournament"]

    def roles_removed(self, objs: Iterable[Any]) -> list[TournamentRole]:
        return list(objs)

    def remove(self, request: HttpRequest, pks: list[Any]) -> None:
        roles_remove_by_staff(role_ids=pks, actor=request.user)


class UserAdmin(LastDirectorAdminMixin, _UserAdmin):
    """Django's account admin; deleting an account that is a tournament's last director is
    refused (its roles would go with it), and the roles of a deleted account are logged as
    removed in their tournaments."""

    def roles_removed(self, objs: Iterable[Any]) -> list[TournamentRole]:
        return list(TournamentRole.objects.filter(user_id__in=[obj.pk for obj in objs]))

    def remove(self, request: HttpRequest, pks: list[Any]) -> None:
        users_delete_by_staff(user_ids=pks, actor=request.user)


admin.site.unregister(get_user_model())
admin.site.register(get_user_model(), UserAdmin)


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
