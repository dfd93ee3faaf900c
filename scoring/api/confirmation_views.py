"""API of confirmation at the table (issue 15; scoring/confirmation.py).

``POST /api/matches/<id>/confirmations/`` and ``.../disputes/`` are taken on the referee's
phone (the match's referee credential, or a director); ``POST .../disputes/resolve/`` and the
tournament's dispute list are the director's. Access: the route table (tournament.context).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.schema import error_response
from core.exceptions import ApplicationError
from scoring import confirmation
from scoring.models import ResultDispute
from tournament.api.base import ApiView, TournamentScopedMixin

ERRORS = {
    400: error_response(400, "Rejected: names the field and the rule"),
    403: error_response(403, "Not this match's referee, or a wrong PIN"),
    404: error_response(404, "No such match, hand or seat"),
    409: error_response(409, "Nothing awaits confirmation, or the match is frozen by a dispute"),
}


def _body(request: Request) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise ApplicationError(
            "The body must be a JSON object.",
            code="malformed",
            fields={"non_field_errors": ["Expected a JSON object."]},
        )
    return dict(request.data)


def _pin(body: dict[str, Any]) -> str | None:
    pin = body.get("pin")
    if pin is None or pin == "":
        return None
    if not isinstance(pin, str):
        raise ApplicationError(
            "pin must be the player's 4 digits as a string.",
            code="malformed",
            fields={"pin": ["4 digits."]},
        )
    return pin


def _match_body(match: Any, seats: Any = None) -> dict[str, Any]:
    body = {
        "match_id": match.pk,
        "status": match.status,
        "confirmation": match.confirmation or "off",
        "hold": match.confirmation_hold,
        "hands_count": match.hands_count,
        "version": match.version,
    }
    if seats is not None:
        body["confirmed_seats"] = list(seats)
    return body


def dispute_json(row: confirmation.DisputeRow) -> dict[str, Any]:
    d = row.dispute
    return {
        "id": d.pk,
        "match_id": d.match_id,
        "table": d.match.table.number if d.match.table is not None else None,
        "number": d.hand.number,
        "seat": d.seat,
        "seat_name": row.seat_names[d.seat] if d.seat < len(row.seat_names) else "",
        "seats": list(row.seat_names),
        "recorded": row.recorded,
        "claimed": row.claimed,
        "note": d.note,
        "status": d.status,
        "created_at": d.created_at.isoformat(),
        "reason": d.reason,
    }


_CONFIRM = inline_serializer(
    "ConfirmInput",
    {
        "number": serializers.IntegerField(help_text="The hand confirmed (the last one)."),
        "seat": serializers.IntegerField(help_text="The confirming player's seat."),
        "pin": serializers.CharField(required=False, help_text="The player's PIN, if any."),
    },
)
_DISPUTE = inline_serializer(
    "DisputeInput",
    {
        "number": serializers.IntegerField(),
        "seat": serializers.IntegerField(),
        "pin": serializers.CharField(required=False),
        "claimed": serializers.DictField(help_text="The player's version: an outcome record."),
        "note": serializers.CharField(required=False),
    },
)
_RESOLVE = inline_serializer(
    "DisputeResolveInput",
    {
        "decision": serializers.ChoiceField(choices=list(confirmation.RESOLUTIONS)),
        "reason": serializers.CharField(),
    },
)
_STATE = inline_serializer(
    "ConfirmationState",
    {
        "match_id": serializers.IntegerField(),
        "status": serializers.CharField(),
        "confirmation": serializers.CharField(),
        "hold": serializers.CharField(),
        "hands_count": serializers.IntegerField(),
        "version": serializers.IntegerField(),
        "confirmed_seats": serializers.ListField(child=serializers.IntegerField()),
    },
)


class HandConfirmApi(ApiView):
    @extend_schema(
        request=_CONFIRM,
        responses={200: _STATE, 429: error_response(429, "PIN locked"), **ERRORS},
        tags=["hands"],
        description="A seated player confirms the last hand (tap the name; PIN if issued).",
    )
    def post(self, request: Request, match_id: int) -> Response:
        body = _body(request)
        result = confirmation.hand_confirm(
            match_id=match_id,
            actor=request.user,
            number=body.get("number"),
            seat=body.get("seat"),
            pin=_pin(body),
        )
        return Response(_match_body(result.match, result.confirmed_seats))


class HandDisputeApi(ApiView):
    @extend_schema(
        request=_DISPUTE,
        responses={201: _STATE, **ERRORS},
        tags=["hands"],
        description="A seated player disputes a recorded hand with their version of it.",
    )
    def post(self, request: Request, match_id: int) -> Response:
        body = _body(request)
        note = body.get("note", "")
        dispute = confirmation.hand_dispute(
            match_id=match_id,
            actor=request.user,
            number=body.get("number"),
            seat=body.get("seat"),
            claimed=body.get("claimed"),
            note=note if isinstance(note, str) else "",
            pin=_pin(body),
        )
        out = _match_body(dispute.match)
        out["dispute_id"] = dispute.pk
        return Response(out, status=201)


class DisputeResolveApi(ApiView):
    @extend_schema(
        request=_RESOLVE,
        responses={200: _STATE, **ERRORS},
        tags=["matches"],
        description="A director resolves the match's open dispute (reason in the action log).",
    )
    def post(self, request: Request, match_id: int) -> Response:
        body = _body(request)
        dispute = confirmation.dispute_resolve(
            match_id=match_id,
            actor=request.user,
            decision=body.get("decision"),
            reason=body.get("reason"),
        )
        match = type(dispute.match).objects.get(pk=dispute.match_id)
        return Response(_match_body(match))


class DisputeListApi(TournamentScopedMixin):
    @extend_schema(
        responses={200: inline_serializer("DisputeList", {"results": serializers.ListField()})},
        tags=["matches"],
        description="The dispute queue: open disputes (all with ?all=1), both versions each.",
    )
    def get(self, request: Request, slug: str) -> Response:
        rows = confirmation.disputes_for(
            tournament=self.tournament, open_only=request.query_params.get("all") != "1"
        )
        return Response({"results": [dispute_json(r) for r in rows]})


__all__ = [
    "DisputeListApi",
    "DisputeResolveApi",
    "HandConfirmApi",
    "HandDisputeApi",
    "ResultDispute",
]
