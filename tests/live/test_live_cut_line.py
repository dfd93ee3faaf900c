"""The live standings' cut line (T6): "play-off needed" only for a tie across the line, the
outlook once no round is left, no line through a tie before the last round, level rows in
seed order. The spectator page must agree with the director's plan (brackets' advancement).

Sixteen players at four tables; every table's seat A wins, so the four winners never met
(no head-to-head, T5): their hands won decide them, and equal hands leave them level.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db.models import F

from brackets.models import Round, Stage, StageEntry
from brackets.selectors import stage_data
from brackets.services import round_advance
from brackets.services.planning import FINISH_STAGE, next_step_plan
from live import selectors
from scoring.models import Seat
from tests.live.conftest import LiveTournament, finish_round_fast, make_live_tournament

pytestmark = pytest.mark.django_db

OTHERS_HANDS = {1: 3, 2: 2, 3: 1}  # seats B, C, D: placed 2nd, 3rd, 4th at every table


def _play(rnd: Round, winners_hands: list[int]) -> None:
    """Finish ``rnd``: seat A of table t wins with ``winners_hands[t - 1]`` hands won."""
    finish_round_fast(rnd, seed=rnd.pk)
    for seat in Seat.objects.filter(match__round_link__round=rnd).select_related(
        "match__round_link"
    ):
        table = seat.match.round_link.table_number
        seat.placing = seat.seat + 1
        seat.hands_won = winners_hands[table - 1] if seat.seat == 0 else OTHERS_HANDS[seat.seat]
        seat.six_love_given = 0
        seat.save(update_fields=["placing", "hands_won", "six_love_given"])


def _stage(lt: LiveTournament) -> dict[str, Any]:
    lt.refresh()
    return next(
        s
        for s in selectors.standings(tournament=lt.tournament)["stages"]
        if s["stage"]["id"] == lt.stage.pk
    )


def _director_plan(lt: LiveTournament) -> Any:
    """What the director's page would do now with the played round (closed for the plan)."""
    Round.objects.filter(stage=lt.stage).update(status=Round.Status.CLOSED)
    try:
        return next_step_plan(stage_data(stage_id=lt.stage.pk))
    finally:
        Round.objects.filter(stage=lt.stage).update(status=Round.Status.PUBLISHED)


def test_a_tie_inside_the_cut_needs_no_playoff_before_or_after_the_stage_ends() -> None:
    # Cut 4: winners on 6, 5, 4, 4 hands: two level 3rd, both inside the cut (T6).
    lt = make_live_tournament(16, swiss_rounds=1, cut_size=4, slug="inside-open")
    _play(lt.round, [6, 5, 4, 4])
    stage = _stage(lt)
    rows = stage["rows"]
    assert [r["rank"] for r in rows[:5]] == [1, 2, 3, 3, 5]
    assert rows[2]["tie_group"] is not None
    assert not any(r["playoff_on_line"] for r in rows)
    assert [i for i, r in enumerate(rows) if r["cut_after"]] == [3]
    # The director's page: "4 go on, 12 out", no play-off; the spectators read the same.
    plan = _director_plan(lt)
    assert plan.action == FINISH_STAGE
    assert set(plan.advanced) == {r["entry_id"] for r in rows if r["outlook"] == "clinched"}
    assert len(plan.advanced) == 4
    # The stage ends: advanced, and still no "play-off needed".
    round_advance(round_id=lt.round.pk)
    assert Stage.objects.get(pk=lt.stage.pk).status == Stage.Status.FINISHED
    rows = _stage(lt)["rows"]
    assert [r["status"] for r in rows[:4]] == [StageEntry.Status.ADVANCED] * 4
    assert not any(r["playoff_on_line"] for r in rows)


def test_a_tie_across_the_cut_is_marked_for_the_playoff_the_director_will_seat() -> None:
    # Cut 3: the two winners on 4 hands play off for the last place.
    lt = make_live_tournament(16, swiss_rounds=1, cut_size=3, slug="across-open")
    _play(lt.round, [6, 5, 4, 4])
    rows = _stage(lt)["rows"]
    marked = {r["entry_id"] for r in rows if r["playoff_on_line"]}
    assert marked == {rows[2]["entry_id"], rows[3]["entry_id"]}
    assert set(_director_plan(lt).playoff_players) == marked
    # Once every round is played every row's outlook is decided (T6): clinched above the
    # line, eliminated below it, nothing for the players whose play-off decides.
    assert [r["outlook"] for r in rows] == ["clinched"] * 2 + [None] * 2 + ["eliminated"] * 12


def test_after_the_last_round_winners_below_the_cut_read_eliminated() -> None:
    # Cut 3: four players on one win; the one with fewest hands won is out, the three ahead
    # are through (the bound alone, counting a tie on wins as a threat, said neither).
    lt = make_live_tournament(16, swiss_rounds=1, cut_size=3, slug="decided-open")
    _play(lt.round, [6, 5, 4, 3])
    rows = _stage(lt)["rows"]
    assert [r["match_wins"] for r in rows[:5]] == [1, 1, 1, 1, 0]
    assert [r["outlook"] for r in rows] == ["clinched"] * 3 + ["eliminated"] * 13
    assert _director_plan(lt).advanced == tuple(r["entry_id"] for r in rows[:3])


