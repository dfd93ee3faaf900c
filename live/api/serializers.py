"""Shapes of the public live JSON, for the OpenAPI schema.

The bodies themselves are built once per tournament version by
:mod:`live.presenters.documents` and sent as stored bytes; these serializers describe them
(tests/live check that every body round-trips through its serializer unchanged, so the schema
cannot drift from what is served).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema_field
from rest_framework import serializers

from core.api.fields import BlankUntilSetChoiceField
from scoring.models import Match


class HandSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    end = serializers.ChoiceField(choices=["domino", "block"], help_text="R18 domino or R19 block.")
    winner = serializers.IntegerField(
        allow_null=True, help_text="Seat that won; null for a tie (R20)."
    )
    tied = serializers.BooleanField()
    reset = serializers.BooleanField(help_text="Scores went back to 0 (R31).")
    value = serializers.IntegerField(help_text="What the hand was worth (R26).")
    paid = serializers.IntegerField(help_text="What the winner was paid (R24, R29).")
    llave = serializers.BooleanField(help_text="Won with la llave (R23).")
    scores_after = serializers.ListField(child=serializers.IntegerField())
    counts = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="Each seat's count at a block (R19, R20); null for a domino.",
    )


class NextHandSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField(allow_null=True)
    poser = serializers.IntegerField(
        allow_null=True,
        help_text="The seat that poses the next hand (R6-R10, R44); null under a forced pose "
        "(R5): the holder of `forced_tile` poses it.",
    )
    forced_tile = serializers.CharField(
        allow_null=True, help_text="The tile a forced pose must be (R5), else null."
    )
    value = serializers.IntegerField(allow_null=True, help_text="Value of the next hand (R26).")
    is_replay = serializers.BooleanField(help_text="The hand after a tie (R27).")
    is_playoff = serializers.BooleanField(help_text="A play-off hand (R31d, R9).")
    tie_run = serializers.IntegerField(help_text="Consecutive tied hands so far (R26).")


class LiveSeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField(help_text="0..n-1 in play order.")
    entry_id = serializers.IntegerField()
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    score = serializers.IntegerField()
    love = serializers.BooleanField(help_text="On love (score 0).")
    placing = serializers.IntegerField(allow_null=True)
    forfeited = serializers.BooleanField()


class RoundRefSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    kind = serializers.CharField()
    pairs = serializers.BooleanField(
        help_text="A pairs stage's round (T9): its final is one match between two "
        "partnerships (T10)."
    )


class PartnershipSideSerializer(serializers.Serializer[Any]):
    index = serializers.IntegerField(help_text="0: AC (seats 0 and 2); 1: BD (seats 1 and 3).")
    letters = serializers.CharField(help_text="AC or BD (R42).")
    names = serializers.ListField(child=serializers.CharField(), help_text="Both partners.")
    pair_name = serializers.CharField(
        help_text="The partnership's registered name in a pairs event (T9), or empty."
    )
    score = serializers.IntegerField(help_text="The partnership's one score (R42).")
    is_winner = serializers.BooleanField()


class LiveMatchSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    version = serializers.IntegerField(help_text="Bumped by every change of the match.")
    status = serializers.CharField()
    label = serializers.CharField(allow_blank=True)  # type: ignore[assignment]  # JSON key
    table_number = serializers.IntegerField(allow_null=True)
    round = RoundRefSerializer(allow_null=True)
    n_players = serializers.IntegerField()
    hands_count = serializers.IntegerField()
    winner_seat = serializers.IntegerField(
        allow_null=True,
        help_text="The winner's seat once the match is finished; in a partnership match (R42) "
        "the seat of the partner who won the last hand.",
    )
    partners = serializers.BooleanField(
        help_text="A partnership match (R42): seats 0 and 2 (AC) play seats 1 and 3 (BD). "
        "Known from the match's frozen ruleset once it starts, and at a table of a pairs stage "
        "(T9) from the start."
    )
    winner_seats = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Every seat that won the finished match: both partners of the winning "
        "partnership (R42, T4), else the winner's seat; empty while none.",
    )
    end_reason = BlankUntilSetChoiceField(choices=Match.EndReason.choices)
    confirmation_hold = serializers.ChoiceField(
        choices=["awaiting", "disputed"],
        allow_null=True,
        help_text="Confirmation at the table (issue 15): `awaiting` while the last hand or the "
        "result waits for the players' confirmation, `disputed` while a player's dispute is with "
        "the director; null otherwise.",
    )
    sudden_death = serializers.BooleanField(
        help_text="Time was called and this table plays on until a hand is won (T3); false "
        "once the match is finished."
    )
    next_hand = NextHandSerializer(allow_null=True)
    last_hand = HandSerializer(allow_null=True)
    seats = LiveSeatSerializer(many=True)
    sides = PartnershipSideSerializer(
        many=True,
        help_text="At a partnership table (R42; every table of a pairs stage, T9, from before "
        "its first hand) its two partnerships, AC then BD, each with its one score; else empty.",
    )


class RoundSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    stage_id = serializers.IntegerField()
    number = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.CharField()
    time_limit = serializers.IntegerField(allow_null=True, help_text="Minutes (T2, T3).")
    clock_started_at = serializers.CharField(allow_null=True)
    clock_ends_at = serializers.CharField(allow_null=True)
    time_called_at = serializers.CharField(allow_null=True)
    open_tables = serializers.IntegerField(
        allow_null=True,
        help_text="Tables of the round not yet played out (summary and live tables; null in a "
        "match's document). After time is called (T3), the tables the director kept going.",
    )
    pairs = serializers.BooleanField(
        help_text="A pairs stage's round (T9): its final is one match between two "
        "partnerships (T10)."
    )


class StageSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    status = serializers.CharField()
    swiss_rounds = serializers.IntegerField(allow_null=True)
    cut_size = serializers.IntegerField(allow_null=True)
    advance_per_table = serializers.IntegerField()
    final_table_size = serializers.IntegerField()
    pairs = serializers.BooleanField(
        help_text="A pairs stage (T9): its field and ``cut_size`` count partnerships, two to a "
        "table, and its final is one match between two partnerships (T10)."
    )


class TournamentInfoSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    name = serializers.CharField()
    venue = serializers.CharField(allow_blank=True)
    status = serializers.CharField()
    starts_on = serializers.CharField(allow_null=True)
    ends_on = serializers.CharField(allow_null=True)
    version = serializers.IntegerField(
        help_text="Tournament version: the ETag of every live resource."
    )


class TableCountsSerializer(serializers.Serializer[Any]):
    total = serializers.IntegerField()
    in_progress = serializers.IntegerField()
    finished = serializers.IntegerField()


class OpenMatchesSerializer(serializers.Serializer[Any]):
    scheduled = serializers.ListField(child=serializers.IntegerField())
    in_progress = serializers.ListField(child=serializers.IntegerField())


class SummarySerializer(serializers.Serializer[Any]):
    tournament = TournamentInfoSerializer()
    stages = StageSerializer(many=True)
    current_stage = StageSerializer(allow_null=True)
    current_rounds = RoundSerializer(many=True)
    tables = TableCountsSerializer()
    open_matches = OpenMatchesSerializer(
        help_text="Ids of the current round's matches not finished yet, by status."
    )


class LiveTablesSerializer(serializers.Serializer[Any]):
    tournament_version = serializers.IntegerField()
    rounds = RoundSerializer(many=True)
    tables = LiveMatchSerializer(many=True)


class StandingRowSerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField(help_text="Competition rank by T5 (1, 2, 2, 4).")
    place = serializers.IntegerField(
        allow_null=True,
        help_text="Place in the event once the last stage is finished (T6), else null.",
    )
    entry_id = serializers.IntegerField()
    name = serializers.CharField()
    club = serializers.CharField(allow_blank=True)
    seed = serializers.IntegerField(allow_null=True)
    played = serializers.IntegerField()
    byes = serializers.IntegerField()
    bye_wins = serializers.IntegerField(
        help_text="The byes counted as match wins by the stage's bye policy (T1): "
        "match_wins minus bye_wins were won at a table."
    )
    match_wins = serializers.IntegerField(help_text="T5 key 1.")
    hands_won = serializers.IntegerField(help_text="T5 key 2.")
    six_loves_given = serializers.IntegerField(help_text="T5 key 3.")
    head_to_head = serializers.IntegerField(allow_null=True, help_text="T5 key 4, among the level.")
    decided_by = serializers.CharField(help_text="Deepest T5 key that placed this row.")
    tie_group = serializers.IntegerField(
        allow_null=True,
        help_text="Still level on every key: index into the stage's tie_groups; a play-off "
        "decides (T5).",
    )
    points = serializers.IntegerField()
    six_loves_received = serializers.IntegerField()
    llaves = serializers.IntegerField()
    ties = serializers.IntegerField()
    replays_won = serializers.IntegerField()
    forfeits = serializers.IntegerField()
    status = serializers.CharField(
        allow_blank=True,
        help_text="The player's status in the stage: active, advanced, eliminated, withdrawn; "
        "finished for the final table's players once the last stage is finished (T6).",
    )
    outlook = serializers.CharField(
        allow_null=True,
        help_text="clinched / eliminated / advanced when already certain (T6); in the finished "
        "last stage, champion (the single first place) and final_table (its other players); "
        "withdrawn or disqualified for a player out by a withdrawal or disqualification (T7), "
        "ranked after everyone still in.",
    )
    above_cut = serializers.BooleanField(allow_null=True)
    cut_after = serializers.BooleanField(help_text="The cut line (T6) falls after this row.")
    playoff_on_line = serializers.BooleanField(
        help_text="Level on every T5 key across the cut once all rounds are played: the "
        "director's play-off decides (T5, T6). False again once that play-off is played out."
    )
    playoff_played = serializers.BooleanField(
        help_text="Sat at the stage's play-off table (T6) and it is played out: the play-off "
        "decided this player's line (players it left level play a further table and read "
        "``playoff_on_line`` instead)."
    )


class FinalTableLineSerializer(serializers.Serializer[Any]):
    place = serializers.IntegerField(allow_null=True, help_text="Placing at the final table (T4).")
    entry_id = serializers.IntegerField(help_text="Entry id.")
    name = serializers.CharField()
    club = serializers.CharField(allow_blank=True)
    points = serializers.IntegerField()
    forfeited = serializers.BooleanField()


class StageStandingsSerializer(serializers.Serializer[Any]):
    stage = StageSerializer()
    rounds_published = serializers.IntegerField()
    rounds_complete = serializers.IntegerField()
    cut = serializers.IntegerField(allow_null=True)
    rows = StandingRowSerializer(many=True)
    tie_groups = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Players level on every T5 key, one list per group (rows name theirs by index).",
    )
    final_table = FinalTableLineSerializer(
        many=True,
        allow_null=True,
        help_text="The played final table's result, champion first; null until it is finished.",
    )
    placed = serializers.BooleanField(
        help_text="The finished last stage: rows are listed by ``place``, not by ``rank``."
    )
    rows_counted = serializers.BooleanField(
        help_text="Whether the stage has Swiss or knockout rounds for the rows to count (T5): a "
        "stage that is only a final table places by its result (its rows count the final "
        "once it is played)."
    )
    ranked = serializers.BooleanField(
        help_text="A match of the stage is finished. Until then every row is level on nothing: "
        "``rank``, ``tie_groups`` and the cut line carry no information yet."
    )


class PairPlayerSerializer(serializers.Serializer[Any]):
    entry_id = serializers.IntegerField()
    name = serializers.CharField()
    club = serializers.CharField(allow_blank=True)


class PairStandingRowSerializer(serializers.Serializer[Any]):
    """One partnership's line in a pairs stage (T10)."""

    rank = serializers.IntegerField(help_text="Competition rank by T10 (1, 2, 2, 4).")
    pair_id = serializers.IntegerField(help_text="Partnership id (T9).")
    name = serializers.CharField(
        help_text='The partnership named once: "Los Primos (Ana & Bea)" or "Ana & Bea" (T9).'
    )
    registered_name = serializers.CharField(allow_blank=True)
    players = PairPlayerSerializer(many=True, help_text="Its current players.")
    seed = serializers.IntegerField(help_text="The partnership's seed in the stage.")
    played = serializers.IntegerField()
    byes = serializers.IntegerField()
    bye_wins = serializers.IntegerField(
        help_text="The byes counted as match wins by the stage's bye policy (T1): "
        "match_wins minus bye_wins were won at a table."
    )
    match_wins = serializers.IntegerField(help_text="T10 key 1.")
    hands_won = serializers.IntegerField(help_text="T10 key 2.")
    third = serializers.IntegerField(
        help_text="T10 key 3: six-loves given, or the points difference under pip scoring "
        "(the stage's ``third_key`` says which)."
    )
    points_for = serializers.IntegerField()
    points_against = serializers.IntegerField()
    six_loves_given = serializers.IntegerField()
    six_loves_received = serializers.IntegerField(
        help_text="Matches the opposing partnership won 6-0, counted once (R46); not a T10 key."
    )
    forfeits = serializers.IntegerField(help_text="Matches lost by a no-show (T7).")
    llaves = serializers.IntegerField(
        help_text="Llave wins (R23) of the partnership's players (R35, R42); not a T10 key."
    )
    ties = serializers.IntegerField(
        help_text="Tied hands (R43), one per tied hand however many of its players shared the "
        "lowest count (R46); not a T10 key."
    )
    replays_won = serializers.IntegerField(
        help_text="Hands won after a tie (R35), one per hand even when both partners shared "
        "the lowest count (R46); not a T10 key."
    )
    place = serializers.IntegerField(
        allow_null=True,
        help_text="The partnership's place in the event, on the row of the stage that placed "
        "it (out in this stage, or its final played); null otherwise (T6, T10).",
    )
    status = serializers.CharField(
        help_text="Its players' status in the stage (active, advanced, eliminated, withdrawn), "
        "or finished for the finished final's two partnerships."
    )
    outlook = serializers.CharField(
        allow_null=True,
        help_text="champion, final_table, advanced or eliminated once certain; withdrawn or "
        "disqualified for a partnership out by a withdrawal or disqualification (T7), ranked "
        "after every partnership still in; else null.",
    )
    head_to_head = serializers.IntegerField(allow_null=True, help_text="T10, among the level.")
    decided_by = serializers.CharField(help_text="Deepest T10 key that placed this row.")
    tie_group = serializers.IntegerField(
        allow_null=True, help_text="Still level on every key: index into ``tie_groups``."
    )
    active = serializers.BooleanField(help_text="Still in the stage (not withdrawn, T7).")
    champion = serializers.BooleanField(
        help_text="The partnership that won the final, once its stage is finished (T10)."
    )
    above_cut = serializers.BooleanField(allow_null=True)
    cut_after = serializers.BooleanField(help_text="The cut line (T6, T10) falls after this row.")
    playoff_on_line = serializers.BooleanField(
        help_text="Level on every T10 key across the cut once all rounds are played, or left "
        "level by a play-off: a (further) play-off table decides (T6, T10)."
    )
    playoff_played = serializers.BooleanField(
        help_text="Sat at the stage's latest play-off round (T6, T10) and it is played out and "
        "settled this partnership's line."
    )


