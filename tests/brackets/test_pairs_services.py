"""Pairs-event services against the database (T9, T10, T11): entry format, registration,
seeding, byes, standings, the play-off on the cut line and substitutes."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DatabaseError, connections, transaction

from brackets import services
from brackets.models import Round, RoundMatch, Stage, StageEntry
from brackets.selectors.pairs import pairs_placings, pairs_standings_table
from brackets.services.pairs import partnership_substitute, partnership_substitute_refusals
from core.exceptions import ApplicationError, ConflictError
from scoring.models import Match, Seat
from scoring.services import match_result_override
from tests.brackets.pairs_helpers import (
    decide_round,
    make_pairs_tournament,
    pairs_stages,
    qualified_for_the_final,
    round_with_a_forfeit,
    seeded_pairs,
)
from tests.factories import PlayerFactory, TournamentFactory, director_of
from tournament.models import ActionLog, Entry, PartnershipMember
from tournament.partnerships import partnership_register, tournament_entry_format_set

pytestmark = pytest.mark.django_db


def pair_of(tournament: Any) -> dict[int, int]:
    return dict(
        PartnershipMember.objects.filter(partnership__tournament=tournament).values_list(
            "entry_id", "partnership_id"
        )
    )


def test_a_pairs_event_needs_a_partnership_ruleset() -> None:
    t = TournamentFactory()  # wsod: teams = none
    d = director_of(t)
    with pytest.raises(ApplicationError) as exc:
        tournament_entry_format_set(tournament=t, actor=d, entry_format="pairs")
    assert exc.value.rule == "T9"
    assert "entry_format" in exc.value.fields
    t.refresh_from_db()
    assert t.entry_format == "individual"
    with pytest.raises(ApplicationError) as bad:
        tournament_entry_format_set(tournament=t, actor=d, entry_format="teams")
    assert bad.value.code == "bad_choice"


def test_register_enters_both_players_and_refuses_a_player_twice() -> None:
    t = TournamentFactory(ruleset_preset="wsod_partners")
    d = director_of(t)
    a, b, c = PlayerFactory(), PlayerFactory(), PlayerFactory()
    with pytest.raises(ApplicationError) as not_pairs:
        partnership_register(tournament=t, actor=d, players=[a, b])
    assert not_pairs.value.code == "not_pairs_event"
    tournament_entry_format_set(tournament=t, actor=d, entry_format="pairs")
    p = partnership_register(
        tournament=t, actor=d, players=[a, b], name="Los Primos", check_in=True
    )
    assert p.number == 1
    entries = Entry.objects.filter(tournament=t).order_by("id")
    assert [e.player_id for e in entries] == [a.pk, b.pk]
    assert all(e.checked_in for e in entries)
    with pytest.raises(ApplicationError) as twice:
        partnership_register(tournament=t, actor=d, players=[c, b])
    assert twice.value.code == "in_partnership"
    assert "player_b" in twice.value.fields
    assert not Entry.objects.filter(tournament=t, player=c).exists()  # all or nothing
    with pytest.raises(ApplicationError) as same:
        partnership_register(tournament=t, actor=d, players=[c, c])
    assert same.value.code == "bad_partnership"
    assert ActionLog.objects.filter(tournament=t, verb="partnership.register").count() == 1
    with pytest.raises(ApplicationError):  # registered partnerships keep the format
        tournament_entry_format_set(tournament=t, actor=d, entry_format="individual")


def test_seeding_by_rating_gives_partners_consecutive_seeds() -> None:
    t, d, pairs = make_pairs_tournament(4)
    q, _ = pairs_stages(t, d, swiss_rounds=1, cut_size=2)
    services.stage_seed(stage=q, actor=d, method="rating")
    q.refresh_from_db()
    assert q.pairs
    owner = pair_of(t)
    rows = list(StageEntry.objects.filter(stage=q).order_by("seed"))
    assert [r.seed for r in rows] == list(range(1, 9))
    # Ratings fall with registration order: partnership 1 first; partners next to each other.
    assert [owner[r.entry_id] for r in rows] == [p.pk for p in pairs for _ in (0, 1)]


def test_field_too_small_is_a_400_naming_t9() -> None:
    t, d, _ = make_pairs_tournament(1)
    q, _ = pairs_stages(t, d, swiss_rounds=1, cut_size=2)
    with pytest.raises(ApplicationError) as exc:
        services.stage_seed(stage=q, actor=d, method="rating")
    assert exc.value.code == "field_too_small"
    assert exc.value.rule == "T9"


def test_cut_below_two_partnerships_is_refused() -> None:
    t, d, _ = make_pairs_tournament(2)
    with pytest.raises(ApplicationError) as exc:
        services.stage_create(
            tournament=t,
            actor=d,
            name="Q",
            kind="qualifying",
            swiss_rounds=1,
            cut_size=1,
            auto_advance=True,
        )
    assert exc.value.rule == "T10"
    assert "cut_size" in exc.value.fields


def test_odd_field_gives_one_partnership_a_bye_counted_as_a_win() -> None:
    t, d, _ = make_pairs_tournament(7)
    q, _ = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    owner = pair_of(t)
    assert RoundMatch.objects.filter(round=r1).count() == 3
    assert len(r1.byes) == 2
    bye_pair = owner[r1.byes[0]]
    assert owner[r1.byes[1]] == bye_pair  # both players of the lowest seed (T9, T1)
    decide_round(r1, d)
    table = pairs_standings_table(stage_id=q.pk)
    assert table is not None
    by_pair = {line.pair.pair_id: line.row for line in table}
    assert by_pair[bye_pair].match_wins == 1
    assert by_pair[bye_pair].byes == 1
    assert sum(r.match_wins for r in by_pair.values()) == 3 + 1
    # Round 2: a different partnership sits out (fewest byes first).
    services.round_close(round=r1, actor=d)
    r2 = services.round_publish(stage=q, actor=d)
    assert owner[r2.byes[0]] != bye_pair


def test_cut_line_tie_is_played_off_between_partnerships() -> None:
    t, d, _ = make_pairs_tournament(6)
    q, k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)  # three winners, level on every T10 key, never met
    services.round_close(round=r1, actor=d)
    po = services.round_publish(stage=q, actor=d)
    assert po.kind == Round.Kind.PLAYOFF
    owner = pair_of(t)
    level = {owner[e] for e in po.playoff_players}
    assert len(level) == 3
    assert po.advancing == 2
    assert len(po.byes) == 2  # three partnerships: one table and one bye
    decide_round(po, d, winners={1: 1})
    services.round_close(round=po, actor=d)
    services.stage_advance(stage=q, actor=d)
    link = RoundMatch.objects.get(round=po)
    bd = owner[Seat.objects.get(match_id=link.match_id, seat=1).entry_id]
    going_on = {owner[e.entry_id] for e in StageEntry.objects.filter(stage=k)}
    assert going_on == {bd, owner[po.byes[0]]}
    places = {p.partnership_id: p.place for p in pairs_placings(tournament_id=t.pk)}
    assert sorted(places.values()) == [3, 4, 4, 4]


def test_substitute_before_the_next_round_keeps_the_record() -> None:
    t, d, pairs = make_pairs_tournament(4)
    q, _ = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    p1 = pairs[0]
    leaving = PartnershipMember.objects.get(partnership=p1, slot=1).entry
    newcomer = PlayerFactory(name="Sub")
    with pytest.raises(ConflictError) as in_play:
        partnership_substitute(
            partnership=p1, actor=d, leaving=leaving, player=newcomer, reason="injured"
        )
    assert in_play.value.rule == "T11"
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    before = {
        line.pair.pair_id: line.row.match_wins
        for line in pairs_standings_table(stage_id=q.pk) or []
    }
    with pytest.raises(ApplicationError) as no_reason:
        partnership_substitute(
            partnership=p1, actor=d, leaving=leaving, player=newcomer, reason=" "
        )
    assert no_reason.value.code == "reason_required"
    partnership_substitute(
        partnership=p1, actor=d, leaving=leaving, player=newcomer, reason="injured"
    )
    leaving.refresh_from_db()
    assert leaving.status == Entry.Status.WITHDRAWN
    new_entry = Entry.objects.get(tournament=t, player=newcomer)
    assert StageEntry.objects.filter(stage=q, entry=new_entry).exists()
    after = {
        line.pair.pair_id: line.row.match_wins
        for line in pairs_standings_table(stage_id=q.pk) or []
    }
    assert after == before  # T11: the partnership keeps its record
    r2 = services.round_publish(stage=q, actor=d)
    seated = set(
        Seat.objects.filter(match__round_link__round=r2).values_list("entry_id", flat=True)
    )
    assert new_entry.pk in seated
    assert leaving.pk not in seated
    log = ActionLog.objects.get(tournament=t, verb="partnership.substitute")
    assert log.data["joining_entry"] == new_entry.pk
    assert log.reason == "injured"


def current_entries(tournament: Any) -> list[int]:
    return list(
        PartnershipMember.objects.filter(
            partnership__tournament=tournament, left_at__isnull=True
        ).values_list("entry_id", flat=True)
    )


def record(stage: Any) -> dict[int, tuple[int, int, int]]:
    """Partnership id -> (played, match wins, hands won) in the stage's standings (T10)."""
    return {
        line.pair.pair_id: (line.row.played, line.row.match_wins, line.row.hands_won)
        for line in pairs_standings_table(stage_id=stage.pk) or []
    }


