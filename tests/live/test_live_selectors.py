"""Standings (T5), the cut line and outlook (T6), the bracket to the final table and placings,
and a player's results, on a tournament played through the brackets services."""

from __future__ import annotations

from typing import Any

import pytest

from brackets.models import Round, Stage, StageEntry
from brackets.selectors import standings_for_stage
from brackets.services import round_advance, stage_create
from live import selectors
from tests.live.conftest import (
    LiveTournament,
    add_knockout,
    finish_round_fast,
    make_live_tournament,
    play_hands,
    start_match,
)

pytestmark = pytest.mark.django_db


def _advance_until_done(lt: LiveTournament, *, max_rounds: int = 10) -> None:
    """Finish every published round and let the brackets services advance, to the end."""
    for _ in range(max_rounds):
        rnd = (
            Round.objects.filter(stage__tournament=lt.tournament, status=Round.Status.PUBLISHED)
            .order_by("-id")
            .first()
        )
        if rnd is None:
            return
        finish_round_fast(rnd, seed=rnd.pk)
        round_advance(round_id=rnd.pk)
    raise AssertionError("the tournament did not finish")


@pytest.fixture
def two_stage() -> LiveTournament:
    lt = make_live_tournament(16, swiss_rounds=2, cut_size=8, slug="two-stage")
    add_knockout(lt)
    return lt


def test_standings_follow_t5_with_the_tiebreak_columns_and_the_cut_line(two_stage: Any) -> None:
    finish_round_fast(two_stage.round, seed=1)
    lt = two_stage
    lt.refresh()
    data = selectors.standings(tournament=lt.tournament)
    stage = next(s for s in data["stages"] if s["stage"]["id"] == lt.stage.pk)
    rows = stage["rows"]
    assert [r["entry_id"] for r in rows] == list(standings_for_stage(stage_id=lt.stage.pk).order())
    keys = [(r["match_wins"], r["hands_won"], r["six_loves_given"]) for r in rows]
    assert keys == sorted(keys, reverse=True)  # T5 keys 1-3
    assert [r["rank"] for r in rows] == sorted(r["rank"] for r in rows)
    for r in rows:
        assert {"head_to_head", "decided_by", "tie_group", "played"} <= set(r)
    assert stage["cut"] == 8
    assert [i for i, r in enumerate(rows) if r["cut_after"]] == [7]
    assert [r["above_cut"] for r in rows] == [True] * 8 + [False] * 8


def test_outlook_is_certain_only() -> None:
    lt = make_live_tournament(16, swiss_rounds=2, cut_size=4, slug="outlook-open")
    finish_round_fast(lt.round, seed=2)
    # After one round of two, four table winners have 1 win; everyone can still reach 2.
    rows = selectors.standings(tournament=lt.tournament)["stages"][0]["rows"]
    assert not any(r["outlook"] for r in rows)
    round_advance(round_id=lt.round.pk)  # publishes round 2
    finish_round_fast(Round.objects.get(stage=lt.stage, number=2), seed=3)
    # Both rounds played, the stage not advanced yet: no round is left, so the standings and
    # the cut decide every row (T6), players level on match wins included.
    rows = selectors.standings(tournament=lt.tournament)["stages"][0]["rows"]
    # Players level across the line get neither: their play-off decides (T6).
    expected = [
        None if r["playoff_on_line"] else "clinched" if i < 4 else "eliminated"
        for i, r in enumerate(rows)
    ]
    assert [r["outlook"] for r in rows] == expected
    assert expected.count("eliminated") >= 10  # players with a win among them


