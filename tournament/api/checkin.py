"""``POST /api/tournaments/<slug>/entries/<id>/check-in/``: check a player in and, with
``{"pin": true}``, issue their table PIN (returned once; issue 15, tournament/pins.py)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.exceptions import ApplicationError
from tournament.api.base import TournamentScopedMixin
from tournament.models import Entry
from tournament.pins import entry_check_in


class EntryCheckInApi(TournamentScopedMixin):
    http_method_names = ["post", "options"]

    @extend_schema(
        request=inline_serializer("CheckInInput", {"pin": serializers.BooleanField()}),
        responses=inline_serializer(
            "CheckInOutput",
            {
                "id": serializers.IntegerField(),
                "checked_in": serializers.BooleanField(),
                "has_pin": serializers.BooleanField(),
                "pin": serializers.CharField(allow_null=True),
            },
        ),
        tags=["entries"],
    )
    def post(self, request: Request, slug: str, entry_id: int) -> Response:
        issue = request.data.get("pin", False) if isinstance(request.data, dict) else None
        if not isinstance(issue, bool):
            raise ApplicationError(
                "pin must be true or false.", code="malformed", fields={"pin": ["A boolean."]}
            )
        entry = self.scoped_get(Entry.objects.select_related("tournament"), entry_id)
        entry, pin = entry_check_in(entry=entry, actor=request.user, issue_pin=issue)
        return Response(
            {
                "id": entry.pk,
                "checked_in": entry.checked_in,
                "has_pin": bool(entry.pin_hash),
                "pin": pin,
            }
        )
