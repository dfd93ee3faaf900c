"""What spectators read around a play-off (T6), a forfeit (T7), the final table and before the
first result: the public bracket, standings, exports and a player's page agree with each other
and with what has been decided (a tester's 13-player event, reduced to its cases)."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Any

import pytest

from brackets.models import Round, Stage, StageEntry
from brackets.services import round_advance, round_close, round_publish
from live import selectors
from live.scope import RECENT
from scoring.models import Match
from scoring.services import match_forfeit, match_result_override
from tests.brackets.conftest import open_matches
from tests.live.conftest import LiveTournament, add_knockout, make_live_tournament

pytestmark = pytest.mark.django_db


def _override(rnd: Round, director: Any, scores: list[int] | None = None) -> None:
    """Every open match of ``rnd`` ends by the director's result: seat 0 first, 6-0 (or
    ``scores``), the others in seat order."""
    for m in open_matches(rnd):
        given = scores or [6] + [0] * (m.n_players - 1)
        match_result_override(
            match_id=m.pk,
            actor=director,
            scores=given[: m.n_players],
            placings=list(range(1, m.n_players + 1)),
            reason="score sheet",
        )


@dataclass
class PlayoffEvent:
    lt: LiveTournament
    final_stage: Stage
    playoff: Round
    winner: int
    loser: int


def _playoff_event(slug: str) -> PlayoffEvent:
    """8 players, one Swiss round, top 3 to a final table of 3; both stages wait for the
    director (auto-advance off). The two table winners go through; the two 2nd places are
    level on every T5 key and never met: a play-off table for 1 place (T6), which the first
    seat wins 6-0. It is played and closed; the director has not ended the stage yet."""
    lt = make_live_tournament(8, swiss_rounds=1, cut_size=3, slug=slug)
    final_stage = add_knockout(lt, name="Final", final_table_size=3, auto_advance=False)
    Stage.objects.filter(pk=lt.stage.pk).update(auto_advance=False)
    _override(lt.round, lt.director)
    assert round_advance(round_id=lt.round.pk, actor=lt.director).outcome == "published"
    playoff = Round.objects.get(stage=lt.stage, number=2)
    assert playoff.kind == Round.Kind.PLAYOFF
    assert playoff.advancing == 1
    (match,) = open_matches(playoff)
    seats = dict(match.seats.values_list("seat", "entry_id"))
    _override(playoff, lt.director)
    round_close(round=playoff, actor=lt.director)  # manual mode: closed, waiting
    lt.refresh()
    return PlayoffEvent(lt, final_stage, playoff, winner=seats[0], loser=seats[1])


def _finish(ev: PlayoffEvent) -> Round:
    """The director ends the qualifying stage; the final table of 3 is played 6-1-0."""
    lt = ev.lt
    assert round_advance(round_id=ev.playoff.pk, actor=lt.director).outcome == "stage_finished"
    ev.final_stage.refresh_from_db()
    final = round_publish(stage=ev.final_stage, actor=lt.director)  # the final waits for it
    assert final.kind == Round.Kind.FINAL
    _override(final, lt.director, scores=[6, 1, 0])
    round_advance(round_id=final.pk, actor=lt.director)
    lt.refresh()
    return final


def _seats(bracket: dict[str, Any], kind: str) -> dict[int, dict[str, Any]]:
    return {
        s["entry_id"]: s
        for st in bracket["stages"]
        for r in st["rounds"]
        if r["kind"] == kind
        for t in r["tables"]
        for s in t["seats"]
    }


def _rows(client: Any, url: str) -> list[dict[str, str]]:
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return list(csv.DictReader(io.StringIO(response.content.decode())))


# -- a play-off (T6) ------------------------------------------------------------------------


def test_the_bracket_shows_the_playoff_loser_out_as_soon_as_the_playoff_is_played(
    client: Any,
) -> None:
    """T6: the play-off's first ``advancing`` go on; the others are out, before the director
    ends the stage (the stage's out-round is only stored then)."""
    ev = _playoff_event("playoff-open")
    seats = _seats(selectors.bracket(tournament=ev.lt.tournament), "playoff")
    assert seats[ev.winner]["advanced"] is True
    assert seats[ev.loser]["advanced"] is False
    html = client.get("/live/playoff-open/bracket/").content.decode()
    playoff_html = html.split("Play-off table", 1)[1]
    loser_name = seats[ev.loser]["name"]
    loser_li = next(li for li in playoff_html.split("<li") if loser_name in li)
    assert 'class="out"' in loser_li
    assert "advanced" not in loser_li.split(">", 1)[1]
    # Ending the stage changes nothing the bracket already said.
    _finish(ev)
    seats = _seats(selectors.bracket(tournament=ev.lt.tournament), "playoff")
    assert (seats[ev.winner]["advanced"], seats[ev.loser]["advanced"]) == (True, False)


def test_the_bracket_shows_a_playoff_still_in_play_as_undecided() -> None:
    lt = make_live_tournament(8, swiss_rounds=1, cut_size=3, slug="undecided-open")
    Stage.objects.filter(pk=lt.stage.pk).update(auto_advance=False)
    add_knockout(lt, name="Final", final_table_size=3, auto_advance=False, rng_seed=None)
    _override(lt.round, lt.director)
    round_advance(round_id=lt.round.pk, actor=lt.director)
    lt.refresh()
    seats = _seats(selectors.bracket(tournament=lt.tournament), "playoff")
    assert len(seats) == 2
    assert all(s["advanced"] is None for s in seats.values())


def test_play_off_needed_gives_way_to_the_playoff_result_once_it_is_played(
    client: Any,
) -> None:
    """T5/T6: "play-off needed" only while the play-off is to be played; once it is, the rows
    say the play-off decided them, also after the tournament is finished."""
    ev = _playoff_event("decided-open")
    (qualifying,) = selectors.standings(tournament=ev.lt.tournament)["stages"][-1:]
    rows = {r["entry_id"]: r for r in qualifying["rows"]}
    for entry in (ev.winner, ev.loser):
        assert rows[entry]["playoff_on_line"] is False
        assert rows[entry]["playoff_played"] is True
    assert sum(r["playoff_played"] for r in rows.values()) == 2
    html = client.get("/live/decided-open/standings/").content.decode()
    assert "play-off needed" not in html
    assert html.count("decided by the play-off") == 4  # two rows, wide and narrow

    _finish(ev)
    assert ev.lt.tournament.status == "finished"
    qualifying = selectors.standings(tournament=ev.lt.tournament)["stages"][-1]
    assert not any(r["playoff_on_line"] for r in qualifying["rows"])
    RECENT.clear()  # the version lookup is reused for up to 1 s
    html = client.get("/live/decided-open/standings/").content.decode()
    assert "play-off needed" not in html
    assert html.count("decided by the play-off") == 4


# -- the finished event ---------------------------------------------------------------------


def test_the_standings_export_of_the_final_stage_agrees_with_the_page(client: Any) -> None:
    """The final table alone is the last stage: its rows count the final (T6), so the export
    gives each finalist's place, the one match played, its points and the champion's win
    (T4), and no finalist reads "eliminated"."""
    ev = _playoff_event("export-final")
    final = _finish(ev)
    table = Match.objects.get(round_link__round=final)
    placing = {s.entry_id: (s.placing, s.points) for s in table.seats.all()}
    champion = next(e for e, (p, _) in placing.items() if p == 1)
    final_doc = selectors.standings(tournament=ev.lt.tournament)["stages"][0]
    assert final_doc["placed"] is True
    assert final_doc["ranked"] is True
    assert next(line["entry_id"] for line in final_doc["final_table"]) == champion

    for rows in (
        [
            r
            for r in _rows(client, "/live/export-final/export/standings.csv")
            if r["stage"] == "Final"
        ],
        [
            {k: str(v) for k, v in r.items()}
            for r in client.get("/live/export-final/export/standings.json").json()
            if r["stage"] == "Final"
        ],
    ):
        assert len(rows) == 3
        by_name = {r["name"]: r for r in rows}
        for line in final_doc["final_table"]:
            row = by_name[line["name"]]
            assert row["place"] == str(line["place"])
            assert row["played"] == "1"
            assert row["points"] == str(line["points"])
            assert row["match_wins"] == ("1" if line["place"] == 1 else "0")
            assert row["status"] == "finished"
        assert [r["place"] for r in rows] == ["1", "2", "3"]
        assert by_name[final_doc["final_table"][0]["name"]]["outlook"] == "champion"


def test_the_champions_page_sums_up_the_event_not_qualifying(client: Any) -> None:
    ev = _playoff_event("champion-page")
    _finish(ev)
    final_doc = selectors.standings(tournament=ev.lt.tournament)["stages"][0]
    champion = final_doc["final_table"][0]
    html = client.get(f"/live/champion-page/players/{champion['entry_id']}/").content.decode()
    summary = html.split('class="player-summary"', 1)[1].split("</section>", 1)[0]
    assert "<dt>Place</dt>" in summary
    assert "1 of 8 · Final" in summary
    assert "Champion" in summary
    assert "1 of 1 match won" in summary
    assert "Earlier stages" in summary
    assert "of 8 · Qualifying" in summary.split("Earlier stages", 1)[1]


# -- a forfeit (T7) -------------------------------------------------------------------------


def test_the_bracket_labels_a_forfeits_continuation_and_who_played_on(client: Any) -> None:
    lt = make_live_tournament(8, cut_size=4, slug="forfeit-open")
    first = lt.matches()[0]
    forfeiting = first.seats.get(seat=2).entry_id
    result = match_forfeit(match_id=first.pk, actor=lt.director, seat=2, reason="no-show")
    assert result.continuation is not None
    # The finished (forfeited) match's task links its continuation to the round.
    assert round_advance(round_id=lt.round.pk).outcome == "in_play"
    lt.refresh()
    (round_1,) = selectors.bracket(tournament=lt.tournament)["stages"][0]["rounds"]
    tables = {t["match_id"]: t for t in round_1["tables"]}
    assert len(tables) == 3
    assert tables[result.continuation.pk]["continues"] == first.pk
    assert tables[first.pk]["continues"] is None
    seats = {s["entry_id"]: s for s in tables[first.pk]["seats"]}
    assert seats[forfeiting]["forfeited"] is True
    assert seats[forfeiting]["played_on"] is False
    assert [e for e, s in seats.items() if s["played_on"]] == [e for e in seats if e != forfeiting]
    continuation = tables[result.continuation.pk]["seats"]
    assert not any(s["played_on"] for s in continuation)

    html = client.get("/live/forfeit-open/bracket/").content.decode()
    assert html.count("continuation (T7)") == 1
    assert html.count("played on at the continuation") == 3
    assert "forfeit (T7)" in html  # the forfeited card says how it ended


def test_the_live_card_of_a_forfeited_match_names_who_forfeited(client: Any) -> None:
    """T7: the live table card and the live match page of a forfeited match name the player
    who forfeited (they used to read only "Match over · forfeit (T7)"); the continuation's
    card is a match in play like any other."""
    lt = make_live_tournament(8, cut_size=4, slug="forfeit-card")
    first = lt.matches()[0]
    gone = first.seats.select_related("entry__player").get(seat=2).entry.player
    result = match_forfeit(match_id=first.pk, actor=lt.director, seat=2, reason="no-show")
    assert result.continuation is not None
    RECENT.clear()
    tables = client.get("/live/forfeit-card/tables/").content.decode()
    card = tables.split(f'data-match="{first.pk}"', 1)[1].split("</article>", 1)[0]
    line = card.split('class="table-next"', 1)[1].split("</p>", 1)[0]
    assert f"Forfeit by {gone}: a 0\u20136 loss (T7)" in line
    assert line.lstrip(">").startswith("Match over")  # 3 played on: nobody won this match
    page = client.get(f"/live/forfeit-card/matches/{first.pk}/").content.decode()
    assert f"Forfeit by {gone}: a 0\u20136 loss (T7)" in page
    es = client.get(f"/live/forfeit-card/matches/{first.pk}/", HTTP_ACCEPT_LANGUAGE="es")
    assert str(gone) in es.content.decode().split('class="forfeit-note"', 1)[1]


# -- before the first result ----------------------------------------------------------------


def test_before_any_result_the_standings_rank_nobody_and_draw_no_cut_line(client: Any) -> None:
    lt = make_live_tournament(8, cut_size=4, slug="not-started")
    stage = selectors.standings(tournament=lt.tournament)["stages"][0]
    assert stage["ranked"] is False
    html = client.get("/live/not-started/standings/").content.decode()
    assert 'class="level-mark"' not in html
    assert 'class="cut-line"' not in html
    assert "No match of this stage is finished yet" in html
    _override(lt.round, lt.director)
    lt.refresh()
    RECENT.clear()  # the version lookup is reused for up to 1 s
    stage = selectors.standings(tournament=lt.tournament)["stages"][0]
    assert stage["ranked"] is True
    html = client.get("/live/not-started/standings/").content.decode()
    assert 'class="cut-line"' in html
    assert "No match of this stage is finished yet" not in html


def test_standings_list_the_playoff_winner_above_the_cut_line_t6() -> None:
    """The two level players of the play-off share a rank on the T5 keys; their rows follow the
    play-off's result, not their seeds: the winner above the cut line and the loser below,
    before and after the director ends the stage. Here the worse seed wins (found in a
    walkthrough: the loser was listed above the line, the winner below it)."""
    lt = make_live_tournament(8, swiss_rounds=1, cut_size=3, slug="upset-open")
    add_knockout(lt, name="Final", final_table_size=3, auto_advance=False)
    Stage.objects.filter(pk=lt.stage.pk).update(auto_advance=False)
    _override(lt.round, lt.director)
    assert round_advance(round_id=lt.round.pk, actor=lt.director).outcome == "published"
    playoff = Round.objects.get(stage=lt.stage, number=2)
    (match,) = open_matches(playoff)
    seats = dict(match.seats.values_list("seat", "entry_id"))
    seed = dict(StageEntry.objects.filter(stage=lt.stage).values_list("entry_id", "seed"))
    worse = max((0, 1), key=lambda s: seed[seats[s]])
    scores = [6, 0] if worse == 0 else [0, 6]
    placings = [1, 2] if worse == 0 else [2, 1]
    match_result_override(
        match_id=match.pk, actor=lt.director, scores=scores, placings=placings, reason="sheet"
    )
    round_close(round=playoff, actor=lt.director)
    winner, loser = seats[worse], seats[1 - worse]

    for _ in ("played", "stage ended"):
        RECENT.clear()
        rows = selectors.standings(tournament=lt.tournament)["stages"][-1]["rows"]
        order = [r["entry_id"] for r in rows]
        assert order.index(winner) == 2 < order.index(loser) == 3
        by_entry = {r["entry_id"]: r for r in rows}
        assert by_entry[winner]["above_cut"] is True
        assert by_entry[winner]["cut_after"] is True
        assert by_entry[loser]["above_cut"] is False
        round_advance(round_id=playoff.pk, actor=lt.director)


def test_the_directors_standings_api_lists_a_played_off_tie_in_the_playoffs_result() -> None:
    """Walkthrough: the live standings listed the play-off's winner first, the director's
    API (``/api/tournaments/<slug>/stages/<id>/standings/``) still in seed order. The worse
    seed wins the play-off here, so seed order and the play-off's result differ."""
    from rest_framework.test import APIClient

    lt = make_live_tournament(8, swiss_rounds=1, cut_size=3, slug="api-playoff")
    add_knockout(lt, name="Final", final_table_size=3, auto_advance=False)
    Stage.objects.filter(pk=lt.stage.pk).update(auto_advance=False)
    _override(lt.round, lt.director)
    assert round_advance(round_id=lt.round.pk, actor=lt.director).outcome == "published"
    playoff = Round.objects.get(stage=lt.stage, kind=Round.Kind.PLAYOFF)
    (match,) = open_matches(playoff)
    seed = dict(StageEntry.objects.filter(stage=lt.stage).values_list("entry_id", "seed"))
    seats = sorted(match.seats.values_list("seat", "entry_id"), key=lambda s: seed[s[1]])
    worse_seat, worse = seats[-1]
    better = seats[0][1]
    scores = [6 if s == worse_seat else 0 for s in range(match.n_players)]
    match_result_override(
        match_id=match.pk,
        actor=lt.director,
        scores=scores,
        placings=[1 if s == worse_seat else 2 for s in range(match.n_players)],
        reason="score sheet",
    )
    round_close(round=playoff, actor=lt.director)

    live = selectors.standings(tournament=lt.tournament)["stages"][-1]["rows"]
    live_order = [r["entry_id"] for r in live if r["entry_id"] in (worse, better)]
    assert live_order == [worse, better]
    api = APIClient()
    api.force_authenticate(lt.director)
    answer = api.get(f"/api/tournaments/api-playoff/stages/{lt.stage.pk}/standings/")
    assert answer.status_code == 200, answer.content
    rows = answer.json()
    rows = rows.get("results", rows) if isinstance(rows, dict) else rows
    ids = [r["entry_id"] for r in rows]
    assert [e for e in ids if e in (worse, better)] == [worse, better]
    assert ids == [r["entry_id"] for r in live]


def test_a_players_hands_tables_are_named_apart_when_the_table_number_repeats(
    client: Any,
) -> None:
    """axe (landmark-unique): the play-off winner played a play-off table and the final, both
    at table 1, and their page had two regions named "Hands at table 1"; each names its round
    too, in English and in Spanish."""
    ev = _playoff_event("hands-named")
    _finish(ev)
    for language in ("en", "es"):
        html = client.get(
            f"/live/hands-named/players/{ev.winner}/", HTTP_ACCEPT_LANGUAGE=language
        ).content.decode()
        labels = re.findall(r'class="table-scroll" role="region" aria-label="([^"]+)"', html)
        assert len(labels) == 3, labels  # qualifying round 1, the play-off, the final
        assert len(set(labels)) == 3, labels
    assert "Manos en la mesa 1: Final, ronda 1" in labels