def test_after_advancement_the_stage_verdict_is_shown(two_stage: Any) -> None:
    lt = two_stage
    finish_round_fast(lt.round, seed=4)
    round_advance(round_id=lt.round.pk)
    r2 = Round.objects.get(stage=lt.stage, number=2)
    finish_round_fast(r2, seed=5)
    round_advance(round_id=r2.pk)  # stage 1 finishes, knockout seeded and published
    rows = selectors.standings(tournament=lt.tournament)["stages"][-1]["rows"]  # stage 1 last
    statuses = dict(StageEntry.objects.filter(stage=lt.stage).values_list("entry_id", "status"))
    for r in rows:
        expected = {"advanced": "advanced", "eliminated": "eliminated"}.get(statuses[r["entry_id"]])
        assert r["outlook"] == expected
    assert sum(r["outlook"] == "advanced" for r in rows) == 8


def test_bracket_goes_to_the_final_table_and_placings(two_stage: Any) -> None:
    lt = two_stage
    _advance_until_done(lt)
    data = selectors.bracket(tournament=lt.tournament)
    qualifying, knockout = data["stages"]
    # Two Swiss rounds; a play-off round follows only when the random results left players
    # level on the cut line (T6: a play-off table), which depends on the seeds (round ids,
    # so on test order).
    kinds_q = [r["kind"] for r in qualifying["rounds"]]
    assert kinds_q[:2] == ["swiss", "swiss"]
    assert all(k == "playoff" for k in kinds_q[2:]), kinds_q
    assert len(qualifying["advanced"]) == 8
    kinds = [r["kind"] for r in knockout["rounds"]]
    assert kinds[-1] == "final"
    first_ko = knockout["rounds"][0]
    marks = [s["advanced"] for t in first_ko["tables"] for s in t["seats"]]
    assert True in marks
    assert False in marks  # T6: some went on, some went out at each table
    for table in first_ko["tables"]:
        winner = next(s for s in table["seats"] if s["placing"] == 1)
        assert winner["advanced"] is True  # top 1 of every table goes on
    final = knockout["rounds"][-1]["tables"][0]
    assert len(final["seats"]) in (3, 4)
    places = [p["place"] for p in data["placings"]]
    assert places[0] == 1
    assert places == sorted(places)
    champion = next(s for s in final["seats"] if s["placing"] == 1)
    assert data["placings"][0]["entry_id"] == champion["entry_id"]


def test_the_finished_last_stage_lists_event_places_and_names_the_champion(
    two_stage: Any, client: Any
) -> None:
    """Once the final is played the knockout's rows are the event's places, not T5 ranks over
    the rounds before the final: the champion first and marked (not "eliminated"), the other
    final-table players next, then the players out in earlier rounds (T6)."""
    lt = two_stage
    assert selectors.bracket(tournament=lt.tournament)["champion"] is None  # still to play
    _advance_until_done(lt)
    lt.tournament.refresh_from_db()
    knockout, qualifying = selectors.standings(tournament=lt.tournament)["stages"]
    ko_stage = Stage.objects.get(tournament=lt.tournament, kind=Stage.Kind.KNOCKOUT)
    stored: dict[int, int] = {
        entry: int(place or 0)
        for entry, place in StageEntry.objects.filter(stage=ko_stage).values_list(
            "entry_id", "placing"
        )
    }
    assert all(stored.values())  # every player of the finished last stage has a place
    rows = knockout["rows"]
    assert knockout["placed"] is True
    assert [r["place"] for r in rows] == sorted(stored.values())
    assert {r["entry_id"]: r["place"] for r in rows} == stored
    final = selectors.bracket(tournament=lt.tournament)
    final_table = final["stages"][-1]["rounds"][-1]
    assert final_table["kind"] == "final"
    finalists = {s["entry_id"] for t in final_table["tables"] for s in t["seats"]}
    winner = next(s for t in final_table["tables"] for s in t["seats"] if s["placing"] == 1)
    assert rows[0]["entry_id"] == winner["entry_id"]
    outlooks = {r["entry_id"]: r["outlook"] for r in rows}
    assert outlooks[winner["entry_id"]] == "champion"
    assert {e for e, o in outlooks.items() if o == "final_table"} == finalists - {
        winner["entry_id"]
    }
    assert all(o == "eliminated" for e, o in outlooks.items() if e not in finalists)
    # The qualifying stage keeps its T5 order and its advanced / eliminated verdicts.
    assert qualifying["placed"] is False
    assert all(r["place"] is None for r in qualifying["rows"])
    assert [r["rank"] for r in qualifying["rows"]] == sorted(r["rank"] for r in qualifying["rows"])
    # The bracket names the champion once, on the final table's seat.
    assert final["champion"] == {"entry_id": winner["entry_id"], "name": winner["name"]}
    marked = [
        (r["kind"], s["entry_id"])
        for st in final["stages"]
        for r in st["rounds"]
        for t in r["tables"]
        for s in t["seats"]
        if s["champion"]
    ]
    assert marked == [("final", winner["entry_id"])]

    html = client.get(f"/live/{lt.tournament.slug}/standings/").content.decode()
    ko_html, q_html = html.split('id="st-', 2)[1:]
    assert ">Place</th>" in ko_html
    assert ">Rank</th>" in q_html
    assert "Listed by final place" in ko_html
    assert 'class="outlook outlook-champion">Champion<' in ko_html
    bracket_html = client.get(f"/live/{lt.tournament.slug}/bracket/").content.decode()
    assert "Champion:" in bracket_html
    assert bracket_html.count('<li class="champion">') == 1


