"""The public API of pairs events (T9-T11): partnerships, the entry format, substitutes,
partnership standings and places. Thin views: input serializer -> one service -> output.

Reads are public like every tournament read; writes are the director's (the route table,
``tournament.context.ROUTES``, and the services check it).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response

from brackets.api.serializers import ID_MAX, REASON_MAX
from brackets.api.views import _StageView
from brackets.csv_import import MAX_LENGTHS, PlayerRow
from brackets.selectors.pairs import pairs_placings, pairs_standings_table
from brackets.services.pairs import partnership_substitute
from brackets.services.registration import TypedPlayer
from core.api.schema import conflict_response
from core.exceptions import ApplicationError
from tournament.models import Partnership, Player
from tournament.partnerships import (
    partnership_list,
    partnership_register,
    tournament_entry_format_set,
)
from tournament.selectors import player_find

TAGS = ["pairs"]


class PairPlayerOutput(serializers.Serializer[Any]):
    entry_id = serializers.IntegerField()
    name = serializers.CharField()
    club = serializers.CharField()


class PartnershipOutput(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    name = serializers.CharField(help_text="The registered name (may be empty).")
    display_name = serializers.CharField(
        source="label", help_text="The name, or the two players' names."
    )
    status = serializers.CharField()
    checked_in = serializers.BooleanField(help_text="Both players are checked in.")
    players = serializers.SerializerMethodField()

    def get_players(self, obj: Any) -> list[dict[str, Any]]:
        return [{"entry_id": e, "name": n, "club": c} for e, n, c in obj.players]


class PartnershipInput(serializers.Serializer[dict[str, Any]]):
    players = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        min_length=2,
        max_length=2,
        help_text="The two players' ids (T9); players not yet entered are entered. Only "
        "players you may see (`GET /api/players/{id}/`) count: any other id, missing or "
        "hidden from you, is a 400 `not_found`.",
    )
    name = serializers.CharField(max_length=120, required=False, allow_blank=True, default="")
    check_in = serializers.BooleanField(required=False, default=False)


class EntryFormatInput(serializers.Serializer[dict[str, Any]]):
    entry_format = serializers.ChoiceField(choices=["individual", "pairs"])


class EntryFormatOutput(serializers.Serializer[Any]):
    entry_format = serializers.CharField()


class SubstituteInput(serializers.Serializer[dict[str, Any]]):
    """The substitute is a known player (``player_id``) or a name typed as on the page
    (``player_name``, ``player_club``): exactly one of the two."""

    leaving_entry_id = serializers.IntegerField(min_value=1, max_value=ID_MAX)
    player_id = serializers.IntegerField(
        min_value=1,
        max_value=ID_MAX,
        required=False,
        help_text="The substitute, a known player you may see (any other id is a 400 "
        "`not_found`); or give `player_name` instead.",
    )
    player_name = serializers.CharField(
        max_length=MAX_LENGTHS["name"],
        required=False,
        help_text="The substitute's name, as typed on the Partnerships page: the player "
        "entered here with that name and club, else the one known player with them, else a "
        "new player; only players you may see count. Known players of that name (accents and "
        "case aside) that no club tells "
        "apart are a 409 `same_name_unconfirmed` listing them in `error.candidates."
        "player_name`: send `player_id` of the one it is, or `different_from` with their ids "
        "for a new player.",
    )
    player_club = serializers.CharField(
        max_length=MAX_LENGTHS["club"], required=False, allow_blank=True, default=""
    )
    different_from = serializers.ListField(
        child=serializers.IntegerField(min_value=1, max_value=ID_MAX),
        required=False,
        default=list,
        max_length=1000,
        help_text="With `player_name`: the known players (ids from a 409's candidates) the "
        "substitute is not: a new player is created.",
    )
    reason = serializers.CharField(max_length=REASON_MAX)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        named, typed = "player_id" in attrs, "player_name" in attrs
        if named == typed:
            message = "Give the substitute's player_id or player_name, one of the two (T11)."
            raise serializers.ValidationError({"player_id": [message], "player_name": [message]})
        if named and (attrs["different_from"] or attrs["player_club"]):
            message = "Only with player_name."
            raise serializers.ValidationError(
                {name: [message] for name in ("different_from", "player_club") if attrs[name]}
            )
        return attrs


class SameNameCandidateOutput(serializers.Serializer[Any]):
    """A known player a typed name may be (``brackets.selectors.players.SameNamePlayer``)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    nickname = serializers.CharField()
    club = serializers.CharField()
    country = serializers.CharField()
    events = serializers.ListField(
        child=serializers.CharField(), help_text="The events they entered, newest first."
    )
    more_events = serializers.IntegerField(help_text="How many more events than listed.")
    entered_here = serializers.BooleanField()