class PairFinalPlayerSerializer(serializers.Serializer[Any]):
    entry_id = serializers.IntegerField()
    name = serializers.CharField()


class PairFinalLineSerializer(serializers.Serializer[Any]):
    place = serializers.IntegerField(
        allow_null=True, help_text="1 for the final's winning partnership, 2 for the other (T10)."
    )
    pair_id = serializers.IntegerField()
    name = serializers.CharField()
    registered_name = serializers.CharField(allow_blank=True)
    players = PairFinalPlayerSerializer(many=True, help_text="The partners who played the final.")
    points = serializers.IntegerField()
    champion = serializers.BooleanField(
        help_text="The final's winner, once its stage is finished: the champion (T10)."
    )


class PairsStageStandingsSerializer(serializers.Serializer[Any]):
    """A pairs stage's standings (``pairs`` is true): rows are partnerships (T9, T10)."""

    stage = StageSerializer()
    pairs = serializers.BooleanField(help_text="Always true: this is a pairs stage.")
    third_key = serializers.ChoiceField(
        choices=["six_loves_given", "points_difference"],
        help_text="What the rows' ``third`` counts (T10 key 3).",
    )
    rounds_published = serializers.IntegerField()
    rounds_complete = serializers.IntegerField()
    cut = serializers.IntegerField(allow_null=True, help_text="Partnerships that go on (T10).")
    rows = PairStandingRowSerializer(many=True)
    tie_groups = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField()),
        help_text="Partnerships (``pair_id``) level on every T10 key, one list per group.",
    )
    final_table = PairFinalLineSerializer(
        many=True,
        allow_null=True,
        help_text="The final's result, winning partnership first; null until it is finished.",
    )
    placed = serializers.BooleanField(help_text="Always false: rows are listed by ``rank``.")
    rows_counted = serializers.BooleanField()
    ranked = serializers.BooleanField()


