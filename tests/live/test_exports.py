"""Public exports (live.exports): CSV and JSON of players, matches, hands and standings, with
spreadsheet-formula injection neutralised in every CSV cell."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest

from brackets.models import Stage
from live.exports import STANDINGS_COLUMNS, csv_cell, csv_safe, to_csv
from tests.live.conftest import make_live_tournament, play_hands, start_match
from tournament.models import Player


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+1", "'+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "'\rcmd"),
        ("Ana", "Ana"),
        ("", ""),
        (-5, -5),  # numbers are numbers, not text
        (3, 3),
    ],
)
def test_csv_cells_never_start_a_formula(value: Any, cell: Any) -> None:
    assert csv_safe(value) == cell


# The review's name, and a few like it: a spreadsheet whose list separator is ";" (or tab, or
# "|") splits the cell there, and the piece after the separator must not be a formula either.
@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("Eve;=2+5;@SUM(1+1)", "Eve;'=2+5;'@SUM(1+1)"),
        ("Eve,=2+5", "Eve,'=2+5"),
        ("Eve\t=2+5", "Eve\t'=2+5"),
        ("Eve|=2+5", "Eve|'=2+5"),
        ("Eve; =2+5", "Eve; '=2+5"),  # spaces after the separator
        ('Eve;"=2+5"', 'Eve;"\'=2+5"'),  # a quote after the separator
        ("Eve\n=2+5", "Eve\n'=2+5"),  # a line break ends the record for a ";" spreadsheet
        ("a\t\t=1", "a\t'\t'=1"),  # tab: a separator and a trigger
        ("=1;-2", "'=1;'-2"),
        ("Smith-Jones; Ana+Bo", "Smith-Jones; Ana+Bo"),  # a trigger inside a piece is text
        ("2026-12-01T10:00:00+00:00", "2026-12-01T10:00:00+00:00"),
    ],
)
def test_no_piece_of_a_cell_starts_a_formula_whatever_the_separator(value: str, cell: str) -> None:
    assert csv_safe(value) == cell
    written = to_csv(["name"], [[value]])
    assert list(csv.reader(io.StringIO(written))) == [["name"], [cell]]
    # Split the file the most naive way: at every separator and line break, quotes ignored.
    for piece in re.split(r"[,;\t|\r\n]", written):
        assert not piece.lstrip(' "').startswith(("=", "+", "-", "@")), piece


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("Ana", "Ana"),
        ("a,b", '"a,b"'),
        ("a;b", '"a;b"'),
        ("a|b", '"a|b"'),
        ("a\tb", '"a\tb"'),
        ('say "hi"', '"say ""hi"""'),
        (" Ana", '" Ana"'),
        (-5, "-5"),
        (None, ""),
    ],
)
def test_cells_holding_a_separator_are_quoted(value: Any, text: str) -> None:
    assert csv_cell(value) == text


def _csv(client: Any, url: str) -> list[dict[str, str]]:
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.DictReader(io.StringIO(response.content.decode())))


