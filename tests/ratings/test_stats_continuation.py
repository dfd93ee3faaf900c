"""A forfeited match and its continuation are one match in a player's statistics (T7).

Bug: the player profile (``/players/<id>/``) and the Leaders page counted every finished seat
as a match, so a player who played on after a forfeit had played "2 finished matches" at one
table: the forfeited match (where they are unplaced) and the continuation the others play on in
(``Match.continues``), while the standings count the table once, at the continuation
(``brackets.selectors.stage_data.standings_line``: an unplaced seat has no line) and the
ratings rate it once. Now a match is a placed seat (``ratings.selectors.counted_seat``): the
matches played and won agree with the standings, and so do the six-loves, counted once a match.
Hands are still all counted (the Leaders page says so, ``tests/live``).

The event (``tests.live.forfeit_event``): A, B, C, D at one table; C, B, D win a hand each, C
withdraws (T7); A, B and D play on and B wins the continuation six-love.
"""

from __future__ import annotations

import re
from html import unescape
from typing import Any

import pytest
from django.test import Client

from live import selectors as live
from ratings.stats import player_stats, tournament_leaders
from scoring.models import Seat
from tests.live.forfeit_event import forfeit_event
from tournament.models import Entry

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def test_a_forfeited_match_and_its_continuation_count_once_as_in_the_standings(
    client: Client,
) -> None:
    ev = forfeit_event()
    t = ev.tournament
    a, b, c, d = ev.entries
    # Those who played on sat at both matches of the table; the leaver at the first only.
    assert Seat.objects.filter(match=ev.forfeited, placing__isnull=True).count() == 3
    assert ev.continuation.continues_id == ev.forfeited.pk
    (stage,) = live.standings(tournament=t)["stages"]
    rows = {r["entry_id"]: r for r in stage["rows"]}
    assert {e: rows[e]["played"] for e in ev.entries} == dict.fromkeys(ev.entries, 1)
    assert {e: rows[e]["match_wins"] for e in ev.entries} == {a: 0, b: 1, c: 0, d: 0}

    players = dict(Entry.objects.filter(pk__in=ev.entries).values_list("pk", "player_id"))
    boards = tournament_leaders(tournament_id=t.pk)
    on_board = {r.player_id: r.matches for board in boards.values() for r in board.rows}
    for entry in ev.entries:
        row = rows[entry]
        for scope in (None, t.pk):  # the profile (every event) and one tournament
            stats = player_stats(player_id=players[entry], tournament_id=scope)
            assert (stats.matches, stats.match_wins) == (row["played"], row["match_wins"]), entry
            assert stats.totals["six_love_given"] == row["six_loves_given"], entry
            assert stats.totals["six_love_received"] == row["six_loves_received"], entry
        # The Leaders page's "matches" column (every board the player is on).
        assert on_board[players[entry]] == row["played"], entry

    # The profile page says it: one finished match, and B's one win in it (100 %, not 50 %).
    html = client.get(f"/players/{players[b]}/").content.decode()
    record = _text(html.split('id="statistics-record"', 1)[1].split("</p>", 1)[0])
    assert "1 finished match (rated or not)" in record
    assert "1 match win in 1 finished match" in record
    assert player_stats(player_id=players[b]).match_win_rate.percent == 100.0
    # Its API (the rating's counts) already counted the table once: the continuation is rated.
    body = client.get(f"/api/players/{players[b]}/rating/").json()
    assert body["rated_matches"] == 1

    # The Leaders page's note no longer says the two are counted as two matches.
    page = client.get(f"/stats/{t.slug}/").content.decode()
    note = _text(page.split('id="leaders-forfeits"', 1)[1].split("</p>", 1)[0])
    assert "as two matches" not in note
    assert "are one match here too" in note