@extend_schema_field(
    PolymorphicProxySerializer(
        component_name="AnyStageStandings",
        serializers=[StageStandingsSerializer, PairsStageStandingsSerializer],
        resource_type_field_name=None,
    )
)
class AnyStageStandingsField(serializers.Field):  # type: ignore[type-arg]
    """One stage's standings: a pairs stage's (``pairs`` true) or an individual stage's."""

    def to_representation(self, value: Any) -> Any:
        shape = PairsStageStandingsSerializer if value.get("pairs") else StageStandingsSerializer
        return shape(value).data


class StandingsSerializer(serializers.Serializer[Any]):
    tournament_version = serializers.IntegerField()
    stages = serializers.ListField(
        child=AnyStageStandingsField(),
        help_text="One entry per stage: a pairs stage (``pairs`` true) lists partnerships.",
    )


class NamedEntrySerializer(serializers.Serializer[Any]):
    entry_id = serializers.IntegerField()
    name = serializers.CharField()


class BracketSeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    entry_id = serializers.IntegerField()
    name = serializers.CharField()
    placing = serializers.IntegerField(allow_null=True)
    points = serializers.IntegerField(
        help_text="The points stored on the seat; see ``counted_points`` for the standings'."
    )
    counted_points = serializers.IntegerField(
        allow_null=True,
        required=False,
        help_text="The points as the standings count them and every page shows them (T5, "
        "T7): a forfeit is a 0-6 loss with 0; null for a player who played on at the "
        "continuation (``played_on``: no line in this forfeited match). Before the match is "
        "finished, the points on the table.",
    )
    forfeited = serializers.BooleanField()
    played_on = serializers.BooleanField(
        help_text="Not placed in this forfeited match: played on at its continuation (T7)."
    )
    advanced = serializers.BooleanField(allow_null=True, help_text="Went on from this round (T6).")
    still_level = serializers.BooleanField(
        help_text="A played-out play-off table (T6) left this player level on the line (a "
        "shared placing, T3): a further play-off table decides; ``advanced`` stays null here."
    )
    champion = serializers.BooleanField(
        help_text="The tournament's champion, on the final table's seat (T6)."
    )


