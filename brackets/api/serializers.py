"""Input and output serializers of the brackets API (HackSoft: one per direction)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from brackets.models import (
    CUT_SIZE_MAX,
    RNG_SEED_MAX,
    SWISS_ROUNDS_MAX,
    TIME_LIMIT_MAX,
    Round,
    Stage,
    StageEntry,
)
from brackets.services import NextStep
from core.api.fields import BlankUntilSetChoiceField
from scoring.models import Match

INT_MAX = 2**31 - 1  # PostgreSQL integer: a larger value stored is a DataError (a 500)
ID_MAX = 2**63 - 1  # PostgreSQL bigint: the largest primary key
ORDER_MAX = 10_000  # entries in one order (a players CSV holds at most 5,000)
REASON_MAX = 2000  # as every other reason field


# -- outputs --------------------------------------------------------------------------------------


class StageOutput(serializers.ModelSerializer[Stage]):
    class Meta:
        model = Stage
        fields = [
            "id",
            "number",
            "name",
            "kind",
            "status",
            "swiss_rounds",
            "cut_size",
            "advance_per_table",
            "final_table_size",
            "allow_three",
            "bye_policy",
            "seat_order",
            "seeding",
            "rng_seed",
            "auto_advance",
            "round_time_limit",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields


class StageEntryOutput(serializers.ModelSerializer[StageEntry]):
    name = serializers.CharField(source="entry.player.name", read_only=True)
    club = serializers.CharField(source="entry.player.club", read_only=True)

    class Meta:
        model = StageEntry
        fields = [
            "entry_id",
            "name",
            "club",
            "seed",
            "status",
            "joined_round",
            "out_round",
            "placing",
        ]
        read_only_fields = fields


class RoundOutput(serializers.ModelSerializer[Round]):
    clock_ends_at = serializers.DateTimeField(read_only=True, allow_null=True)

    class Meta:
        model = Round
        fields = [
            "id",
            "stage_id",
            "number",
            "kind",
            "status",
            "byes",
            "advancing",
            "playoff_players",
            "rng_seed",
            "published_at",
            "time_limit",
            "clock_started_at",
            "clock_ends_at",
            "time_called_at",
            "closed_at",
            "advanced_at",
            "advance_error",
        ]
        read_only_fields = fields


class SeatOutput(serializers.Serializer[dict[str, Any]]):
    seat = serializers.IntegerField()
    entry_id = serializers.IntegerField()
    name = serializers.CharField()
    placing = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField()
    hands_won = serializers.IntegerField()
    forfeited = serializers.BooleanField()


class TableOutput(serializers.Serializer[dict[str, Any]]):
    table_number = serializers.IntegerField()
    match_id = serializers.IntegerField()
    status = serializers.CharField()
    end_reason = BlankUntilSetChoiceField(choices=Match.EndReason.choices)
    referee_id = serializers.IntegerField(allow_null=True)
    seats = SeatOutput(many=True)


class RoundDetailOutput(RoundOutput):
    tables = serializers.SerializerMethodField()

    class Meta(RoundOutput.Meta):
        fields = [*RoundOutput.Meta.fields, "tables"]
        read_only_fields = fields

    def get_tables(self, obj: Round) -> list[dict[str, Any]]:
        return list(TableOutput(self.context.get("tables", []), many=True).data)


class StandingOutput(serializers.Serializer[Any]):
    rank = serializers.IntegerField(source="row.rank")
    entry_id = serializers.IntegerField(source="row.player_id")
    name = serializers.CharField(source="entrant.name")
    seed = serializers.IntegerField(source="entrant.seed")
    status = serializers.CharField(source="entrant.status")
    match_wins = serializers.IntegerField(source="row.match_wins")
    hands_won = serializers.IntegerField(source="row.hands_won")
    six_loves_given = serializers.IntegerField(source="row.six_loves_given")
    head_to_head = serializers.IntegerField(source="row.head_to_head", allow_null=True)
    tied_with = serializers.ListField(child=serializers.IntegerField(), source="row.tied_with")
    decided_by = serializers.CharField(source="row.decided_by")
    played = serializers.IntegerField(source="row.played")
    byes = serializers.IntegerField(source="row.byes")
    points = serializers.IntegerField(source="row.points")
    forfeits = serializers.IntegerField(source="row.forfeits")


class PlacingOutput(serializers.Serializer[Any]):
    place = serializers.IntegerField()
    entry_id = serializers.IntegerField()
    name = serializers.CharField()
    stage_number = serializers.IntegerField()


def next_step_data(step: NextStep, names: dict[int, str]) -> dict[str, Any]:
    """A preview as JSON: what publishing (or advancing) would store now."""

    def who(entry_id: int) -> dict[str, Any]:
        return {"entry_id": entry_id, "name": names.get(entry_id, "")}

    seating = step.seating
    return {
        "action": step.action,
        "message": step.message,
        "round_number": step.round_number,
        "round_kind": step.round_kind,
        "rng_seed": step.rng_seed,
        "advancing": step.advancing,
        "tables": [
            {
                "number": t.number,
                "seats": [{"seat": i, **who(p)} for i, p in enumerate(t.seats)],
            }
            for t in (seating.tables if seating else ())
        ],
        "byes": [who(p) for p in (seating.byes if seating else ())],
        "playoff_players": [who(p) for p in step.playoff_players],
        "eliminated": [{**who(p.player_id), "place": p.place} for p in step.eliminated],
        "advanced": [who(p) for p in step.advanced],
    }


class PreviewOutput(serializers.Serializer[dict[str, Any]]):
    """Documents :func:`next_step_data` for the schema."""

    action = serializers.ChoiceField(["wait", "publish_round", "finish_stage", "finished"])
    message = serializers.CharField()
    round_number = serializers.IntegerField(allow_null=True)
    round_kind = serializers.CharField(allow_null=True)
    rng_seed = serializers.IntegerField(allow_null=True)
    advancing = serializers.IntegerField(allow_null=True)
    tables = serializers.ListField(child=serializers.DictField())
    byes = serializers.ListField(child=serializers.DictField())
    playoff_players = serializers.ListField(child=serializers.DictField())
    eliminated = serializers.ListField(child=serializers.DictField())
    advanced = serializers.ListField(child=serializers.DictField())


class AdvanceOutput(serializers.Serializer[Any]):
    round_id = serializers.IntegerField()
    outcome = serializers.CharField()
    published_round_id = serializers.IntegerField(allow_null=True)
    next_stage_id = serializers.IntegerField(allow_null=True)
    message = serializers.CharField(allow_blank=True)


# -- inputs ---------------------------------------------------------------------------------------


class StageCreateInput(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=80)
    kind = serializers.ChoiceField(Stage.Kind.choices)
    swiss_rounds = serializers.IntegerField(min_value=1, max_value=SWISS_ROUNDS_MAX, required=False)
    cut_size = serializers.IntegerField(
        min_value=3, max_value=CUT_SIZE_MAX, required=False, allow_null=True
    )
    advance_per_table = serializers.IntegerField(min_value=1, max_value=2, default=1)
    final_table_size = serializers.IntegerField(min_value=3, max_value=4, default=4)
    allow_three = serializers.BooleanField(default=True)
    bye_policy = serializers.ChoiceField(Stage.ByePolicy.choices, default=Stage.ByePolicy.WIN)
    seat_order = serializers.ChoiceField(Stage.SeatOrder.choices, default=Stage.SeatOrder.BALANCED)
    seeding = serializers.ChoiceField(Stage.Seeding.choices, default=Stage.Seeding.RATING)
    rng_seed = serializers.IntegerField(min_value=0, max_value=RNG_SEED_MAX, required=False)
    # The released API's default (a client that omits it keeps the rounds advancing as it
    # did; changing it would silently stall an event run by a script). The director's page
    # defaults to off: a person previews each round before publishing it (T6).
    auto_advance = serializers.BooleanField(default=True)
    round_time_limit = serializers.IntegerField(
        min_value=1, max_value=TIME_LIMIT_MAX, required=False, allow_null=True
    )


class StageUpdateInput(serializers.Serializer[dict[str, Any]]):
    name = serializers.CharField(max_length=80)
    auto_advance = serializers.BooleanField()
    round_time_limit = serializers.IntegerField(
        min_value=1, max_value=TIME_LIMIT_MAX, allow_null=True
    )
    swiss_rounds = serializers.IntegerField(min_value=1, max_value=SWISS_ROUNDS_MAX)
    cut_size = serializers.IntegerField(min_value=3, max_value=CUT_SIZE_MAX, allow_null=True)
    advance_per_table = serializers.IntegerField(min_value=1, max_value=2)
    final_table_size = serializers.IntegerField(min_value=3, max_value=4)
    allow_three = serializers.BooleanField()
    bye_policy = serializers.ChoiceField(Stage.ByePolicy.choices)
    seat_order = serializers.ChoiceField(Stage.SeatOrder.choices)


class SeedInput(serializers.Serializer[dict[str, Any]]):
    method = serializers.ChoiceField(["rating", "manual", "random"], required=False)
    order = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        max_length=ORDER_MAX,
        required=False,
    )
    rng_seed = serializers.IntegerField(min_value=0, max_value=RNG_SEED_MAX, required=False)


class ReorderInput(serializers.Serializer[dict[str, Any]]):
    order = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        max_length=ORDER_MAX,
        allow_empty=False,
    )
    reason = serializers.CharField(
        max_length=REASON_MAX, required=False, allow_blank=True, default=""
    )


class LateEntryInput(serializers.Serializer[dict[str, Any]]):
    entry_id = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    reason = serializers.CharField(
        max_length=REASON_MAX, required=False, allow_blank=True, default=""
    )


class WithdrawInput(serializers.Serializer[dict[str, Any]]):
    reason = serializers.CharField(max_length=REASON_MAX)
    disqualify = serializers.BooleanField(default=False)


class PublishInput(serializers.Serializer[dict[str, Any]]):
    expected_number = serializers.IntegerField(min_value=1, max_value=INT_MAX, required=False)


class ClockInput(serializers.Serializer[dict[str, Any]]):
    minutes = serializers.IntegerField(min_value=1, max_value=TIME_LIMIT_MAX, required=False)


class CallTimeInput(serializers.Serializer[dict[str, Any]]):
    reason = serializers.CharField(
        max_length=REASON_MAX, required=False, allow_blank=True, default=""
    )
    sudden_death = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        max_length=ORDER_MAX,
        required=False,
        default=list,
    )


class ReplaceInput(serializers.Serializer[dict[str, Any]]):
    out_entry_id = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    in_entry_id = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    reason = serializers.CharField(max_length=REASON_MAX)
