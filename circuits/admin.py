"""Circuits in the admin: staff create circuits and choose their member tournaments.

Managing membership is staff-only for now (the admin); a director of a tournament cannot add it
to a circuit themselves (README "Circuits").
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin

from circuits.models import Circuit, CircuitTournament

if TYPE_CHECKING:  # the admin classes are generic only for the type checker
    _Admin = admin.ModelAdmin[Any]
    _Inline = admin.TabularInline[Any, Any]
else:
    _Admin = admin.ModelAdmin
    _Inline = admin.TabularInline


class CircuitTournamentInline(_Inline):
    model = CircuitTournament
    extra = 1
    autocomplete_fields = ["tournament"]


@admin.register(Circuit)
class CircuitAdmin(_Admin):
    list_display = ["name", "season", "slug", "public", "updated_at"]
    list_filter = ["public", "season"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name", "season"]}
    inlines = [CircuitTournamentInline]