class NamedPairSerializer(serializers.Serializer[Any]):
    pair_id = serializers.IntegerField(help_text="Partnership id (T9).")
    name = serializers.CharField(
        help_text="The partnership named once: its registered name and both partners, "
        "'Los Primos (Ana & Bea)', or the partners alone, 'Ana & Bea'."
    )
    registered_name = serializers.CharField(
        allow_blank=True, help_text="The registered name alone; empty if none."
    )
    players = NamedEntrySerializer(
        many=True,
        help_text="Both partners, in the partnership's registered order (the same in every "
        "round, though partners swap seats, T8); a table's own seats say who sat where.",
    )


class BracketSideSerializer(NamedPairSerializer):
    """One partnership at a pairs table (R42), named by the players who sat there (T9)."""

    letters = serializers.CharField(help_text="AC (seats 0 and 2) or BD (seats 1 and 3), R42.")
    seats = serializers.ListField(
        child=serializers.IntegerField(), help_text="The partnership's two seats."
    )
    placing = serializers.IntegerField(
        allow_null=True,
        help_text="The partnership's place at the table: 1 or 2, both 1 when level (T3: no "
        "win); null until the match is finished. Its seats' ``placing`` is 1 or 3 (R42, T4).",
    )
    points = serializers.IntegerField(help_text="The partnership's score (R42).")
    forfeited = serializers.BooleanField(help_text="A partner forfeited (T7).")
    advanced = serializers.BooleanField(allow_null=True, help_text="Went on from this round (T10).")
    champion = serializers.BooleanField(help_text="The champion partnership, at the final (T10).")


