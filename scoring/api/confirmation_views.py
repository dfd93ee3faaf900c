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
from scoring import confirmation
from tournament.api.base import ApiView, TournamentScopedMixin

ERRORS = {
    400: error_response(400, "Rejected: names the field and the rule"),
    403: error_response(403, "Not this match's referee, or a wrong PIN"),
    404: error_response(404, "No such match, hand or seat"),
    409: error_response(
        409,
        "Nothing awaits confirmation, the match is frozen by a dispute, or the hand was "
        "changed since the player saw it (hand_changed)",
    ),
}
LIST_ERRORS = {
    403: error_response(403, "Only this tournament's directors read the dispute queue"),
    404: error_response(404, "No such tournament"),
}


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


MAX_TEXT = 2000
NUMBER_MAX = 1_000_000


class ConfirmInput(serializers.Serializer[dict[str, Any]]):
    number = serializers.IntegerField(
        help_text="The hand confirmed (the last).", min_value=1, max_value=NUMBER_MAX
    )
    seat = serializers.IntegerField(
        help_text="The confirming player's seat.", min_value=0, max_value=3
    )
    pin = serializers.RegexField(
        r"^[0-9]{4}$",
        max_length=4,
        required=False,
        allow_blank=True,
        help_text="The player's 4-digit PIN, if they have one.",
    )
    hand_id = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=2**63 - 1,
        help_text="The id of the hand the player was shown. When given (or `hand_key`), a "
        "tap for a hand undone and recorded again under the same number is refused: 409 "
        "`hand_changed`.",
    )
    hand_key = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=128,
        help_text="The Idempotency-Key the hand was recorded with (a phone that recorded it "
        "offline knows no id yet); checked like `hand_id`.",
    )


class ClaimedHand(serializers.Serializer[dict[str, Any]]):
    """The player's version of the hand: an outcome record (RULES.md section 9)."""

    poser = serializers.IntegerField(min_value=0, max_value=3)
    pose_tile = serializers.CharField(max_length=3)
    end = serializers.ChoiceField(choices=["domino", "block"])
    winner = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=3)
    counts = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=200),
        required=False,
        allow_null=True,
        min_length=2,
        max_length=4,
    )
    llave = serializers.BooleanField(required=False)


class DisputeInput(ConfirmInput):
    claimed = ClaimedHand()
    note = serializers.CharField(required=False, allow_blank=True, max_length=MAX_TEXT)


class DisputeResolveInput(serializers.Serializer[dict[str, Any]]):
    decision = serializers.ChoiceField(choices=list(confirmation.RESOLUTIONS))
    reason = serializers.CharField(max_length=MAX_TEXT)


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
        request=ConfirmInput,
        responses={200: _STATE, 429: error_response(429, "PIN locked"), **ERRORS},
        tags=["hands"],
        description="A seated player confirms the last hand (tap the name; PIN if issued).",
    )
    def post(self, request: Request, match_id: int) -> Response:
        data = ConfirmInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        result = confirmation.hand_confirm(
            match_id=match_id,
            actor=request.user,
            number=v["number"],
            seat=v["seat"],
            pin=v.get("pin") or None,
            hand_id=v.get("hand_id"),
            hand_key=v.get("hand_key") or None,
        )
        return Response(_match_body(result.match, result.confirmed_seats))


class HandDisputeApi(ApiView):
    @extend_schema(
        request=DisputeInput,
        responses={201: _STATE, **ERRORS},
        tags=["hands"],
        description="A seated player disputes a recorded hand with their version of it.",
    )
    def post(self, request: Request, match_id: int) -> Response:
        data = DisputeInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        dispute = confirmation.hand_dispute(
            match_id=match_id,
            actor=request.user,
            number=v["number"],
            seat=v["seat"],
            claimed=dict(v["claimed"]),
            note=v.get("note", ""),
            pin=v.get("pin") or None,
            hand_id=v.get("hand_id"),
            hand_key=v.get("hand_key") or None,
        )
        out = _match_body(dispute.match)
        out["dispute_id"] = dispute.pk
        return Response(out, status=201)


class DisputeResolveApi(ApiView):
    @extend_schema(
        request=DisputeResolveInput,
        responses={200: _STATE, **ERRORS},
        tags=["matches"],
        description="A director resolves the match's open dispute (reason in the action log).",
    )
    def post(self, request: Request, match_id: int) -> Response:
        data = DisputeResolveInput(data=request.data)
        data.is_valid(raise_exception=True)
        dispute = confirmation.dispute_resolve(
            match_id=match_id,
            actor=request.user,
            decision=data.validated_data["decision"],
            reason=data.validated_data["reason"],
        )
        match = type(dispute.match).objects.get(pk=dispute.match_id)
        return Response(_match_body(match))


class DisputeListApi(TournamentScopedMixin):
    @extend_schema(
        responses={
            200: inline_serializer("DisputeList", {"results": serializers.ListField()}),
            **LIST_ERRORS,
        },
        tags=["matches"],
        description="The dispute queue: open disputes (all with ?all=1), both versions each.",
    )
    def get(self, request: Request, slug: str) -> Response:
        rows = confirmation.disputes_for(
            tournament=self.tournament, open_only=request.query_params.get("all") != "1"
        )
        return Response({"results": [dispute_json(r) for r in rows]})


__all__ = ["DisputeListApi", "DisputeResolveApi", "HandConfirmApi", "HandDisputeApi"]