def test_mid_stage_the_bound_still_decides_only_what_is_certain() -> None:
    lt = make_live_tournament(16, swiss_rounds=2, cut_size=3, slug="bound-open")
    _play(lt.round, [6, 5, 4, 3])
    rows = _stage(lt)["rows"]
    assert not any(r["outlook"] for r in rows)  # a round to go: everyone can still reach 2


def test_no_cut_line_through_a_tie_before_the_last_round() -> None:
    lt = make_live_tournament(16, swiss_rounds=2, cut_size=3, slug="tie-open")
    _play(lt.round, [6, 5, 4, 4])  # level 3rd and 4th across a cut of 3, a round to go
    stage = _stage(lt)
    rows = stage["rows"]
    assert stage["ranked"]
    assert not any(r["cut_after"] for r in rows)
    assert not any(r["playoff_on_line"] for r in rows)
    # Without a line, rows read above the cut by rank: the level pair is still in it.
    assert [r["above_cut"] for r in rows] == [True] * 4 + [False] * 12


def test_a_cut_line_clear_of_ties_is_drawn_mid_stage() -> None:
    lt = make_live_tournament(16, swiss_rounds=2, cut_size=4, slug="clear-open")
    _play(lt.round, [6, 5, 4, 4])  # the level pair is inside a cut of 4
    rows = _stage(lt)["rows"]
    assert [i for i, r in enumerate(rows) if r["cut_after"]] == [3]
    assert [r["above_cut"] for r in rows] == [True] * 4 + [False] * 12


def test_before_any_result_rows_are_in_seed_order_without_a_line(client: Any) -> None:
    lt = make_live_tournament(16, swiss_rounds=2, cut_size=4, slug="seed-open")
    # Reverse the stage's seeds, so seed order is not the order the entries were made.
    entrants = StageEntry.objects.filter(stage=lt.stage)
    entrants.update(seed=F("seed") + 100)
    entrants.update(seed=117 - F("seed"))
    by_seed = list(entrants.order_by("seed").values_list("entry_id", flat=True))
    assert by_seed != sorted(by_seed)
    stage = _stage(lt)
    rows = stage["rows"]
    assert not stage["ranked"]
    assert [r["entry_id"] for r in rows] == by_seed
    assert not any(r["cut_after"] for r in rows)
    html = client.get("/live/seed-open/standings/").content.decode()
    assert "cut-line" not in html


# Pairs (T10): the partnerships' table draws its line by the same rule (live.cut_line).


def _pairs_stage(swiss_rounds: int, cut_size: int) -> tuple[Any, Stage]:
    """Six partnerships, round 1 decided by the director: each table's AC wins 6-0, so the
    three winners are level on every T10 key (they never met), and so are the three losers."""
    from brackets import services
    from tests.brackets.pairs_helpers import decide_round, make_pairs_tournament, pairs_stages

    t, d, _ = make_pairs_tournament(6)
    q, _k = pairs_stages(t, d, swiss_rounds=swiss_rounds, cut_size=cut_size, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    return t, q


def _pairs_rows(t: Any, q: Stage) -> list[dict[str, Any]]:
    stages = selectors.standings(tournament=t)["stages"]
    return next(s["rows"] for s in stages if s["stage"]["id"] == q.pk)


def test_pairs_no_cut_line_through_a_tie_before_the_last_round(client: Any) -> None:
    # Cut 2 through the three level winners, a round to go: no line (was "1= | cut | 1=").
    t, q = _pairs_stage(swiss_rounds=2, cut_size=2)
    rows = _pairs_rows(t, q)
    assert [r["rank"] for r in rows] == [1, 1, 1, 4, 4, 4]
    assert not any(r["cut_after"] for r in rows)
    assert not any(r["playoff_on_line"] for r in rows)
    assert [r["above_cut"] for r in rows] == [True] * 3 + [False] * 3  # by rank, as individual
    html = client.get(f"/live/{t.slug}/standings/").content.decode()
    assert "cut-line" not in html
    assert "play-off needed" not in html


def test_pairs_a_cut_line_clear_of_ties_is_drawn_mid_stage(client: Any) -> None:
    t, q = _pairs_stage(swiss_rounds=2, cut_size=3)
    rows = _pairs_rows(t, q)
    assert [i for i, r in enumerate(rows) if r["cut_after"]] == [2]
    assert [r["above_cut"] for r in rows] == [True] * 3 + [False] * 3
    html = client.get(f"/live/{t.slug}/standings/").content.decode()
    assert html.count('class="cut-line"') == 1


def test_pairs_after_the_last_round_the_line_runs_through_the_tie_marked_playoff(
    client: Any,
) -> None:
    # No round left: the line is drawn through the tie and its rows need the play-off (T6),
    # as an individual stage's.
    t, q = _pairs_stage(swiss_rounds=1, cut_size=2)
    rows = _pairs_rows(t, q)
    assert [i for i, r in enumerate(rows) if r["cut_after"]] == [1]
    assert [r["playoff_on_line"] for r in rows] == [True] * 3 + [False] * 3
    html = client.get(f"/live/{t.slug}/standings/").content.decode()
    assert html.count('class="cut-line"') == 1
    assert html.count("play-off needed") == 3