def test_the_substitute_rule_answers_each_partnership_of_a_round_with_a_forfeit() -> None:
    """T11, read per partnership: refused while a player of the partnership sits at a table
    still to play; a forfeited table is over (T7: a 0-6 loss, R42: nobody plays on one short),
    so both its partnerships, the one that forfeited and the one that won by it, may take a
    substitute at once, like the partnership with the bye (T1)."""
    r = round_with_a_forfeit()
    refusals = partnership_substitute_refusals(
        tournament=r.tournament, entry_ids=current_entries(r.tournament)
    )
    assert len(refusals) == 5
    assert refusals[r.forfeiting.pk] is None
    assert refusals[r.winners.pk] is None
    assert refusals[r.bye.pk] is None
    table_two = RoundMatch.objects.get(round=r.round, table_number=2).match_id
    for pair in r.playing:
        refusal = refusals[pair.pk]
        assert refusal is not None
        assert refusal.reason == "Has a match still to play: substitute when it is over (T11)."
        assert refusal.error.code == "round_in_play"
        assert refusal.error.rule == "T11"
        assert refusal.error.status_code == 409
        assert refusal.error.message.startswith(
            "A player of this partnership is seated at a table still to play"
        )
        assert set(refusal.error.extra["matches"]) == {table_two}


