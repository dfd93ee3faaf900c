"""The public exports of a finished pairs event (T9-T11).

Bug: the standings export of a pairs event had an empty ``place`` on every row although the
bracket showed the places; a named partnership appeared by its name alone ("Los Primos"),
without its players; ``club``, ``status``, ``points``, ``six_loves_received`` and the other
detail columns were empty; and ``players.csv`` had no seed for anyone (a pairs event seeds
partnerships, never entries). Now each partnership's row carries its event place on the row of
the stage that placed it, ``members`` names both players, the columns that mean something for a
partnership are filled (live/exports.py says which), and each player has the seed of their
partnership. An individual event's exports keep their columns, in their order.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from live.api.serializers import PairStandingRowSerializer
from live.exports import STANDINGS_COLUMNS
from scoring.models import Match
from tests.brackets.pairs_helpers import finished_pairs_event, play_pairs_match
from tests.live.conftest import make_live_tournament
from tournament.models import Partnership, PartnershipMember

# The columns the exports had before pairs events got theirs: scripts read them by position.
OLD_STANDINGS = [
    "stage",
    "rank",
    "name",
    "club",
    "seed",
    "played",
    "byes",
    "match_wins",
    "hands_won",
    "six_loves_given",
    "head_to_head",
    "points",
    "six_loves_received",
    "llaves",
    "ties",
    "replays_won",
    "forfeits",
    "status",
    "outlook",
    "place",
]
OLD_PLAYERS = ["entry_id", "seed", "name", "nickname", "country", "club", "rating", "status"]


def _csv(client: Client, url: str) -> tuple[list[str], list[dict[str, str]]]:
    response = client.get(url)
    assert response.status_code == 200
    reader = csv.DictReader(io.StringIO(response.content.decode()))
    rows = list(reader)
    return list(reader.fieldnames or []), rows


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@pytest.mark.django_db(transaction=True)
def test_a_finished_pairs_events_exports_place_and_name_both_partners() -> None:
    t, _ = finished_pairs_event(8, name_first="Los Primos")
    client = Client()
    base = f"/live/{t.slug}/export"
    bracket = client.get(f"/api/live/{t.slug}/bracket/").json()
    expected = {
        " & ".join(p["name"] for p in line["players"]): line["place"]
        for line in bracket["pair_placings"]
    }
    assert len(expected) == 8

    header, rows = _csv(client, f"{base}/standings.csv")
    assert header[: len(OLD_STANDINGS)] == OLD_STANDINGS
    assert header[len(OLD_STANDINGS) :] == ["members", "entry_id"]  # appended in order
    assert all(r["members"].count(" & ") == 1 for r in rows)  # both partners, every row
    placed = {r["members"]: int(r["place"]) for r in rows if r["place"]}
    assert placed == expected  # each partnership once, as the bracket places it
    primos = [r for r in rows if r["name"] == "Los Primos"]
    assert primos
    assert {r["members"] for r in primos} == {"Q0000 & Q0001"}
    for r in rows:
        assert r["club"]
        assert r["status"] in ("advanced", "eliminated", "finished")
        assert r["outlook"] in ("advanced", "eliminated", "final_table", "champion")
        for column in ("points", "six_loves_received", "forfeits", "seed", "played"):
            assert r[column].isdigit(), (column, r)
        for column in ("llaves", "ties", "replays_won"):  # the partnership's (R35, R42)
            assert r[column].isdigit(), (column, r)
    champion = [r for r in rows if r["outlook"] == "champion"]
    assert len(champion) == 1
    assert champion[0]["place"] == "1"
    assert champion[0]["status"] == "finished"

    as_json = client.get(f"{base}/standings.json").json()
    assert [r["members"] for r in as_json] == [r["members"] for r in rows]
    assert {r["members"]: r["place"] for r in as_json if r["place"] is not None} == expected
    assert all(isinstance(r["points"], int) for r in as_json)

    header, players = _csv(client, f"{base}/players.csv")
    assert header[: len(OLD_PLAYERS)] == OLD_PLAYERS
    assert len(players) == 16
    # Both partners hold their partnership's seed (T9): 1 to 8, twice each.
    assert Counter(int(p["seed"]) for p in players) == dict.fromkeys(range(1, 9), 2)
    by_pair: dict[str, set[str]] = {}
    for p in players:
        by_pair.setdefault(p["partnership"], set()).add(p["seed"])
    assert len(by_pair) == 8
    assert all(len(seeds) == 1 for seeds in by_pair.values())
    assert "Los Primos (Q0000 & Q0001)" in by_pair
    assert Partnership.objects.filter(tournament=t).count() == 8


@pytest.mark.django_db
def test_an_individual_events_exports_keep_their_columns(client: Client) -> None:
    live = make_live_tournament(8, cut_size=4, slug="export-solo")
    base = f"/live/{live.tournament.slug}/export"
    header, rows = _csv(client, f"{base}/standings.csv")
    assert header == ["stage", *STANDINGS_COLUMNS]
    assert header[: len(OLD_STANDINGS)] == OLD_STANDINGS
    assert len(rows) == 8
    assert all(r["members"] == "" for r in rows)
    assert all(r["name"] for r in rows)
    header, players = _csv(client, f"{base}/players.csv")
    assert header[: len(OLD_PLAYERS)] == OLD_PLAYERS
    assert all(p["partnership"] == "" for p in players)


# A tie that three players share (A and C of AC, B of BD: R43), the replay AC wins on a block A
# and C share (worth 2, R26), then C's llave (R23, a referee's claim, R24 ``plus_one``: worth 2)
# and two more of C's dominoes: AC 6-0. Seats: ties A 1, B 1, C 1; replays won A 1, C 1; llaves
# C 1. Each event counts once per partnership (R42, R46): AC 1 tie, 1 replay won, 1 llave; BD
# 1 tie (the tied hand is one tie for both partnerships), nothing else.
TIE_REPLAY_LLAVE: list[dict[str, Any]] = [
    {"poser": 1, "pose_tile": "6-6", "end": "block", "counts": [5, 5, 5, 12]},
    {"poser": 3, "pose_tile": "6-6", "end": "block", "counts": [5, 10, 5, 12]},
    {"poser": 0, "pose_tile": "3-4", "end": "domino", "winner": 2, "llave": True},
    {"poser": 2, "pose_tile": "2-5", "end": "domino", "winner": 2},
    {"poser": 2, "pose_tile": "1-1", "end": "domino", "winner": 2},
]


@pytest.mark.django_db(transaction=True)
def test_a_pairs_events_results_carry_each_partnerships_llaves_ties_and_replays_won() -> None:
    """R35 over partnerships (R42, R46): the standings export (CSV and JSON) and the live
    standings API give each partnership its llaves, ties and replays won, as a player's row
    gives the player's; they were empty on a partnership's row (CSV ""; JSON null; absent from
    the API). So does the director's pair standings API (it had none of them)."""
    t, d, q, match = play_pairs_match(TIE_REPLAY_LLAVE, ruleset_overrides={"llave": "plus_one"})
    assert match.status == Match.Status.FINISHED
    seats = {s.seat: s for s in match.seats.all()}
    # The seats keep their own counts (R35 per player): the partnership is not their sum.
    assert [seats[i].ties for i in range(4)] == [1, 1, 1, 0]
    assert [seats[i].replays_won for i in range(4)] == [1, 0, 1, 0]
    assert [seats[i].llaves for i in range(4)] == [0, 0, 1, 0]
    ac = PartnershipMember.objects.get(entry_id=seats[0].entry_id).partnership_id
    bd = PartnershipMember.objects.get(entry_id=seats[1].entry_id).partnership_id
    expected = {
        ac: {"llaves": 1, "ties": 1, "replays_won": 1},
        bd: {"llaves": 0, "ties": 1, "replays_won": 0},
    }
    client = Client()

    api = client.get(f"/api/live/{t.slug}/standings/").json()
    (stage,) = api["stages"]
    assert stage["pairs"] is True
    got = {
        r["pair_id"]: {k: r.get(k) for k in ("llaves", "ties", "replays_won")}
        for r in stage["rows"]
    }
    assert got == expected
    for row in stage["rows"]:  # documented as sent (the OpenAPI schema lists them)
        assert set(PairStandingRowSerializer(row).data) == set(row)

    # The director's pair standings of the stage say the same (they lacked these columns).
    director_api = APIClient()
    director_api.force_authenticate(d)
    direct = director_api.get(f"/api/tournaments/{t.slug}/stages/{q.pk}/pair-standings/")
    assert direct.status_code == 200, direct.content
    assert {
        r["partnership_id"]: {k: r[k] for k in ("llaves", "ties", "replays_won")}
        for r in direct.json()
    } == expected
    live_rows = {r["pair_id"]: r for r in stage["rows"]}
    for r in direct.json():
        for key in ("six_loves_given", "six_loves_received", "forfeits", "hands_won"):
            assert r[key] == live_rows[r["partnership_id"]][key], key

    members = {r["pair_id"]: " & ".join(p["name"] for p in r["players"]) for r in stage["rows"]}
    want = {members[p]: stats for p, stats in expected.items()}
    base = f"/live/{t.slug}/export"
    _, rows = _csv(client, f"{base}/standings.csv")
    assert {
        r["members"]: {k: int(r[k]) if r[k].isdigit() else r[k] for k in want[r["members"]]}
        for r in rows
    } == want
    as_json = client.get(f"{base}/standings.json").json()
    assert {r["members"]: {k: r[k] for k in want[r["members"]]} for r in as_json} == want
