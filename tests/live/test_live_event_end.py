"""What spectators read around a play-off (T6), a forfeit (T7), the final table and before the
first result: the public bracket, standings, exports and a player's page agree with each other
and with what has been decided (a tester's 13-player event, reduced to its cases)."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import Any

import pytest

from brackets.models import Round, Stage
from brackets.services import round_advance, round_close, round_publish, stage_create
from live import selectors
from scoring.services import match_result_override
from tests.brackets.conftest import open_matches
from tests.live.conftest import LiveTournament, make_live_tournament

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
    final_stage = stage_create(
        tournament=lt.tournament,
        actor=lt.director,
        name="Final",
        kind=Stage.Kind.KNOCKOUT,
        final_table_size=3,
        rng_seed=3,
        auto_advance=False,
    )
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
    stage_create(
        tournament=lt.tournament,
        actor=lt.director,
        name="Final",
        kind=Stage.Kind.KNOCKOUT,
        final_table_size=3,
        auto_advance=False,
    )
    _override(lt.round, lt.director)
    round_advance(round_id=lt.round.pk, actor=lt.director)
    lt.refresh()
    seats = _seats(selectors.bracket(tournament=lt.tournament), "playoff")
    assert len(seats) == 2
    assert all(s["advanced"] is None for s in seats.values())