class PairStandingOutput(serializers.Serializer[Any]):
    rank = serializers.IntegerField(source="row.rank")
    partnership_id = serializers.IntegerField(source="row.pair_id")
    name = serializers.CharField(source="pair.label")
    seed = serializers.IntegerField(source="seed_number")
    active = serializers.BooleanField()
    players = serializers.SerializerMethodField()
    match_wins = serializers.IntegerField(source="row.match_wins")
    hands_won = serializers.IntegerField(source="row.hands_won")
    third = serializers.IntegerField(
        source="row.third",
        help_text="T10's third key: points for minus against (pips) or six-loves given.",
    )
    points_for = serializers.IntegerField(source="row.points_for")
    points_against = serializers.IntegerField(source="row.points_against")
    six_loves_given = serializers.IntegerField(source="row.six_loves_given")
    six_loves_received = serializers.IntegerField(
        source="row.six_loves_received",
        help_text="Matches the opposing partnership won 6-0, counted once (R46); not a T10 key.",
    )
    forfeits = serializers.IntegerField(
        source="row.forfeits", help_text="Matches lost by a no-show (T7)."
    )
    llaves = serializers.IntegerField(
        source="row.llaves",
        help_text="Llave wins (R23) of the partnership's players (R35, R42); not a T10 key.",
    )
    ties = serializers.IntegerField(
        source="row.ties",
        help_text="Tied hands (R43), one per tied hand however many of its players shared the "
        "lowest count (R46); not a T10 key.",
    )
    replays_won = serializers.IntegerField(
        source="row.replays_won",
        help_text="Hands won after a tie (R35), one per hand even when both partners shared "
        "the lowest count (R46); not a T10 key.",
    )
    head_to_head = serializers.IntegerField(source="row.head_to_head", allow_null=True)
    tied_with = serializers.ListField(child=serializers.IntegerField(), source="row.tied_with")
    decided_by = serializers.CharField(source="row.decided_by")
    played = serializers.IntegerField(source="row.played")
    byes = serializers.IntegerField(source="row.byes")
    outlook = serializers.CharField(
        allow_null=True,
        help_text="As the live pairs standings rows (T7, T10): champion, final_table, advanced "
        "or eliminated once certain; withdrawn or disqualified for a partnership out by a "
        "withdrawal or disqualification; else null.",
    )

    def get_players(self, obj: Any) -> list[dict[str, Any]]:
        p = obj.pair
        return [
            {"entry_id": e, "name": n, "club": c}
            for e, n, c in zip(p.players, p.names, p.clubs, strict=False)
        ]


class PairPlacingOutput(serializers.Serializer[Any]):
    place = serializers.IntegerField()
    partnership_id = serializers.IntegerField()
    stage_number = serializers.IntegerField()
    players = serializers.ListField(child=serializers.CharField())


def _player(pk: int, field: str, user: Any) -> Player:
    """The player ``pk`` names, if ``user`` may see it: one hidden from them (another
    director's draft) answers exactly as an id no player has (docs/security.md)."""
    player = player_find(player_id=pk, user=user)
    if player is None:
        raise ApplicationError(
            f"No player {pk}.", code="not_found", rule="T9", fields={field: ["No such player."]}
        )
    return player


class PartnershipListApi(_StageView):
    @extend_schema(responses=PartnershipOutput(many=True), tags=TAGS)
    def get(self, request: Request, slug: str) -> Response:
        return Response(
            PartnershipOutput(partnership_list(tournament_id=self.tournament.pk), many=True).data
        )

    @extend_schema(
        request=PartnershipInput,
        responses={201: PartnershipOutput},
        tags=TAGS,
        description="Register two players as a partnership of a pairs event (T9).",
    )
    def post(self, request: Request, slug: str) -> Response:
        data = PartnershipInput(data=request.data)
        data.is_valid(raise_exception=True)
        d = data.validated_data
        players = [_player(pk, "players", request.user) for pk in d["players"]]
        p = partnership_register(
            tournament=self.tournament,
            actor=request.user,
            players=players,
            name=d["name"],
            check_in=d["check_in"],
        )
        view = next(v for v in partnership_list(tournament_id=self.tournament.pk) if v.id == p.pk)
        return Response(PartnershipOutput(view).data, status=status.HTTP_201_CREATED)