def test_a_shared_first_place_names_no_champion() -> None:
    """T3: players still level share the placing and a shared first place is not a win, so
    the bracket names nobody until the director's play-off splits it."""
    from brackets.selectors import Placing
    from tournament.models import Tournament

    finished = Tournament(status=Tournament.Status.FINISHED)
    alone = [Placing(7, 1, 2, "Ana"), Placing(8, 2, 2, "Bo")]
    shared = [Placing(7, 1, 2, "Ana"), Placing(8, 1, 2, "Bo")]
    assert selectors._champion(finished, alone) == {"entry_id": 7, "name": "Ana"}
    assert selectors._champion(finished, shared) is None
    running = Tournament(status=Tournament.Status.RUNNING)
    assert selectors._champion(running, alone) is None


def test_player_results_list_matches_and_hands(two_stage: Any) -> None:
    lt = two_stage
    match = lt.matches()[0]
    payloads = start_match(match, lt.director, seed=11)
    play_hands(match, lt.director, payloads[:4])
    entry_id = match.seats.get(seat=2).entry_id
    lt.refresh()
    data = selectors.player_results(tournament=lt.tournament, entry_id=entry_id)
    assert data is not None
    assert data["entry"]["id"] == entry_id
    (only,) = data["matches"]
    assert only["seat"] == 2
    assert [h["number"] for h in only["hands"]] == [1, 2, 3, 4]
    assert only["match"]["hands_count"] == 4
    assert only["round"]["number"] == 1
    assert selectors.player_results(tournament=lt.tournament, entry_id=10**9) is None


def test_tables_show_only_the_current_round(two_stage: Any) -> None:
    lt = two_stage
    finish_round_fast(lt.round, seed=6)
    round_advance(round_id=lt.round.pk)
    lt.refresh()
    data = selectors.live_tables(tournament=lt.tournament)
    assert [r["number"] for r in data["rounds"]] == [2]
    assert {t["round"]["number"] for t in data["tables"]} == {2}
    assert [t["table_number"] for t in data["tables"]] == [1, 2, 3, 4]
    summary = selectors.tournament_summary(tournament=lt.tournament)
    assert summary["current_rounds"][0]["number"] == 2
    assert summary["tables"] == {"total": 4, "in_progress": 0, "finished": 0}