class BracketTableSerializer(serializers.Serializer[Any]):
    match_id = serializers.IntegerField()
    table_number = serializers.IntegerField()
    status = serializers.CharField()
    end_reason = BlankUntilSetChoiceField(choices=Match.EndReason.choices)
    continues = serializers.IntegerField(
        allow_null=True,
        help_text="A forfeit's continuation (T7): the id of the match it continues at the same "
        "table; null for any other match.",
    )
    seats = BracketSeatSerializer(many=True)
    sides = BracketSideSerializer(
        many=True,
        help_text="In a pairs stage (T9), the table's two partnerships, AC then BD, each once "
        "with its place there; empty otherwise.",
    )


class BracketRoundSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    kind = serializers.CharField()
    status = serializers.CharField()
    advancing = serializers.IntegerField(allow_null=True)
    byes = NamedEntrySerializer(many=True)
    bye_pairs = NamedPairSerializer(
        many=True, help_text="In a pairs stage, the partnerships of ``byes``; else empty."
    )
    tables = BracketTableSerializer(many=True)


class BracketStageSerializer(StageSerializer):
    entrants = serializers.IntegerField()
    advanced = NamedEntrySerializer(many=True)
    partnerships = serializers.IntegerField(
        allow_null=True, help_text="A pairs stage's partnerships (T9); null otherwise."
    )
    advanced_pairs = NamedPairSerializer(
        many=True,
        help_text="In a pairs stage, the partnerships that went on, each once (T10); else empty.",
    )
    rounds = BracketRoundSerializer(many=True)


