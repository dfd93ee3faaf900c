"""Thin API views of the brackets app: input serializer -> service -> output serializer.

Every view lives under ``tournaments/<slug>/`` and resolves the tournament once through
``TournamentScopedMixin``; stages and rounds are looked up inside that tournament only (another
tournament's ids answer 404). Reads of the bracket (stages, rounds, tables, standings, placings)
are public; previews and every write are for the tournament's directors (the services check).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from brackets import selectors, services
from brackets.api import serializers as s
from brackets.models import Round, Stage, StageEntry
from core.api.schema import conflict_response, error_response
from tournament.api.base import ApiPagination, TournamentScopedMixin
from tournament.api.permissions import director_read
from tournament.models import Entry

TAGS = ["brackets"]


class _StageView(TournamentScopedMixin):
    def stage(self, stage_id: int) -> Stage:
        return self.scoped_get(Stage.objects.all(), stage_id)

    def round(self, round_id: int) -> Round:
        return self.scoped_get(
            Round.objects.select_related("stage"), round_id, field="stage__tournament"
        )

    def entry(self, entry_id: int) -> Entry:
        return self.scoped_get(Entry.objects.select_related("player"), entry_id)

    def names(self) -> dict[int, str]:
        return dict(
            Entry.objects.filter(tournament=self.tournament).values_list("id", "player__name")
        )


# -- stages ---------------------------------------------------------------------------------------


class StageListApi(_StageView):
    @extend_schema(responses=s.StageOutput(many=True), tags=TAGS)
    def get(self, request: Request, slug: str) -> Response:
        stages = selectors.stage_list(tournament_id=self.tournament.pk)
        return Response(s.StageOutput(stages, many=True).data)

    @extend_schema(request=s.StageCreateInput, responses={201: s.StageOutput}, tags=TAGS)
    def post(self, request: Request, slug: str) -> Response:
        data = s.StageCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        stage = services.stage_create(
            tournament=self.tournament, actor=request.user, **data.validated_data
        )
        return Response(s.StageOutput(stage).data, status=status.HTTP_201_CREATED)


class StageDetailApi(_StageView):
    @extend_schema(responses=s.StageOutput, tags=TAGS)
    def get(self, request: Request, slug: str, stage_id: int) -> Response:
        return Response(s.StageOutput(self.stage(stage_id)).data)

    @extend_schema(request=s.StageUpdateInput, responses=s.StageOutput, tags=TAGS)
    def patch(self, request: Request, slug: str, stage_id: int) -> Response:
        data = s.StageUpdateInput(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        stage = services.stage_update(
            stage=self.stage(stage_id), actor=request.user, data=data.validated_data
        )
        return Response(s.StageOutput(stage).data)


class StageSeedApi(_StageView):
    @extend_schema(request=s.SeedInput, responses=s.StageOutput, tags=TAGS)
    def post(self, request: Request, slug: str, stage_id: int) -> Response:
        data = s.SeedInput(data=request.data)
        data.is_valid(raise_exception=True)
        stage = services.stage_seed(
            stage=self.stage(stage_id), actor=request.user, **data.validated_data
        )
        return Response(s.StageOutput(stage).data)


class StageReorderApi(_StageView):
    @extend_schema(request=s.ReorderInput, responses=s.StageOutput, tags=TAGS)
    def post(self, request: Request, slug: str, stage_id: int) -> Response:
        data = s.ReorderInput(data=request.data)
        data.is_valid(raise_exception=True)
        result = services.stage_seed_reorder(
            stage=self.stage(stage_id), actor=request.user, **data.validated_data
        )
        return Response(s.StageOutput(result.stage).data)


class StageEntrantListApi(_StageView):
    pagination_class = ApiPagination

    @extend_schema(responses=s.StageEntryOutput(many=True), tags=TAGS)
    def get(self, request: Request, slug: str, stage_id: int) -> Response:
        qs = (
            StageEntry.objects.filter(stage=self.stage(stage_id))
            .select_related("entry__player")
            .order_by("seed")
        )
        return self.paginated(request, qs, s.StageEntryOutput)

    @extend_schema(
        request=s.LateEntryInput,
        responses={201: s.StageEntryOutput},
        tags=TAGS,
        description="Late check-in: the entry joins the qualifying stage from its next round.",
    )
    def post(self, request: Request, slug: str, stage_id: int) -> Response:
        data = s.LateEntryInput(data=request.data)
        data.is_valid(raise_exception=True)
        se = services.stage_entry_add(
            stage=self.stage(stage_id),
            actor=request.user,
            entry=self.entry(data.validated_data["entry_id"]),
            reason=data.validated_data["reason"],
        )
        return Response(s.StageEntryOutput(se).data, status=status.HTTP_201_CREATED)


class StageEntrantWithdrawApi(_StageView):
    @extend_schema(request=s.WithdrawInput, responses=s.StageEntryOutput, tags=TAGS)
    def post(self, request: Request, slug: str, stage_id: int, entry_id: int) -> Response:
        data = s.WithdrawInput(data=request.data)
        data.is_valid(raise_exception=True)
        se = services.stage_entry_withdraw(
            stage=self.stage(stage_id),
            actor=request.user,
            entry=self.entry(entry_id),
            **data.validated_data,
        )
        return Response(s.StageEntryOutput(se).data)


class StageStandingsApi(_StageView):
    @extend_schema(responses=s.StandingOutput(many=True), tags=TAGS)
    def get(self, request: Request, slug: str, stage_id: int) -> Response:
        lines = selectors.standings_table(stage_id=self.stage(stage_id).pk)
        return Response(s.StandingOutput(lines, many=True).data)


class StagePreviewApi(_StageView):
    @extend_schema(
        responses=s.PreviewOutput,
        tags=TAGS,
        description="What publishing would store now (nothing is stored). Directors only.",
    )
    @director_read
    def get(self, request: Request, slug: str, stage_id: int) -> Response:
        step = services.round_preview(stage=self.stage(stage_id), actor=request.user)
        return Response(s.next_step_data(step, self.names()))


class StagePublishApi(_StageView):
    @extend_schema(
        request=s.PublishInput,
        responses={
            201: s.RoundOutput,
            409: error_response(409, "The next round is not `expected_number`: preview again"),
        },
        tags=TAGS,
    )
    def post(self, request: Request, slug: str, stage_id: int) -> Response:
        data = s.PublishInput(data=request.data)
        data.is_valid(raise_exception=True)
        rnd = services.round_publish(
            stage=self.stage(stage_id), actor=request.user, **data.validated_data
        )
        return Response(s.RoundOutput(rnd).data, status=status.HTTP_201_CREATED)


class StageAdvanceApi(_StageView):
    @extend_schema(
        request=None,
        responses=s.AdvanceOutput,
        tags=TAGS,
        description="End a complete stage: places, who goes on, the next stage's seeding (T6).",
    )
    def post(self, request: Request, slug: str, stage_id: int) -> Response:
        result = services.stage_advance(stage=self.stage(stage_id), actor=request.user)
        return Response(asdict(result))


class StageRoundListApi(_StageView):
    @extend_schema(responses=s.RoundOutput(many=True), tags=TAGS)
    def get(self, request: Request, slug: str, stage_id: int) -> Response:
        rounds = selectors.round_list(stage_id=self.stage(stage_id).pk)
        return Response(s.RoundOutput(rounds, many=True).data)


# -- rounds ---------------------------------------------------------------------------------------


class RoundDetailApi(_StageView):
    @extend_schema(responses=s.RoundDetailOutput, tags=TAGS)
    def get(self, request: Request, slug: str, round_id: int) -> Response:
        rnd = self.round(round_id)
        tables = selectors.round_tables(round_id=rnd.pk)
        return Response(s.RoundDetailOutput(rnd, context={"tables": tables}).data)


class RoundCloseApi(_StageView):
    @extend_schema(
        request=None,
        responses={
            200: s.RoundOutput,
            409: conflict_response(
                "Tables still playing (`error.tables`, their numbers): call time (T3)",
                "TablesPlayingError",
                tables=serializers.ListField(child=serializers.IntegerField()),
            ),
        },
        tags=TAGS,
    )
    def post(self, request: Request, slug: str, round_id: int) -> Response:
        rnd = services.round_close(round=self.round(round_id), actor=request.user)
        return Response(s.RoundOutput(rnd).data)


class RoundAdvanceApi(_StageView):
    @extend_schema(
        request=None,
        responses=s.AdvanceOutput,
        tags=TAGS,
        description="Close the round if complete and do what follows it (next round, play-off "
        "table or end of stage).",
    )
    def post(self, request: Request, slug: str, round_id: int) -> Response:
        result = services.round_advance(round_id=self.round(round_id).pk, actor=request.user)
        return Response(asdict(result))


class RoundClockApi(_StageView):
    @extend_schema(request=s.ClockInput, responses=s.RoundOutput, tags=TAGS)
    def post(self, request: Request, slug: str, round_id: int) -> Response:
        data = s.ClockInput(data=request.data)
        data.is_valid(raise_exception=True)
        rnd = services.round_clock_start(
            round=self.round(round_id), actor=request.user, **data.validated_data
        )
        return Response(s.RoundOutput(rnd).data)


class RoundCallTimeApi(_StageView):
    @extend_schema(
        request=s.CallTimeInput,
        responses={200: dict[str, Any]},
        tags=TAGS,
        description="Call time (T3): unfinished matches end by score, who reached it first, "
        "hands won; marked 'time'. Matches in sudden_death keep playing until a hand is won "
        "(recording it ends the match). Under confirmation at the table an unconfirmed last "
        "hand is voided first; a result awaiting confirmation finishes when the players "
        "confirm (awaiting_confirmation); a disputed result is refused (409).",
    )
    def post(self, request: Request, slug: str, round_id: int) -> Response:
        data = s.CallTimeInput(data=request.data)
        data.is_valid(raise_exception=True)
        rnd = self.round(round_id)
        ended = services.round_call_time(round=rnd, actor=request.user, **data.validated_data)
        waiting = selectors.round_results_awaiting_confirmation(round_id=rnd.pk)
        return Response(
            {"ended_match_ids": ended, "awaiting_confirmation": [m for m, _t in waiting]}
        )


class RoundReplaceApi(_StageView):
    @extend_schema(request=s.ReplaceInput, responses={200: dict[str, Any]}, tags=TAGS)
    def post(self, request: Request, slug: str, round_id: int) -> Response:
        data = s.ReplaceInput(data=request.data)
        data.is_valid(raise_exception=True)
        seat = services.round_seat_replace(
            round=self.round(round_id), actor=request.user, **data.validated_data
        )
        return Response({"match_id": seat.match_id, "seat": seat.seat, "entry_id": seat.entry_id})


class PlacingListApi(_StageView):
    @extend_schema(responses=s.PlacingOutput(many=True), tags=TAGS)
    def get(self, request: Request, slug: str) -> Response:
        placings = selectors.tournament_placings(tournament_id=self.tournament.pk)
        return Response(s.PlacingOutput(placings, many=True).data)