def test_a_partnership_that_forfeited_takes_a_substitute_for_the_next_round() -> None:
    """T7 then T11: the no-show's partnership names a substitute while the round still plays
    at another table (refused there), keeps its 0-6 loss, and the substitute plays round 2."""
    r = round_with_a_forfeit()
    d = r.director
    no_show = Seat.objects.get(match=r.forfeited, seat=0).entry
    still_playing = PartnershipMember.objects.filter(partnership=r.playing[0]).first()
    assert still_playing is not None
    with pytest.raises(ConflictError) as in_play:
        partnership_substitute(
            partnership=r.playing[0],
            actor=d,
            leaving=still_playing.entry,
            player=PlayerFactory(),
            reason="injured",
        )
    assert (in_play.value.code, in_play.value.rule) == ("round_in_play", "T11")
    before = record(r.stage)
    assert before[r.forfeiting.pk] == (1, 0, 0)  # the forfeit is its match of the round
    newcomer = PlayerFactory(name="Sub")
    partnership_substitute(
        partnership=r.forfeiting, actor=d, leaving=no_show, player=newcomer, reason="no-show"
    )
    assert record(r.stage) == before  # T11: the partnership keeps its record
    table_two = RoundMatch.objects.get(round=r.round, table_number=2).match_id
    match_result_override(
        match_id=table_two, actor=d, scores=[6, 0, 6, 0], placings=[1, 3, 1, 3], reason="sheet"
    )
    services.round_close(round=r.round, actor=d)
    r2 = services.round_publish(stage=r.stage, actor=d)
    playing = set(
        Seat.objects.filter(match__round_link__round=r2).values_list("entry_id", flat=True)
    ) | {int(b) for b in r2.byes}
    new_entry = Entry.objects.get(tournament=r.tournament, player=newcomer)
    assert new_entry.pk in playing
    assert no_show.pk not in playing


def test_a_substitute_for_a_withdrawn_player_keeps_the_partnership_in_the_stage() -> None:
    """T7 then T11 (README: "name a substitute to keep it playing"): withdrawing a player
    forfeits their table and withdraws their stage entry; the substitute took that withdrawn
    stage entry over, so the partnership was left out of round 2."""
    t, d, q = seeded_pairs(4)
    r1 = services.round_publish(stage=q, actor=d)
    links = list(RoundMatch.objects.filter(round=r1).order_by("table_number"))
    leaving = Seat.objects.get(match_id=links[0].match_id, seat=0).entry
    pair = PartnershipMember.objects.get(entry=leaving).partnership
    services.stage_entry_withdraw(stage=q, actor=d, entry=leaving, reason="ill")
    assert Match.objects.get(pk=links[0].match_id).end_reason == Match.EndReason.FORFEIT
    newcomer = PlayerFactory(name="Sub")
    partnership_substitute(
        partnership=pair, actor=d, leaving=leaving, player=newcomer, reason="withdrawn"
    )
    new_entry = Entry.objects.get(tournament=t, player=newcomer)
    taken = StageEntry.objects.get(stage=q, entry=new_entry)
    assert (taken.status, taken.out_round) == (StageEntry.Status.ACTIVE, None)
    match_result_override(
        match_id=links[1].match_id,
        actor=d,
        scores=[6, 0, 6, 0],
        placings=[1, 3, 1, 3],
        reason="sheet",
    )
    services.round_close(round=r1, actor=d)
    r2 = services.round_publish(stage=q, actor=d)
    seated = set(
        Seat.objects.filter(match__round_link__round=r2).values_list("entry_id", flat=True)
    )
    assert new_entry.pk in seated
    assert len(seated) == 8  # all four partnerships play round 2, no bye


