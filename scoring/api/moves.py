"""API of move-by-move entry (issue 15): the dry-run check of a play log, and the director's
feature-table switch. Recording the hand is the ordinary ``POST /api/matches/<id>/hands/``
with a ``play_log``; nothing here writes a hand."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from core.request_limits import SafeJSONParser
from scoring import moves
from scoring.api.views import ERRORS, json_object
from scoring.presenters.bodies import PlayLog
from tournament.api.base import ApiView


class LogCheckInput(serializers.Serializer[dict[str, Any]]):
    """Documentation of the check body; the engine validates the log (§9)."""

    play_log = PlayLog(help_text="The deal and the moves entered so far (RULES.md §9)")


class LogCheckOutput(serializers.Serializer[dict[str, Any]]):
    number = serializers.IntegerField(help_text="The hand this log would record")
    position = serializers.DictField(
        help_text="Open ends, the line, each seat's tiles and counts, whose turn, legal moves"
    )
    outcome = serializers.DictField(
        allow_null=True, help_text="The outcome record the engine derives once the hand ended"
    )


class FeatureInput(serializers.Serializer[dict[str, Any]]):
    feature = serializers.BooleanField()


class FeatureOutput(serializers.Serializer[dict[str, Any]]):
    table = serializers.IntegerField()
    number = serializers.IntegerField()
    feature = serializers.BooleanField()


class HandLogCheckApi(ApiView):
    parser_classes = [SafeJSONParser]  # core.request_limits: bounded, no NUL or surrogates

    @extend_schema(
        request=LogCheckInput,
        responses={200: LogCheckOutput, **ERRORS},
        tags=["hands"],
        description=(
            "Dry run of move-by-move entry: replay the deal and the moves entered so far "
            "against the match's next hand and answer the position (legal moves, ends, "
            "remaining tiles) or a 400 naming `play_log.<field>` and the rule. Records "
            "nothing: send the finished log to `POST /api/matches/{id}/hands/`."
        ),
    )
    def post(self, request: Request, match_id: int) -> Response:
        body = json_object(request)
        check = moves.play_log_check(
            match_id=match_id, actor=request.user, play_log=body.get("play_log")
        )
        return Response(
            {"number": check.number, "position": check.position, "outcome": check.outcome}
        )


class TableFeatureApi(ApiView):
    @extend_schema(
        request=FeatureInput,
        responses={200: FeatureOutput, **ERRORS},
        tags=["matches"],
        description=(
            "Director: mark the match's table as a feature table (move-by-move entry for its "
            "referee, replays for spectators), or not. Recorded in the action log."
        ),
    )
    def post(self, request: Request, match_id: int) -> Response:
        data = FeatureInput(data=request.data)
        data.is_valid(raise_exception=True)
        table = moves.table_feature_set(
            match_id=match_id, actor=request.user, feature=data.validated_data["feature"]
        )
        return Response({"table": table.pk, "number": table.number, "feature": table.feature})
