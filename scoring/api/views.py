"""Thin API views of the scoring app: input → service → output.

Match endpoints are addressed by match id; the services resolve the match's tournament and
decide who may write (the assigned referee while the match is in progress, or a director of
that tournament). Lists are always filtered by one tournament or one match.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.schema import conflict_response, error_response
from core.exceptions import ApplicationError
from core.request_limits import SafeJSONParser
from scoring import selectors, services
from scoring.api import serializers as s
from scoring.models import Match
from tournament.api.base import ApiPagination, ApiView, TournamentScopedMixin
from tournament.auth import client_ip
from tournament.context import Action, context_for, require
from tournament.models import Entry, Table
from tournament.selectors import referee_user_or_400

ERRORS = {
    400: error_response(400, "Rejected: names the field and the rule"),
    403: error_response(403, "Not allowed for this match"),
    404: error_response(404, "No such match"),
}


def _detail(match_id: int) -> dict[str, Any]:
    return dict(s.MatchDetailOutput(selectors.match_detail_get(match_id=match_id)).data)


def public_match(request: Request, match: Match) -> Match:
    """``match`` if the caller may view it publicly (the one context of its tournament and
    VIEW_PUBLIC). A match of a draft the caller may not see is a 404 exactly as a missing id
    ("No match <id>."): these routes carry no tournament slug and ids are sequential."""
    ctx = context_for(
        request, tournament=match.tournament, missing=selectors.match_missing(match.pk)
    )
    require(ctx, Action.VIEW_PUBLIC)
    return match


def json_object(request: Request) -> dict[str, Any]:
    """The request body, which must be a JSON object (§9): otherwise a 400 naming the rule."""
    body = request.data
    if not isinstance(body, dict):
        raise ApplicationError(
            "The body must be a JSON object (§9).",
            code="malformed",
            rule="§9",
            fields={"non_field_errors": ["Expected a JSON object."]},
        )
    return body


class MatchListApi(TournamentScopedMixin):
    pagination_class = ApiPagination

    @extend_schema(
        parameters=[s.MatchListQuery],
        responses=s.MatchOutput(many=True),
        tags=["matches"],
    )
    def get(self, request: Request, slug: str) -> Response:
        query = s.MatchListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        params = query.validated_data
        referee: int | None = None
        if params.get("referee") == "me":
            referee = request.user.pk if request.user.is_authenticated else -1
        elif params.get("referee"):
            referee = int(params["referee"])
        qs = selectors.match_list(
            tournament=self.tournament,
            status=params.get("status") or None,
            table_id=params.get("table"),
            referee_id=referee,
        )
        return self.paginated(request, qs, s.MatchOutput)

    @extend_schema(
        request=s.MatchCreateInput,
        responses={201: s.MatchDetailOutput, **ERRORS},
        tags=["matches"],
        description=(
            "A stand-alone match: entries are seated 0..n-1 in play order. It belongs to no "
            "round, so it is never rated, whatever its result (by hands or by override): "
            "only matches at a round's tables count for the players' ratings (README, "
            "Ratings)."
        ),
    )
    def post(self, request: Request, slug: str) -> Response:
        data = s.MatchCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        # Look entries and tables up among THIS tournament's only (no IDOR); unknown ids 400.
        by_id = {
            e.pk: e for e in Entry.objects.filter(tournament=self.tournament, pk__in=v["entries"])
        }
        entries = []
        for i, entry_id in enumerate(v["entries"]):
            if entry_id not in by_id:
                raise ApplicationError(
                    f"No entry {entry_id} in this tournament.",
                    code="entry_not_in_tournament",
                    fields={f"entries[{i}]": ["Not an entry of this tournament."]},
                )
            entries.append(by_id[entry_id])
        table = None
        if v["table"] is not None:
            table = Table.objects.filter(tournament=self.tournament, pk=v["table"]).first()
            if table is None:
                raise ApplicationError(
                    "No such table in this tournament.",
                    code="table_not_in_tournament",
                    fields={"table": ["Not a table of this tournament."]},
                )
        referee = _referee_or_400(v["referee"], "referee")
        match = services.match_create(
            tournament=self.tournament,
            actor=request.user,
            entries=entries,
            table=table,
            referee=referee,
            label=v["label"],
            lot_winner=v["lot_winner"],
        )
        return Response(_detail(match.pk), status=status.HTTP_201_CREATED)


def _referee_or_400(user_id: int | None, field: str) -> Any:
    """The account a ``referee`` field names (``None``: no referee); an unknown id is refused
    as an account that is no referee here is (``referee_unknown``: naming no one)."""
    if user_id is None:
        return None
    return referee_user_or_400(user_id=user_id, field=field)


class MatchDetailApi(ApiView):
    @extend_schema(responses={200: s.MatchDetailOutput, 404: ERRORS[404]}, tags=["matches"])
    def get(self, request: Request, match_id: int) -> Response:
        match = public_match(request, selectors.match_detail_get(match_id=match_id))
        return Response(s.MatchDetailOutput(match).data)


class MatchStartApi(ApiView):
    @extend_schema(
        request=s.MatchStartInput,
        responses={200: s.MatchDetailOutput, **ERRORS},
        tags=["matches"],
        description="Freeze the tournament's ruleset on the match and start it (R2, R6).",
    )
    def post(self, request: Request, match_id: int) -> Response:
        data = s.MatchStartInput(data=request.data)
        data.is_valid(raise_exception=True)
        services.match_start(
            match_id=match_id, actor=request.user, lot_winner=data.validated_data["lot_winner"]
        )
        return Response(_detail(match_id))


class MatchRefereeApi(ApiView):
    @extend_schema(
        request=s.AssignRefereeInput,
        responses={200: s.MatchDetailOutput, **ERRORS},
        tags=["matches"],
    )
    def post(self, request: Request, match_id: int) -> Response:
        data = s.AssignRefereeInput(data=request.data)
        data.is_valid(raise_exception=True)
        services.match_assign_referee(
            match_id=match_id,
            actor=request.user,
            referee=_referee_or_400(data.validated_data["referee"], "referee"),
        )
        return Response(_detail(match_id))


class HandListApi(ApiView):
    pagination_class = ApiPagination

    parser_classes = [SafeJSONParser]  # core.request_limits: bounded, no NUL or surrogates

    @extend_schema(
        parameters=[s.HandListQuery],
        responses=s.HandReadSerializer(many=True),
        tags=["hands"],
    )
    def get(self, request: Request, match_id: int) -> Response:
        match = public_match(request, selectors.match_get(match_id=match_id))
        query = s.HandListQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        qs = selectors.hand_list(match=match, include_void=query.validated_data["include_void"])
        return self.paginated(request, qs, s.HandReadSerializer)

    @extend_schema(
        request=s.HandRecordInput,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                location=OpenApiParameter.HEADER,
                description=(
                    "Retrying with the same key returns the original response without "
                    "recording twice; the same key with another body is a 422."
                ),
            ),
            OpenApiParameter(
                "Idempotent-Replayed",
                str,
                location=OpenApiParameter.HEADER,
                response=[201],
                enum=["true"],
                description="Sent (`true`) when this answer replays an earlier one with the "
                "same Idempotency-Key: nothing was recorded this time.",
            ),
        ],
        responses={
            201: s.HandRecordedSerializer,
            **ERRORS,
            409: conflict_response(
                "Stale hand number: `error.match` is the match's current state (its "
                "`hands_count` + 1 is the number to send)",
                "StaleHandError",
                match=s.MatchStateSerializer(),
            ),
            422: error_response(422, "Idempotency-Key reused with another body"),
        },
        tags=["hands"],
        description=(
            "Record the next hand (RULES.md §9): an outcome (`poser`, `pose_tile`, `end`, "
            "`winner` or `counts`, `llave`) or a `play_log`. `number` is the hand this creates."
        ),
    )
    def post(self, request: Request, match_id: int) -> Response:
        body = json_object(request)
        payload = dict(body)
        number = payload.pop("number", None)
        if isinstance(number, bool) or not isinstance(number, int) or number < 1:
            raise ApplicationError(
                "number (the hand this submission creates) must be an integer >= 1 (§9).",
                code="malformed" if number is not None else "missing_field",
                rule="§9",
                fields={"number": ["An integer >= 1 is required."]},
            )
        result = services.hand_record(
            match_id=match_id,
            actor=request.user,
            expected_number=number,
            payload=payload,
            idempotency_key=request.headers.get("Idempotency-Key"),
            client=services.ClientInfo(
                ip=client_ip(request), user_agent=request.headers.get("User-Agent", "")
            ),
        )
        response = Response(result.body, status=result.status)
        if result.replayed:
            response["Idempotent-Replayed"] = "true"
        return response


class HandVoidLastApi(ApiView):
    @extend_schema(
        request=s.HandVoidInput,
        responses={
            200: s.HandRecordedSerializer,
            **ERRORS,
            409: conflict_response(
                "The last hand is not `number`: `error.match` is the match's current state",
                "StaleVoidError",
                match=s.MatchStateSerializer(),
            ),
        },
        tags=["hands"],
        description="Void the last live hand (kept, with who / when / why) and refold.",
    )
    def post(self, request: Request, match_id: int) -> Response:
        data = s.HandVoidInput(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.hand_void_last(
            match_id=match_id,
            actor=request.user,
            reason=data.validated_data["reason"],
            expected_number=data.validated_data.get("number"),
        )
        return Response(result.body)


class MatchOverrideApi(ApiView):
    @extend_schema(
        request=s.OverrideInput,
        parameters=[
            OpenApiParameter(
                "Override-Unchanged",
                str,
                location=OpenApiParameter.HEADER,
                response=[200],
                enum=["true"],
                description="Sent (`true`) when the match already had exactly this result by "
                "override (a repeated submission): nothing was written or logged.",
            ),
        ],
        responses={
            200: s.MatchDetailOutput,
            **ERRORS,
            409: conflict_response(
                "`stale_match`: the match changed since `version` (`error.version` is its "
                "version now); `round_advanced`: the next round was already paired on this "
                "result (send `acknowledge_advanced`: it stands and is not re-paired)",
                "OverrideConflictError",
                version=serializers.IntegerField(required=False),
            ),
        },
        tags=["matches"],
        description=(
            "Director decision on the result; recorded in the action log. Send `version` "
            "(the match's `version` the decision was taken on) to be refused with 409 if "
            "the match changed since. The same result again changes nothing."
        ),
    )
    def post(self, request: Request, match_id: int) -> Response:
        data = s.OverrideInput(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        result = services.match_result_override(
            match_id=match_id,
            actor=request.user,
            expected_version=values.pop("version", None),
            **values,
        )
        response = Response(_detail(match_id))
        if not result.changed:
            response["Override-Unchanged"] = "true"
        return response


class MatchForfeitApi(ApiView):
    @extend_schema(
        request=s.ForfeitInput,
        responses={200: s.ForfeitOutput, **ERRORS},
        tags=["matches"],
        description="T7: a 0-6 loss for the seat; the others play on in `continuation`.",
    )
    def post(self, request: Request, match_id: int) -> Response:
        data = s.ForfeitInput(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.match_forfeit(
            match_id=match_id, actor=request.user, **data.validated_data
        )
        continuation = (
            s.MatchOutput(selectors.match_detail_get(match_id=result.continuation.pk)).data
            if result.continuation is not None
            else None
        )
        return Response({"match": _detail(match_id), "continuation": continuation})
