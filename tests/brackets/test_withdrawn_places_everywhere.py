"""A withdrawn player's place reads the same on every page (T7, T3, T5, T6).

A tester ran an event as a director: one player withdrew before playing (no place, README
"Stages" 9) and one was withdrawn mid-event (T7). The finished event's qualifying standings
showed the mid-event withdrawal as "17=" (level with three players who played every round, the
legend saying "a play-off decides"), while the bracket's final placings and the results export
placed them 20th, alone. The decision (README "Stages" 5): a withdrawn player is placed after
everyone still in, and the standings rank them there too; withdrawn players are ordered by who
went further, then by the stage's standings, and share a place only when level on both: seed
order never decides (T3).

Built through the services; every match is a director's result (seat A wins 6-0, the others
placed in seat order, no hands), so the event replays the same on every run.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from brackets import services
from brackets.models import Round, Stage, StageEntry
from brackets.selectors import standings_for_stage, tournament_placings
from live import selectors as live
from tests.brackets.conftest import make_tournament
from tests.brackets.test_brackets_services import finish_round, qualifying, seated
from tournament import services as tournament_services
from tournament.models import Entry, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@dataclass
class Event:
    tournament: Tournament
    director: Any
    qualifying: Stage
    absent: int
    gone: list[int]


def _play_out(t: Tournament, d: Any) -> None:
    """Every round still to play, to the end of the event (director's results)."""
    while (
        rnd := Round.objects.filter(stage__tournament=t, status="published").first()
    ) is not None:
        finish_round(rnd, d)
        services.round_advance(round_id=rnd.pk)


def _event(withdraw: Callable[[Round, Round], list[int]]) -> Event:
    """21 entries, a qualifying stage of two Swiss rounds cut to 8, a knockout (top 2 of each
    table) to a final of 4. The last entry withdraws before round 1; in round 2 the players
    ``withdraw(round 1, round 2)`` names are withdrawn (T7): their match is forfeited."""
    t, d = make_tournament(21)
    q = qualifying(t, d, swiss_rounds=2, cut_size=8)
    services.stage_create(
        tournament=t,
        actor=d,
        name="Knockout",
        kind="knockout",
        advance_per_table=2,
        rng_seed=11,
        auto_advance=True,
    )
    absent = Entry.objects.filter(tournament=t).order_by("-id").first()
    assert absent is not None
    tournament_services.entry_withdraw(entry=absent, actor=d, reason="did not come")
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    services.round_advance(round_id=r1.pk)
    r2 = Round.objects.get(stage=q, number=2)
    gone = withdraw(r1, r2)
    for entry_id in gone:
        services.stage_entry_withdraw(
            stage=q, actor=d, entry=Entry.objects.get(pk=entry_id), reason="left"
        )
    _play_out(t, d)
    t.refresh_from_db()
    assert t.status == "finished"
    return Event(tournament=t, director=d, qualifying=q, absent=absent.pk, gone=gone)


def _qualifying_rows(ev: Event) -> dict[int, dict[str, Any]]:
    stages = live.standings(tournament=ev.tournament)["stages"]
    (rows,) = [s["rows"] for s in stages if s["stage"]["id"] == ev.qualifying.pk]
    return {r["entry_id"]: r for r in rows}


def test_a_withdrawn_player_has_one_place_on_every_page(client: Client) -> None:
    """The tester's event: the withdrawn player is level on every T5 key with three players
    who played both rounds (no win, no hand, no six-love; head-to-head cannot split them). The
    standings ranked all four "17=" while the placings gave the withdrawn player 20th."""
    ev = _event(lambda r1, r2: [seated(r2)[-1][1]])
    (gone,) = ev.gone
    t = ev.tournament
    places = {p.entry_id: p.place for p in tournament_placings(tournament_id=t.pk)}
    assert ev.absent not in places  # never played: no place (README "Stages" 9)
    assert len(places) == 20
    assert places[gone] == 20
    assert sorted(places.values())[-2] < 20  # nobody else is 20th

    # The stage's standings (live selector and API): 20th alone, after everyone still in.
    rows = _qualifying_rows(ev)
    assert ev.absent not in rows
    assert (rows[gone]["rank"], rows[gone]["tie_group"]) == (20, None)
    # The players still in that it was level with share 16th (T5): four, not three sharing
    # 17th as before, because the one who finished ahead of the withdrawn player no longer
    # earns a head-to-head point for it (T5: "among the tied players"; a withdrawn player is
    # never tied with one still in, README "Rule decisions").
    level = [e for e, r in rows.items() if e != gone and r["rank"] == 16]
    assert len(level) == 4
    assert all(places[e] == 16 for e in level)
    assert all(rows[e]["tie_group"] is not None for e in level)
    # Below the cut (no play-off there) every rank is the place the stage gave the player.
    for e, r in rows.items():
        if r["rank"] > 8:
            assert r["rank"] == places[e], e
    api = client.get(f"/api/v1/live/{t.slug}/standings/").json()
    (q_api,) = [s for s in api["stages"] if s["stage"]["id"] == ev.qualifying.pk]
    (row,) = [r for r in q_api["rows"] if r["entry_id"] == gone]
    assert (row["rank"], row["tie_group"]) == (20, None)

    # The standings page: "20" without the "=" of a tie.
    page = client.get(f"/live/{t.slug}/standings/").content.decode()
    section = page.split(f'id="st-{ev.qualifying.pk}"', 1)[1].split("</section>", 1)[0]
    name = Entry.objects.select_related("player").get(pk=gone).player.name
    cells = re.search(
        r'<td class="num">([^<]*)(<span class="level-mark")?[^\n]*?</td>\s*<th scope="row">'
        rf'<a href="/live/{t.slug}/players/{gone}/">',
        section,
    )
    assert cells is not None
    assert (cells.group(1), cells.group(2)) == ("20", None)
    # "=" is level after every key (T5); a play-off only settles a tie on the advancement
    # line when the stage ends (T6), not every tie while rounds remain.
    assert (
        "Level after every key (T5): only a tie on the advancement line at the end of the "
        "stage is played off (T6)"
    ) in section
    assert "a play-off decides" not in section

    # The player's page and the bracket (spectators' and the director's).
    player = client.get(f"/live/{t.slug}/players/{gone}/").content.decode()
    assert "20 of 20" in player
    assert "(level)" not in player
    bracket = client.get(f"/live/{t.slug}/bracket/").content.decode()
    assert f'<li value="20"><a href="/live/{t.slug}/players/{gone}/">{name}</a></li>' in bracket
    client.force_login(ev.director)
    director = client.get(f"/director/tournaments/{t.slug}/bracket/").content.decode()
    assert f'<li value="20">{name}</li>' in director

    # The results export: rank and place agree on the withdrawn player's row.
    body = client.get(f"/live/{t.slug}/export/standings.csv").content.decode()
    (line,) = [
        r
        for r in csv.DictReader(io.StringIO(body))
        if r["entry_id"] == str(gone) and r["stage"] == ev.qualifying.name
    ]
    assert (line["rank"], line["place"]) == ("20", "20")

    # The director's API standings and placings.
    api_client = APIClient()
    api_client.force_authenticate(ev.director)
    lines = api_client.get(
        f"/api/v1/tournaments/{t.slug}/stages/{ev.qualifying.pk}/standings/"
    ).json()
    (mine,) = [x for x in lines if x["entry_id"] == gone]
    assert (mine["rank"], mine["tied_with"]) == (20, [])
    placings = api_client.get(f"/api/v1/tournaments/{t.slug}/placings/").json()
    assert [p["place"] for p in placings if p["entry_id"] == gone] == [20]


def test_withdrawn_players_level_share_a_place_and_seed_decides_nothing() -> None:
    """Two players withdrawn in the same round and level on every T5 key (4th at their tables
    in round 1, then a forfeit) share 19th: they were placed 19th and 20th by seed (T3: seed
    order never decides a placing). The standings rank them 19th too, after everyone still
    in."""
    ev = _event(lambda r1, r2: [seated(r1)[0][3], seated(r1)[1][3]])
    a, b = ev.gone
    standings = {r.player_id: r for r in standings_for_stage(stage_id=ev.qualifying.pk)}
    assert (standings[a].match_wins, standings[a].hands_won, standings[a].six_loves_given) == (
        standings[b].match_wins,
        standings[b].hands_won,
        standings[b].six_loves_given,
    )
    seeds = dict(StageEntry.objects.filter(stage=ev.qualifying).values_list("entry_id", "seed"))
    assert seeds[a] != seeds[b]
    places = {p.entry_id: p.place for p in tournament_placings(tournament_id=ev.tournament.pk)}
    assert (places[a], places[b]) == (19, 19)
    assert max(p for e, p in places.items() if e not in ev.gone) < 19
    rows = _qualifying_rows(ev)
    assert (rows[a]["rank"], rows[b]["rank"]) == (19, 19)


def test_a_finalist_withdrawn_during_the_final_keeps_the_finals_last_place() -> None:
    """A finalist withdrawn by the director during the final (T7) is placed by the final, after
    everyone who played on (README "The final table's places"). The stage's end then placed
    them again among the withdrawn, after everyone else: 8th, the place of the player
    knocked out 8th, and nobody was 4th."""
    t, d = make_tournament(8)
    k = services.stage_create(
        tournament=t,
        actor=d,
        name="Knockout",
        kind="knockout",
        advance_per_table=2,
        rng_seed=5,
        auto_advance=True,
    )
    services.stage_seed(stage=k, actor=d)
    r1 = services.round_publish(stage=k, actor=d)
    finish_round(r1, d)
    services.round_advance(round_id=r1.pk)
    final = Round.objects.get(stage=k, status="published")
    assert final.kind == "final"
    gone = seated(final)[0][0]
    services.stage_entry_withdraw(stage=k, actor=d, entry=Entry.objects.get(pk=gone), reason="ill")
    finish_round(final, d)
    services.round_advance(round_id=final.pk)
    t.refresh_from_db()
    assert t.status == "finished"
    places = {p.entry_id: p.place for p in tournament_placings(tournament_id=t.pk)}
    assert places[gone] == 4
    assert sorted(places.values())[:4] == [1, 2, 3, 4]  # the final table's four places
    assert max(places.values()) < 8  # the knockout's losers share 5th (director's results)