class PlacingSerializer(serializers.Serializer[Any]):
    place = serializers.IntegerField()
    entry_id = serializers.IntegerField()
    name = serializers.CharField()
    stage = serializers.IntegerField(help_text="Number of the deepest stage reached.")


class PairPlacingSerializer(NamedPairSerializer):
    place = serializers.IntegerField(help_text="The partnership's place (T10).")
    stage = serializers.IntegerField(help_text="Number of the deepest stage reached.")


class BracketSerializer(serializers.Serializer[Any]):
    tournament_version = serializers.IntegerField()
    stages = BracketStageSerializer(many=True)
    placings = PlacingSerializer(many=True)
    finished = serializers.BooleanField(
        help_text="The tournament is finished: ``placings`` are final. Before, they are the "
        "places already decided (players out so far)."
    )
    champion = NamedEntrySerializer(
        allow_null=True,
        help_text="The finished tournament's single first place; null while it is played or "
        "while a shared first place awaits a play-off (T3).",
    )
    pairs = serializers.BooleanField(
        help_text="A pairs event (T9): a place is a partnership's (``pair_placings``)."
    )
    pair_placings = PairPlacingSerializer(
        many=True,
        help_text="In a pairs event, the partnerships' places, best first, each partnership "
        "once (T10); empty otherwise. ``placings`` still lists both partners.",
    )
    champion_pair = NamedPairSerializer(
        allow_null=True,
        help_text="The finished pairs event's single first partnership (T10); null otherwise.",
    )


class PlayerEntrySerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    club = serializers.CharField(allow_blank=True)
    country = serializers.CharField(allow_blank=True)
    seed = serializers.IntegerField(allow_null=True)
    status = serializers.CharField()


class PlayerStageSerializer(serializers.Serializer[Any]):
    stage_id = serializers.IntegerField()
    status = serializers.CharField()
    placing = serializers.IntegerField(allow_null=True)


class PlayerMatchSerializer(serializers.Serializer[Any]):
    match = LiveMatchSerializer()
    seat = serializers.IntegerField()
    stage = StageSerializer(allow_null=True)
    round = RoundSerializer(allow_null=True)
    hands = HandSerializer(many=True)


class PlayerPartnershipSerializer(NamedPairSerializer):
    left = serializers.BooleanField(
        help_text="This player was replaced by a substitute (T11): ``players`` are the "
        "partnership's current players."
    )


class PlayerResultsSerializer(serializers.Serializer[Any]):
    tournament_version = serializers.IntegerField()
    entry = PlayerEntrySerializer()
    partnership = PlayerPartnershipSerializer(
        allow_null=True,
        help_text="In a pairs event (T9) the partnership the player entered with, named once, "
        "with its current players; null otherwise.",
    )
    stages = PlayerStageSerializer(many=True)
    matches = PlayerMatchSerializer(many=True)


class MatchDetailSerializer(serializers.Serializer[Any]):
    tournament_version = serializers.IntegerField()
    match = LiveMatchSerializer()
    sides = PartnershipSideSerializer(
        many=True,
        help_text="At a partnership table (R42) its two partnerships, AC then BD; else empty.",
    )
    hands = HandSerializer(many=True)
    replays = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Numbers of the hands entered move by move: each has a public replay page, "
        "/live/{slug}/matches/{match_id}/hands/{number}/replay/ (issue 15)",
    )