@pytest.mark.django_db
def test_exports_of_a_tournament_in_play(client: Any) -> None:
    live = make_live_tournament(8, cut_size=4, slug="export-open")
    Player.objects.filter(entries__tournament=live.tournament, name="Player 0000").update(
        name='=HYPERLINK("http://evil")', club="@club"
    )
    Player.objects.filter(entries__tournament=live.tournament, name="Player 0001").update(
        name="Eve;=2+5;@SUM(1+1)"
    )
    first = live.matches()[0]
    payloads = start_match(first, live.director, seed=3)
    play_hands(first, live.director, payloads[:3])
    base = f"/live/{live.tournament.slug}/export"

    players = _csv(client, f"{base}/players.csv")
    assert len(players) == 8
    evil = next(p for p in players if "HYPERLINK" in p["name"])
    assert evil["name"] == '\'=HYPERLINK("http://evil")'
    assert evil["club"] == "'@club"
    eve = next(p for p in players if p["name"].startswith("Eve"))
    assert eve["name"] == "Eve;'=2+5;'@SUM(1+1)"
    # Quoted in the file, so a ";" spreadsheet keeps it whole too; no piece is a formula.
    raw = client.get(f"{base}/players.csv").content.decode()
    assert "\"Eve;'=2+5;'@SUM(1+1)\"" in raw

    matches = _csv(client, f"{base}/matches.csv")
    assert {int(m["match_id"]) for m in matches} == {m.pk for m in live.matches()}
    row = next(m for m in matches if int(m["match_id"]) == first.pk)
    assert row["status"] == "in_progress"
    assert row["hands"] == "3"
    assert all(row[f"{c}_name"] for c in "ABCD")

    hands = _csv(client, f"{base}/hands.csv")
    assert [int(h["number"]) for h in hands] == [1, 2, 3]
    assert "recorded_by" not in hands[0]
    assert hands[0]["poser"] in "ABCD"

    standings = _csv(client, f"{base}/standings.csv")
    assert len(standings) == 8
    assert standings[0]["stage"] == "Qualifying"

    as_json = client.get(f"{base}/players.json")
    assert as_json.status_code == 200
    assert sorted(p["entry_id"] for p in as_json.json()) == sorted(
        int(p["entry_id"]) for p in players
    )
    assert any(p["name"] == '=HYPERLINK("http://evil")' for p in as_json.json())  # JSON is data

    assert client.get(f"{base}/secrets.csv").status_code == 404
    assert client.get(f"{base}/players.xlsx").status_code == 404


@pytest.mark.django_db
def test_a_draft_has_no_exports(client: Any) -> None:
    live = make_live_tournament(4, slug="draft-export")
    live.tournament.status = "draft"
    live.tournament.save(update_fields=["status"])
    assert client.get(f"/live/{live.tournament.slug}/export/players.csv").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_standings_export_places_players_out_at_an_earlier_cut(client: Any, settings: Any) -> None:
    """Bug: an individual event's standings export had ``place`` only on the finished last
    stage's rows; players out at the qualifying cut had none, though the bracket lists their
    place. Now each player's event place is on the row of the stage that placed them, as the
    bracket lists it (T6), like a partnership's row in a pairs event; the columns stay."""
    from brackets import services
    from brackets.selectors import tournament_placings
    from tests.brackets.conftest import make_tournament
    from tests.brackets.test_brackets_e2e import run_tournament  # a test module: import late

    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    t, director = make_tournament(7, referees=2, ruleset_overrides={"target": 3})
    common = {"tournament": t, "actor": director, "auto_advance": True}
    q = services.stage_create(
        name="Qualifying", kind="qualifying", swiss_rounds=2, cut_size=4, rng_seed=1007, **common
    )
    services.stage_create(name="Knockout", kind="knockout", rng_seed=2007, **common)
    services.stage_seed(stage=q, actor=director, method="rating")
    services.round_publish(stage=q, actor=director, expected_number=1)
    run_tournament(t, director)
    placings = tournament_placings(tournament_id=t.pk)
    assert len(placings) == 7
    stage_names = dict(Stage.objects.filter(tournament=t).values_list("number", "name"))
    expected = {(stage_names[p.stage_number], p.name): str(p.place) for p in placings}
    assert {stage for stage, _ in expected} == {"Qualifying", "Knockout"}  # out at the cut too
    response = client.get(f"/live/{t.slug}/export/standings.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(rows[0]) == ["stage", *STANDINGS_COLUMNS]
    got = {(r["stage"], r["name"]): r["place"] for r in rows if r["place"]}
    assert got == expected
    # The qualifying rows of the players who went on carry no place (their row is later).
    went_on = [r for r in rows if r["stage"] == "Qualifying" and r["status"] == "advanced"]
    assert len(went_on) == 4
    assert all(r["place"] == "" for r in went_on)
    body = client.get(f"/live/{t.slug}/export/standings.json").json()
    assert {(r["stage"], r["name"]): str(r["place"]) for r in body if r["place"]} == expected