class EntryFormatApi(_StageView):
    @extend_schema(
        request=EntryFormatInput,
        responses=EntryFormatOutput,
        tags=TAGS,
        description="Make the tournament a pairs event (needs teams = partners, T9) or an "
        "individual one again (before partnerships are registered).",
    )
    def post(self, request: Request, slug: str) -> Response:
        data = EntryFormatInput(data=request.data)
        data.is_valid(raise_exception=True)
        t = tournament_entry_format_set(
            tournament=self.tournament,
            actor=request.user,
            entry_format=data.validated_data["entry_format"],
        )
        return Response({"entry_format": t.entry_format})


class PartnershipSubstituteApi(_StageView):
    @extend_schema(
        request=SubstituteInput,
        responses={
            200: PartnershipOutput,
            409: conflict_response(
                "The partnership is seated in a round in play (`round_in_play`, T11), or out "
                "of the event (`partnership_withdrawn`, `partnership_disqualified`, "
                "`partnership_eliminated`, T11 over T7 and T6/T10); or "
                "`same_name_unconfirmed`: known players have `player_name` and no club tells "
                "them apart (`error.candidates.player_name`); nothing was written",
                "SubstituteConflictError",
                candidates=serializers.DictField(
                    child=SameNameCandidateOutput(many=True),
                    required=False,
                    help_text="`same_name_unconfirmed` only: by field, the known players.",
                ),
            ),
        },
        tags=TAGS,
        description="Replace one player of a partnership before the next round (T11); the "
        "partnership keeps its record. The substitute is a known player (`player_id`) or a "
        "typed name (`player_name`), which asks the Partnerships page's same-name question "
        "(a 409 listing the known players) before a second person of that name is created.",
    )
    def post(self, request: Request, slug: str, pair_id: int) -> Response:
        data = SubstituteInput(data=request.data)
        data.is_valid(raise_exception=True)
        partnership = self.scoped_get(Partnership.objects.select_related("tournament"), pair_id)
        d = data.validated_data
        leaving = self.entry(d["leaving_entry_id"])
        player: Player | TypedPlayer
        if "player_id" in d:
            field, player = "player_id", _player(d["player_id"], "player_id", request.user)
        else:
            row = PlayerRow(0, d["player_name"], club=d["player_club"])
            field = "player_name"
            player = TypedPlayer(row, different_from=frozenset(d["different_from"]))
        partnership_substitute(
            partnership=partnership,
            actor=request.user,
            leaving=leaving,
            player=player,
            reason=d["reason"],
            player_field=field,
        )
        view = next(
            v for v in partnership_list(tournament_id=self.tournament.pk) if v.id == pair_id
        )
        return Response(PartnershipOutput(view).data)


class StagePairStandingsApi(_StageView):
    @extend_schema(
        responses=PairStandingOutput(many=True),
        tags=TAGS,
        description="T10 standings of a pairs stage (404 for an individual stage).",
    )
    def get(self, request: Request, slug: str, stage_id: int) -> Response:
        lines = pairs_standings_table(stage_id=self.stage(stage_id).pk)
        if lines is None:
            from core.exceptions import NotFoundError

            raise NotFoundError("This stage is not a pairs stage (T9).", code="not_pairs_stage")
        return Response(PairStandingOutput(lines, many=True).data)


class PairPlacingListApi(_StageView):
    @extend_schema(responses=PairPlacingOutput(many=True), tags=TAGS)
    def get(self, request: Request, slug: str) -> Response:
        places = pairs_placings(tournament_id=self.tournament.pk)
        return Response(
            PairPlacingOutput(
                [
                    {
                        "place": p.place,
                        "partnership_id": p.partnership_id,
                        "stage_number": p.stage_number,
                        "players": list(p.players),
                    }
                    for p in places
                ],
                many=True,
            ).data
        )
