"""Read-mostly admin for stages and rounds: changes go through the services (action log)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin

from brackets.models import Round, RoundMatch, Stage, StageEntry

if TYPE_CHECKING:  # the admin classes are generic only for the type checker
    _Admin = admin.ModelAdmin[Any]
    _Inline = admin.TabularInline[Any, Any]
else:
    _Admin = admin.ModelAdmin
    _Inline = admin.TabularInline


class StageEntryInline(_Inline):
    model = StageEntry
    extra = 0
    fields = ("entry", "seed", "status", "joined_round", "out_round", "placing")
    readonly_fields = ("entry", "seed", "status", "joined_round", "out_round", "placing")
    can_delete = False
    show_change_link = False


@admin.register(Stage)
class StageAdmin(_Admin):
    list_display = ["tournament", "number", "name", "kind", "status", "auto_advance"]
    list_filter = ["kind", "status", "auto_advance"]
    search_fields = ["name", "tournament__name"]
    readonly_fields = [
        "tournament",
        "number",
        "kind",
        "status",
        "rng_seed",
        "started_at",
        "finished_at",
    ]
    inlines = [StageEntryInline]


class RoundMatchInline(_Inline):
    model = RoundMatch
    extra = 0
    fields = ("table_number", "match")
    readonly_fields = ("table_number", "match")
    can_delete = False


@admin.register(Round)
class RoundAdmin(_Admin):
    list_display = ["stage", "number", "kind", "status", "published_at", "closed_at", "advanced_at"]
    list_filter = ["kind", "status"]
    readonly_fields = [
        "stage",
        "number",
        "kind",
        "status",
        "rng_seed",
        "byes",
        "advancing",
        "playoff_players",
        "published_at",
        "published_by",
        "closed_at",
        "advanced_at",
        "advance_error",
    ]
    inlines = [RoundMatchInline]
