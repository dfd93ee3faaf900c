"""What a spectator's phone shows of a player and of a match (walkthrough of every public page
at 390 px, no login).

* A player's page never said where the player placed at each table (a shared 3rd in round 1):
  each finished match now says so (T4; shared, T3; a partnership's place of the two, R42).
* It listed every hand of every match, a page of ~8,500 px on a phone: each match's hands now
  fold behind a <details>, open for the match in play.
* A pairs event player's summary named neither the partnership nor the partner (T9).
* "0 match wins in 2 played · 1 hands won": the record's counts are each their own plural.
* A match ended by a director's override with no hand read "No hand recorded yet.".
* The Spanish bracket read "pasan 1": "{{ n }} go on" is a count plural now.

Also run on the embedded default (Makefile EMBEDDED_TESTS: tests/live).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template.loader import render_to_string
from django.test import Client

from brackets import services
from brackets.models import RoundMatch
from scoring.models import Match
from scoring.services import match_result_override
from tests.brackets.pairs_helpers import decide_round, seeded_pairs
from tests.live.conftest import LiveTournament, play_hands, start_match
from tournament.models import Entry

pytestmark = pytest.mark.django_db


def _page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def _match_section(html: str, match_id: int) -> str:
    found = re.search(
        rf'<section class="player-match" aria-labelledby="pm-{match_id}">.*?</section>', html, re.S
    )
    assert found is not None
    return found.group(0)


@pytest.fixture
def overridden(live_tournament: LiveTournament) -> tuple[LiveTournament, Match]:
    """Table 1 of round 1 set by the director, no hand played: 6, 3, 0, 0 (C and D level)."""
    match = live_tournament.matches()[0]
    match_result_override(
        match_id=match.pk, actor=live_tournament.director, scores=[6, 3, 0, 0], reason="sheet"
    )
    match.refresh_from_db()
    return live_tournament, match


def _entry(match: Match, seat: int) -> int:
    return int(match.seats.get(seat=seat).entry_id)


def test_each_match_says_where_the_player_placed_a_shared_place_as_shared_t3_t4(
    client: Client, overridden: tuple[LiveTournament, Match]
) -> None:
    lt, match = overridden
    shared = "Placing: shared 3rd"
    expected = {0: "Placing: 1st", 1: "Placing: 2nd", 2: shared, 3: shared}
    for seat, line in expected.items():
        html = _page(client, f"/live/{lt.tournament.slug}/players/{_entry(match, seat)}/")
        section = _match_section(html, match.pk)
        placing = re.search(r'<p class="my-placing"[^>]*>(.*?)</p>', section, re.S)
        assert placing is not None, seat
        assert placing.group(1) == line
    # A match not finished says nothing of a placing yet.
    waiting = lt.matches()[1]
    html = _page(client, f"/live/{lt.tournament.slug}/players/{_entry(waiting, 0)}/")
    assert 'class="my-placing"' not in _match_section(html, waiting.pk)


def test_a_match_the_director_decided_without_a_hand_says_so(
    client: Client, overridden: tuple[LiveTournament, Match]
) -> None:
    lt, match = overridden
    assert match.end_reason == Match.EndReason.OVERRIDE
    said = "No hand recorded: the result was set by the director."
    detail = _page(client, f"/live/{lt.tournament.slug}/matches/{match.pk}/")
    assert said in detail
    assert "No hand recorded yet." not in detail
    player = _page(client, f"/live/{lt.tournament.slug}/players/{_entry(match, 1)}/")
    assert said in _match_section(player, match.pk)
    # A match still to play has no hand *yet*.
    waiting = lt.matches()[1]
    assert "No hand recorded yet." in _page(
        client, f"/live/{lt.tournament.slug}/matches/{waiting.pk}/"
    )


def test_each_matchs_hands_fold_away_open_for_the_match_in_play(
    client: Client, live_tournament: LiveTournament
) -> None:
    lt = live_tournament
    finished, playing = lt.matches()
    payloads = start_match(finished, lt.director, seed=5)
    play_hands(finished, lt.director, payloads)
    finished.refresh_from_db()
    assert finished.status == Match.Status.FINISHED
    play_hands(playing, lt.director, start_match(playing, lt.director, seed=2)[:2])

    html = _page(client, f"/live/{lt.tournament.slug}/players/{_entry(finished, 0)}/")
    section = _match_section(html, finished.pk)
    details = re.search(r"<details[^>]*>", section)
    assert details is not None
    assert f'id="hands-{finished.pk}"' in details.group(0)
    assert " open" not in details.group(0)
    assert f"<summary>Hands ({len(payloads)})</summary>" in section
    assert section.count('<tr class="won">') + section.count("<tr>") >= len(payloads)

    html = _page(client, f"/live/{lt.tournament.slug}/players/{_entry(playing, 0)}/")
    details = re.search(r"<details[^>]*>", _match_section(html, playing.pk))
    assert details is not None
    assert details.group(0).endswith(" open>")


def _record(row: dict[str, Any]) -> str:
    standings = {
        "stages": [
            {
                "stage": {"id": 1, "name": "Qualifying"},
                "ranked": True,
                "rows": [{"entry_id": 7, "rank": 3, "tie_group": None, **row}],
            }
        ]
    }
    player = {"entry": {"id": 7, "player_id": 1, "name": "Ana"}, "matches": []}
    html = render_to_string(
        "live/regions/player.html", {"player": player, "standings": standings, "slug": "x"}
    )
    found = re.search(r"<dt>Record in Qualifying</dt><dd>(.*?)</dd>", html, re.S)
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize(
    ("row", "record"),
    [
        ({"played": 2, "match_wins": 0, "hands_won": 1}, "0 of 2 matches won · 1 hand won"),
        ({"played": 1, "match_wins": 1, "hands_won": 6}, "1 of 1 match won · 6 hands won"),
        ({"played": 0, "match_wins": 0, "hands_won": 0}, "0 of 0 matches won · 0 hands won"),
    ],
)
def test_the_records_counts_are_each_a_proper_plural(row: dict[str, Any], record: str) -> None:
    assert _record({"six_loves_given": 0, "byes": 0, **row}) == record


def _bracket_heading(advancing: int) -> str:
    bracket = {
        "stages": [
            {
                "id": 1,
                "number": 1,
                "name": "Knockout",
                "kind": "knockout",
                "status": "running",
                "pairs": False,
                "entrants": 4,
                "rounds": [
                    {
                        "id": 9,
                        "number": 1,
                        "kind": "final",
                        "status": "closed",
                        "advancing": advancing,
                        "tables": [],
                    }
                ],
            }
        ]
    }
    html = render_to_string("live/regions/bracket.html", {"bracket": bracket, "slug": "x"})
    found = re.search(r'<h3 id="br-9">.*?</h3>', html, re.S)
    assert found is not None
    return found.group(0)


def test_the_brackets_went_on_count_is_a_plural() -> None:
    """Spanish read "pasan 1": the string had no count plural, so no language could say
    "pasa 1". (The Spanish forms are the translators'; English shows the plural works.)"""
    assert "· 1 goes on</span>" in _bracket_heading(1)
    assert "· 3 go on</span>" in _bracket_heading(3)


def test_a_pairs_players_summary_names_the_partnership_and_partner_t9(client: Client) -> None:
    t, d, q = seeded_pairs(4)
    rnd = services.round_publish(stage=q, actor=d)
    decide_round(rnd, d)
    link = RoundMatch.objects.filter(round=rnd).order_by("table_number").first()
    assert link is not None
    match = link.match
    seats = {s.seat: s for s in match.seats.select_related("entry__player")}
    me, partner = seats[1], seats[3]  # BD: lost the table (decide_round: AC win)

    html = _page(client, f"/live/{t.slug}/players/{me.entry_id}/")
    summary = html.split('class="player-summary"', 1)[1].split("</section>", 1)[0]
    fact = re.search(r"<dt>Partnership</dt><dd>(.*?)</dd>", summary, re.S)
    assert fact is not None
    assert f'href="/live/{t.slug}/players/{partner.entry_id}/">{partner.entry.player}</a>' in (
        fact.group(1)
    )
    assert str(me.entry.player) in fact.group(1)
    # Their placing at the table is the partnership's, of the two (R42, T4).
    section = _match_section(html, match.pk)
    assert ">Partnership's placing: 2nd</p>" in section
    winner_page = _page(client, f"/live/{t.slug}/players/{seats[0].entry_id}/")
    assert ">Partnership's placing: 1st</p>" in _match_section(winner_page, match.pk)

    body = client.get(f"/api/live/{t.slug}/players/{me.entry_id}/").json()
    assert body["partnership"]["left"] is False
    assert sorted(p["entry_id"] for p in body["partnership"]["players"]) == sorted(
        [me.entry_id, partner.entry_id]
    )


def test_an_individual_players_document_has_no_partnership(
    client: Client, live_tournament: LiveTournament
) -> None:
    entry = Entry.objects.filter(tournament=live_tournament.tournament).first()
    assert entry is not None
    body = client.get(f"/api/live/{live_tournament.tournament.slug}/players/{entry.pk}/").json()
    assert body["partnership"] is None
    html = _page(client, f"/live/{live_tournament.tournament.slug}/players/{entry.pk}/")
    assert "<dt>Partnership</dt>" not in html
