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

from live.exports import STANDINGS_COLUMNS
from tests.brackets.pairs_helpers import finished_pairs_event
from tests.live.conftest import make_live_tournament
from tournament.models import Partnership

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
        assert r["llaves"] == r["ties"] == r["replays_won"] == ""  # a player's (R35)
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