def test_playoff_is_flagged_only_on_the_line_once_every_round_is_played() -> None:
    from scoring.models import Seat

    def level_winners(rnd: Round) -> None:
        # The four table winners level on every T5 key (they never met: no head-to-head),
        # the runners-up strictly behind them.
        seats = Seat.objects.filter(match__round_link__round=rnd)
        seats.filter(placing=1).update(hands_won=6, six_love_given=0)
        seats.exclude(placing=1).update(hands_won=1, six_love_given=0)

    lt = make_live_tournament(16, swiss_rounds=1, cut_size=3, slug="line-open")
    finish_round_fast(lt.round, seed=21)
    level_winners(lt.round)
    rows = selectors.standings(tournament=lt.tournament)["stages"][0]["rows"]
    assert [r["playoff_on_line"] for r in rows] == [True] * 4 + [False] * 12  # 4 for 3 spots
    # Mid-stage (another round to come) nobody needs a play-off yet, however level.
    lt2 = make_live_tournament(16, swiss_rounds=2, cut_size=3, slug="mid-open")
    finish_round_fast(lt2.round, seed=21)
    level_winners(lt2.round)
    stage = selectors.standings(tournament=lt2.tournament)["stages"][0]
    rows = stage["rows"]
    assert all(r["tie_group"] is not None for r in rows[:4])
    assert not any(r["playoff_on_line"] for r in rows)
    # The group is listed once and referenced by index: the body is linear in the field.
    group = stage["tie_groups"][rows[0]["tie_group"]]
    assert {r["entry_id"] for r in rows[:4]} <= set(group)
    assert sum(len(g) for g in stage["tie_groups"]) == sum(
        1 for r in rows if r["tie_group"] is not None
    )
    assert all("tied_with" not in r for r in rows)
    # The standings page marks every level row from its group reference.
    from live.presenters.documents import html_region
    from live.scope import PublicTournament

    lt2.tournament.refresh_from_db()
    public = PublicTournament(id=lt2.tournament.pk, slug="mid-open", version=lt2.tournament.version)
    region = html_region("standings", public)
    assert region is not None
    assert region.count('class="level-mark"') == sum(1 for r in rows if r["tie_group"] is not None)


def test_document_builds_pause_the_garbage_collector_and_restore_it() -> None:
    """Issue 19: full collections during a large build walked the whole heap."""
    import gc

    from live.presenters.documents import _gc_paused

    assert gc.isenabled()
    with _gc_paused():
        assert not gc.isenabled()
        with _gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer build is still running
    assert gc.isenabled()
    gc.disable()
    try:
        with _gc_paused():
            pass
        assert not gc.isenabled()  # left as the process had it
    finally:
        gc.enable()


def test_a_played_final_table_shows_its_result_on_the_standings_page(client: Any) -> None:
    """A final-table stage has no T5 rows worth showing (the final places by its own result,
    not by T5): the standings page gives the final's placings, champion first, instead of
    four rows of 0 wins and "1=" (issue 13)."""
    lt = make_live_tournament(8, swiss_rounds=1, cut_size=4, slug="final-four")
    stage_create(
        tournament=lt.tournament,
        actor=lt.director,
        name="Final",
        kind=Stage.Kind.KNOCKOUT,
        advance_per_table=1,
        final_table_size=4,
        rng_seed=3,
        auto_advance=True,
    )
    _advance_until_done(lt)
    final_stage = Stage.objects.get(tournament=lt.tournament, name="Final")
    assert [r.kind for r in final_stage.rounds.all()] == [Round.Kind.FINAL]
    champion_id = next(p.entry_id for p in final_placings(lt) if p.place == 1)

    stages = selectors.standings(tournament=lt.tournament)["stages"]
    final, qualifying = stages  # latest stage first
    assert final["rows_counted"] is False
    assert [p["place"] for p in final["final_table"]] == [1, 2, 3, 4]
    assert final["final_table"][0]["entry_id"] == champion_id
    assert qualifying["rows_counted"] is True
    assert qualifying["final_table"] is None

    html = client.get("/live/final-four/standings/").content.decode()
    final_html, qualifying_html = html.split('id="st-', 2)[1:]
    assert "Final table result" in final_html
    assert 'class="standings"' not in final_html  # no meaningless rows
    assert final_html.index(f'data-entry="{champion_id}"') < min(
        final_html.index(f'data-entry="{e["entry_id"]}"') for e in final["final_table"][1:]
    )
    assert 'class="standings"' in qualifying_html  # the qualifying table is still there
    assert "Final table result" not in qualifying_html


