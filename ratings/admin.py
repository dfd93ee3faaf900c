"""Ratings in the admin: read-only (they are derived; ``manage.py ratings_recalculate``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin

from ratings.models import PlayerRating, RatingChange

if TYPE_CHECKING:  # the admin classes are generic only for the type checker
    _Admin = admin.ModelAdmin[Any]
else:
    _Admin = admin.ModelAdmin


@admin.register(PlayerRating)
class PlayerRatingAdmin(_Admin):
    list_display = ["player", "display", "mu", "sigma", "matches", "updated_at"]
    search_fields = ["player__name"]
    readonly_fields = ["player", "mu", "sigma", "matches"]


@admin.register(RatingChange)
class RatingChangeAdmin(_Admin):
    list_display = ["player", "match", "tournament", "rated_at", "placing", "display_after"]
    list_filter = ["tournament"]
    readonly_fields = [f.name for f in RatingChange._meta.fields]