def test_no_substitute_after_the_event() -> None:
    """The lifecycle gate: a finished tournament changes no more, so every partnership is
    refused, with the service's 409 and a short reason for the page."""
    from tests.pages.test_pairs_pages import finished_pairs_event

    t, d = finished_pairs_event()
    assert t.status == "finished"
    refusals = partnership_substitute_refusals(tournament=t, entry_ids=current_entries(t))
    assert len(refusals) == 4
    for refusal in refusals.values():
        assert refusal is not None
        assert refusal.reason == "The tournament is finished."
        assert (refusal.error.code, refusal.error.status_code) == ("tournament_finished", 409)
    member = PartnershipMember.objects.filter(partnership__tournament=t).first()
    assert member is not None
    with pytest.raises(ApplicationError) as finished:
        partnership_substitute(
            partnership=member.partnership,
            actor=d,
            leaving=member.entry,
            player=PlayerFactory(),
            reason="late",
        )
    assert finished.value.code == "tournament_finished"


def test_a_knockout_table_without_a_winner_waits_for_the_director() -> None:
    _t, d, _q, k = qualified_for_the_final(2)
    final = services.round_publish(stage=k, actor=d)
    assert final.kind == Round.Kind.FINAL
    link = RoundMatch.objects.get(round=final)
    match_result_override(
        match_id=link.match_id, actor=d, scores=[0, 0, 0, 0], placings=[1, 1, 1, 1], reason="time"
    )
    services.round_close(round=final, actor=d)
    with pytest.raises(ApplicationError) as exc:
        services.stage_advance(stage=k, actor=d)
    assert "T3" in exc.value.message
    assert Match.objects.get(pk=link.match_id).status == Match.Status.FINISHED
    assert Stage.objects.get(pk=k.pk).status != Stage.Status.FINISHED


def test_a_withdrawn_partnership_sits_out_and_places_after_the_others() -> None:
    from tournament.services import entry_withdraw

    t, d, pairs = make_pairs_tournament(4)
    q, k = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    gone = pairs[3]
    for m in PartnershipMember.objects.filter(partnership=gone).select_related("entry"):
        entry_withdraw(entry=m.entry, actor=d, reason="left the venue")
    r2 = services.round_publish(stage=q, actor=d)
    owner = pair_of(t)
    assert RoundMatch.objects.filter(round=r2).count() == 1  # three partnerships: 1 table
    seated = {
        owner[e]
        for e in Seat.objects.filter(match__round_link__round=r2).values_list("entry_id", flat=True)
    }
    assert gone.pk not in seated
    assert gone.pk not in {owner[e] for e in r2.byes}
    decide_round(r2, d)
    services.round_close(round=r2, actor=d)
    while services.round_preview(stage=q, actor=d).action == "publish_round":  # play-offs (T6)
        po = services.round_publish(stage=q, actor=d)
        decide_round(po, d)
        services.round_close(round=po, actor=d)
    services.stage_advance(stage=q, actor=d)
    places = {
        owner[e]: p
        for e, p in StageEntry.objects.filter(stage=q, placing__isnull=False).values_list(
            "entry_id", "placing"
        )
    }
    assert places[gone.pk] == 4  # after the three partnerships still playing (T10, T7)
    assert StageEntry.objects.filter(stage=k).count() == 4  # two partnerships go on


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_substitution_holds_the_stage_lock_a_round_publication_takes() -> None:
    """T11 "before a round": the substitution locks the stage (``stage_lock``, which
    ``round_publish`` takes first) before it checks the rule, so a round published at the same
    moment waits for it and cannot seat the player who is leaving."""
    r = round_with_a_forfeit()
    no_show = Seat.objects.get(match=r.forfeited, seat=0).entry
    with transaction.atomic():
        partnership_substitute(
            partnership=r.forfeiting,
            actor=r.director,
            leaving=no_show,
            player=PlayerFactory(),
            reason="no-show",
        )
        other = connections.create_connection("default")
        try:
            with other.cursor() as cursor, pytest.raises(DatabaseError):
                cursor.execute(
                    f'SELECT id FROM "{Stage._meta.db_table}" WHERE id = %s FOR UPDATE NOWAIT',
                    [r.stage.pk],
                )
        finally:
            other.close()