def final_placings(lt: LiveTournament) -> list[Any]:
    from brackets.selectors import tournament_placings

    return tournament_placings(tournament_id=lt.tournament.pk)


def _stable_seed(rnd: Round) -> int:
    return rnd.stage.number * 100 + rnd.number


def test_a_knockout_round_closed_but_not_yet_advanced_marks_nobody(two_stage: Any) -> None:
    """T6: who goes on from a knockout round is decided when the director (or auto-advance)
    advances it. Closed with auto-advance off, the bracket marked every seat "went on", the
    losers too; now nobody is marked until the advancement, then winners and losers are."""
    lt = two_stage
    for _ in range(10):  # play the qualifying stage until the knockout's first round is out
        rnd = (
            Round.objects.filter(stage__tournament=lt.tournament, status=Round.Status.PUBLISHED)
            .order_by("-id")
            .first()
        )
        assert rnd is not None
        if rnd.stage.number == 2:
            break
        # Seeds from the round's place, not its id: ids depend on the tests run before (a
        # result with places 2 and 3 level leaves a knockout seat undecided, T6).
        finish_round_fast(rnd, seed=_stable_seed(rnd))
        round_advance(round_id=rnd.pk)
    # Its results are in and it is closed, as the last result closes it under auto-advance off.
    finish_round_fast(rnd, seed=_stable_seed(rnd))
    Round.objects.filter(pk=rnd.pk).update(status=Round.Status.CLOSED)

    def first_knockout_marks() -> set[bool | None]:
        knockout = selectors.bracket(tournament=lt.tournament)["stages"][1]
        return {s["advanced"] for t in knockout["rounds"][0]["tables"] for s in t["seats"]}

    assert first_knockout_marks() == {None}
    lt.tournament.refresh_from_db()  # the live document is keyed by the version
    round_advance(round_id=rnd.pk)
    lt.tournament.refresh_from_db()
    assert first_knockout_marks() == {True, False}


def test_a_playoff_table_is_not_counted_as_a_round_of_the_stage() -> None:
    """Walkthrough: with a play-off table (T6) published the standings read "Rounds complete:
    2 of 2 published. The stage has 1 round." The line counts the rounds of the plan."""
    from scoring.models import Seat

    lt = make_live_tournament(16, swiss_rounds=1, cut_size=3, slug="count-open")
    finish_round_fast(lt.round, seed=21)
    seats = Seat.objects.filter(match__round_link__round=lt.round)
    seats.filter(placing=1).update(hands_won=6, six_love_given=0)  # four level winners
    seats.exclude(placing=1).update(hands_won=1, six_love_given=0)
    round_advance(round_id=lt.round.pk)
    playoff = Round.objects.get(stage=lt.stage, kind=Round.Kind.PLAYOFF)
    assert playoff.status == Round.Status.PUBLISHED
    stage = selectors.standings(tournament=lt.tournament)["stages"][0]
    assert (stage["rounds_published"], stage["rounds_complete"]) == (1, 1)
    # Its title does not read like a table number ("Play-off table (T6) 2").
    from django.test import Client
    from django.urls import reverse

    director = Client()
    director.force_login(lt.director)
    slug = lt.tournament.slug
    sheets = director.get(reverse("brackets:sheets", args=[slug, playoff.pk])).content.decode()
    bracket = director.get(reverse("brackets:bracket", args=[slug])).content.decode()
    for html in (sheets, bracket):
        assert "Play-off (T6) · round 2" in html
        assert "Play-off table (T6) 2" not in html
    finish_round_fast(playoff, seed=22)
    stage = selectors.standings(tournament=lt.tournament)["stages"][0]
    assert (stage["rounds_published"], stage["rounds_complete"]) == (1, 1)
