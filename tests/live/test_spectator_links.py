"""Links between the spectator pages and ids in the exports (QA walkthrough of the demo).

* A player's page in a tournament did not link their profile (ratings across events); the
  profile's tournament links went to the tournament's home, not to the player's page there;
  the public results sheet of a round was linked from no public page (now from the round's
  place in the bracket).
* ``players.csv`` had an empty seed for every player of a seeded stage (it read the entry's
  manual order): it now gives the first stage's seed, as that stage's seeding list and the
  standings show it. ``standings.csv`` and ``matches.csv`` had no entry id, so namesakes could
  not be told apart nor joined to ``players.csv``: the id columns are appended (existing
  positions stay, as "place" and "members" were appended).

Also run on the embedded default (Makefile EMBEDDED_TESTS: tests/live).
"""

from __future__ import annotations

import csv
import io

import pytest
from django.test import Client

from brackets.models import StageEntry
from live.exports import STANDINGS_COLUMNS
from scoring.models import Seat
from tests.live.conftest import LiveTournament, play_hands, start_match
from tournament.models import Player

pytestmark = pytest.mark.django_db


def _csv(client: Client, url: str) -> list[dict[str, str]]:
    response = client.get(url)
    assert response.status_code == 200
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_a_players_tournament_page_links_their_profile(
    client: Client, live_tournament: LiveTournament
) -> None:
    t = live_tournament.tournament
    entry = t.entries.select_related("player").first()
    html = client.get(f"/live/{t.slug}/players/{entry.pk}/").content.decode()
    assert f'href="/players/{entry.player_id}/"' in html


def test_the_profile_links_the_players_page_in_each_tournament(
    client: Client, live_tournament: LiveTournament
) -> None:
    t = live_tournament.tournament
    entry = t.entries.first()
    html = client.get(f"/players/{entry.player_id}/").content.decode()
    assert f'href="/live/{t.slug}/players/{entry.pk}/"' in html
    assert f'href="/live/{t.slug}/">' not in html  # not the tournament's home


def test_the_bracket_links_each_rounds_results_sheet(
    client: Client, live_tournament: LiveTournament
) -> None:
    t, rnd = live_tournament.tournament, live_tournament.round
    url = f"/live/{t.slug}/rounds/{rnd.pk}/results/"
    assert f'href="{url}"' in client.get(f"/live/{t.slug}/bracket/").content.decode()
    assert client.get(url).status_code == 200


def test_players_export_gives_the_first_stages_seed(
    client: Client, live_tournament: LiveTournament
) -> None:
    t = live_tournament.tournament
    seeds = dict(
        StageEntry.objects.filter(stage=live_tournament.stage).values_list("entry_id", "seed")
    )
    assert len(seeds) == 8
    rows = _csv(client, f"/live/{t.slug}/export/players.csv")
    assert {int(r["entry_id"]): int(r["seed"]) for r in rows} == seeds


def test_standings_and_matches_exports_carry_entry_ids(
    client: Client, live_tournament: LiveTournament
) -> None:
    t = live_tournament.tournament
    # Two namesakes, as in the demo.
    twins = list(Player.objects.filter(entries__tournament=t).order_by("pk")[:2])
    Player.objects.filter(pk__in=[p.pk for p in twins]).update(name="Pedro Castillo")
    match = live_tournament.matches()[0]
    play_hands(match, live_tournament.director, start_match(match, live_tournament.director)[:2])

    players = {r["entry_id"]: r["name"] for r in _csv(client, f"/live/{t.slug}/export/players.csv")}
    response = client.get(f"/live/{t.slug}/export/standings.csv")
    header = next(csv.reader(io.StringIO(response.content.decode())))
    assert header[-1] == "entry_id"
    assert header[: STANDINGS_COLUMNS.index("members") + 2][-2:] == ["place", "members"]
    standings = _csv(client, f"/live/{t.slug}/export/standings.csv")
    assert {r["entry_id"] for r in standings} == set(players)
    assert all(players[r["entry_id"]] == r["name"] for r in standings)
    assert len({r["entry_id"] for r in standings if r["name"] == "Pedro Castillo"}) == 2
    assert [r["entry_id"] for r in client.get(f"/live/{t.slug}/export/standings.json").json()]

    response = client.get(f"/live/{t.slug}/export/matches.csv")
    header = next(csv.reader(io.StringIO(response.content.decode())))
    assert header[9:12] == ["A_name", "A_score", "A_placing"]  # positions kept
    assert header[-4:] == ["A_entry_id", "B_entry_id", "C_entry_id", "D_entry_id"]
    row = next(
        r
        for r in _csv(client, f"/live/{t.slug}/export/matches.csv")
        if r["match_id"] == str(match.pk)
    )
    seats = dict(Seat.objects.filter(match=match).values_list("seat", "entry_id"))
    for i, letter in enumerate("ABCD"):
        assert row[f"{letter}_entry_id"] == str(seats[i])
        assert players[row[f"{letter}_entry_id"]] == row[f"{letter}_name"]
