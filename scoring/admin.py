"""Django admin for matches, seats, hands and idempotency records.

Hands are append-only (STYLE.md §6): the admin shows them read-only and never deletes them;
a correction goes through ``scoring.services.hand_void_last``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin

from scoring.models import Hand, Match, Seat

if TYPE_CHECKING:  # the admin classes are generic only for the type checker
    _Admin = admin.ModelAdmin[Any]
    _Inline = admin.TabularInline[Any, Any]
else:
    _Admin = admin.ModelAdmin
    _Inline = admin.TabularInline


SEAT_INLINE_FIELDS = (
    "seat",
    "entry",
    "placing",
    "points",
    "hands_won",
    "six_love_given",
    "six_love_received",
    "forfeited",
)


HAND_INLINE_FIELDS = (
    "number",
    "poser",
    "pose_tile",
    "end",
    "winner",
    "counts",
    "value",
    "paid",
    "scores_after",
    "recorded_by",
    "recorded_at",
    "void",
    "void_reason",
)


class SeatInline(_Inline):
    model = Seat
    extra = 0
    fields = SEAT_INLINE_FIELDS
    readonly_fields = SEAT_INLINE_FIELDS
    can_delete = False


class HandInline(_Inline):
    model = Hand
    extra = 0
    fields = HAND_INLINE_FIELDS
    readonly_fields = HAND_INLINE_FIELDS
    can_delete = False
    ordering = ["number", "id"]

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Match)
class MatchAdmin(_Admin):
    list_display = [
        "id",
        "tournament",
        "table",
        "label",
        "status",
        "referee",
        "hands_count",
        "scores",
        "end_reason",
        "version",
    ]
    list_filter = ["status", "end_reason", "tournament"]
    search_fields = ["label", "seats__entry__player__name", "referee__username"]
    list_select_related = ["tournament", "table", "referee"]
    readonly_fields = [
        "ruleset",
        "scores",
        "hands_count",
        "next_hand",
        "winner_seat",
        "version",
        "started_at",
        "finished_at",
        "end_reason",
        "status",
        "continues",
    ]
    inlines = [SeatInline, HandInline]


@admin.register(Seat)
class SeatAdmin(_Admin):
    list_display = ["match", "seat", "entry", "placing", "points", "hands_won", "forfeited"]
    list_filter = ["forfeited", "match__tournament"]
    search_fields = ["entry__player__name"]
    list_select_related = ["match", "entry__player"]

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False


@admin.register(Hand)
class HandAdmin(_Admin):
    list_display = [
        "match",
        "number",
        "poser",
        "pose_tile",
        "end",
        "winner",
        "value",
        "paid",
        "recorded_by",
        "recorded_at",
        "void",
    ]
    list_filter = ["void", "end", "match__tournament"]
    search_fields = ["match__label", "idempotency_key", "recorded_by__username"]
    list_select_related = ["match", "recorded_by"]

    def get_readonly_fields(self, request: Any, obj: Any = None) -> list[str]:
        return [f.name for f in Hand._meta.fields]

    def has_add_permission(self, request: Any) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False
