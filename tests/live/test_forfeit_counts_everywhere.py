"""A forfeit reads the same on every page, and "hands won" counts one way (T7, T5).

Walkthrough on a real event (README "Rule decisions" 6, standings notes "Forfeit (T7)"): after a
mid-match withdrawal at a table of four,

1. the referee's match page said "0-1-0-1 · Six-love to C · Luis Gómez (R31c) · Forfeit (T7)":
   R31c (a player reaching the target) though nobody reached 6, and no page showed the 0-6 the
   rule speaks of; the hands list ended on 0-1-1-1 with no word of why the summary had C on 0;
2. "hands won" differed between pages: the standings count the continuation only, the Leaders
   page, the round's results sheet and the player page counted the forfeited match's hands, and
   the player page said "0 hands won" next to a hand the player won in its hands list;
3. the player page's "Record" covered the current stage only and did not say so.

The event (``tests.live.forfeit_event``): hands C, B, D won (0-1-1-1), C withdraws (T7), B wins
the continuation six-love (0-6-0). Built through the services.
"""

from __future__ import annotations

import csv
import io
import re
from html import unescape
from typing import Any

import pytest
from django.test import Client

from brackets.selectors.stage_data import SeatData, standings_line
from brackets.services import round_advance, stage_entry_withdraw
from live import selectors as live
from scoring.models import Seat
from tests.brackets.conftest import play_round
from tests.factories import TournamentFactory, match_in_progress
from tests.live.conftest import add_knockout, make_live_tournament
from tests.live.forfeit_event import ForfeitEvent, forfeit_event
from tests.pages.final_table import final_table_one_hand_from_the_end
from tournament.models import Entry

pytestmark = pytest.mark.django_db


@pytest.fixture
def ev() -> ForfeitEvent:
    return forfeit_event()


def _name(entry_id: int) -> str:
    return str(Entry.objects.select_related("player").get(pk=entry_id).player.name)


def _d(line: str) -> str:
    """A score line as the pages write it, with en dashes between the numbers."""
    return line.replace("-", "\u2013")


def _text(html: str) -> str:
    html = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S)
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()
    return text.replace("( ", "(").replace(" )", ")")  # rule links: "(<a>T7</a>)"


def _get(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def _between(html: str, start: str, end: str) -> str:
    assert start in html, start
    return html.split(start, 1)[1].split(end, 1)[0]


# -- 1. the forfeit's words ----------------------------------------------------------------------


def test_the_referee_page_says_forfeit_a_0_6_loss_and_why_the_scores_differ(
    ev: ForfeitEvent, client: Client
) -> None:
    """T7, not R31c: nobody reached the target. The hands list ends on a forfeit line that gives
    the score line the summary shows (C on 0) after the last hand's 0-1-1-1."""
    c = _name(ev.leaver)
    client.force_login(ev.director)
    html = _get(client, f"/matches/{ev.forfeited.pk}/")
    card = _text(_between(html, 'class="result-card"', "</section>"))
    assert _d("0-1-0-1") + f" · Forfeit by C · {c}: a " + _d("0-6 loss (T7)") in card
    assert "R31c" not in card
    assert "Six-love" not in card
    hands = _between(html, "<h2>Hands</h2>", "</table>")
    rows = [_text(r) for r in re.split(r"<tr\b[^>]*>", hands)[2:]]  # newest first
    assert rows[0].startswith(f"Forfeit (T7): C · {c} 0, loses 0\u20136")
    assert "they play on from love (T7)" in rows[0]
    assert rows[0].endswith(_d("0-1-0-1"))
    assert rows[1].startswith("3 ")  # the last hand played
    assert rows[1].endswith(_d("0-1-1-1"))


def test_every_public_page_says_forfeit_a_0_6_loss(ev: ForfeitEvent, client: Client) -> None:
    """The table cards (tables, match and player pages), the bracket card and the results
    sheet say the same: a forfeit by that player, a 0-6 loss (T7)."""
    c, d = _name(ev.leaver), _name(ev.entries[3])
    slug = ev.tournament.slug
    said = f"Forfeit by {c}: a 0\u20136 loss (T7)"
    match_page = _get(client, f"/live/{slug}/matches/{ev.forfeited.pk}/")
    assert said in _text(_between(match_page, 'class="table-next"', "</p>"))
    hands = _text(_between(match_page, '<table class="hands">', "</table>"))
    assert hands.endswith(
        f"3 1 {d} by domino, +1 {_d('0-1-1-1')} Forfeit (T7): {c} 0, loses {_d('0-6')} · the "
        f"others' scores end with this match; they play on from love (T7) {_d('0-1-0-1')}"
    )
    tables = _get(client, f"/live/{slug}/tables/")
    card = _between(tables, f'data-match="{ev.forfeited.pk}"', "</article>")
    assert said in _text(card)
    continuation = _between(tables, f'data-match="{ev.continuation.pk}"', "</article>")
    assert "Forfeit" not in continuation
    assert "wins the match" in _text(continuation)
    player = _text(_get(client, f"/live/{slug}/players/{ev.leaver}/"))
    assert said in player
    assert f"Forfeit (T7): {c} 0, loses 0\u20136" in player
    bracket = _text(_get(client, f"/live/{slug}/bracket/"))
    assert f"4th {c} forfeit: a 0\u20136 loss (T7)" in bracket
    sheet = _get(client, f"/live/{slug}/rounds/{ev.round.pk}/results/")
    forfeited = _text(_between(sheet, f'data-match="{ev.forfeited.pk}"', "</tbody>"))
    assert f"3 hands · {said}" in forfeited
    for page in (match_page, tables, sheet):
        assert "R31c" not in page


# -- 2. hands won: one count for the standings, every hand on the statistics pages ---------------


def _sheet_rows(html: str, match_id: int) -> dict[str, list[str]]:
    """Player -> [place, points, hands won] of one table of the results sheet."""
    body = _between(html, f'data-match="{match_id}"', "</tbody>")
    out = {}
    for tr in body.split("<tr")[1:]:
        cells = [_text(td) for td in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
        # seat, player, place, points, hands (the first row also has the result)
        out[cells[1].split(" (")[0]] = cells[2:5]
    return out


def test_results_sheet_and_player_record_count_hands_as_the_standings_do(
    ev: ForfeitEvent, client: Client
) -> None:
    slug = ev.tournament.slug
    a, b, c, d = (_name(e) for e in ev.entries)
    (stage,) = live.standings(tournament=ev.tournament)["stages"]
    rows = {r["entry_id"]: r for r in stage["rows"]}
    # The documented standings: the continuation's line for A, B, D; C's 0-6 loss, no hands.
    assert {e: rows[e]["hands_won"] for e in ev.entries} == dict(
        zip(ev.entries, [0, 6, 0, 0], strict=True)
    )
    exported = list(csv.DictReader(io.StringIO(_get(client, f"/live/{slug}/export/standings.csv"))))
    assert {r["name"]: r["hands_won"] for r in exported} == {a: "0", b: "6", c: "0", d: "0"}

    sheet = _get(client, f"/live/{slug}/rounds/{ev.round.pk}/results/")
    forfeited = _sheet_rows(sheet, ev.forfeited.pk)
    # C won hand 1 and had 1 point before leaving: a forfeit counts neither (T7).
    assert forfeited[c] == ["4", "0", "0"]
    for name in (a, b, d):  # their line is the continuation's (T7)
        assert forfeited[name] == ["—", "—", "—"]
    assert "played on at the continuation" in _between(
        sheet, f'data-match="{ev.forfeited.pk}"', "</tbody>"
    )
    continued = _sheet_rows(sheet, ev.continuation.pk)
    assert continued[b] == ["1", "6", "6"]
    # The sheet's figures add up to the standings', player by player.
    for entry_id, name in zip(ev.entries, (a, b, c, d), strict=True):
        counted = sum(
            int(t[name][2]) for t in (forfeited, continued) if name in t and t[name][2] != "—"
        )
        assert counted == rows[entry_id]["hands_won"], name
    assert "count as the standings count them (T5)" in _text(sheet)

    # The player page's record is the standings' and says so, next to the hand C won.
    page = _get(client, f"/live/{slug}/players/{ev.leaver}/")
    record = _text(_between(page, "<dt>Record in Qualifying</dt>", "</dd>"))
    assert record.startswith("0 of 1 match won · 0 hands won")
    assert "As the standings count it (T5): the hands of a forfeited match do not count" in record
    assert f"{c} by domino, +1" in _text(_between(page, '<table class="hands">', "</table>"))
    b_page = _get(client, f"/live/{slug}/players/{ev.entries[1]}/")
    assert _text(_between(b_page, "<dt>Record in Qualifying</dt>", "</dd>")).startswith(
        "1 of 1 match won · 6 hands won"
    )


def _round_page_seats(html: str, match_id: int) -> list[tuple[str, str]]:
    """(the seat's words, the points shown) of each seat of one match of the director's round
    page, in seat order."""
    row = _between(html, f'<tr id="match-{match_id}"', "</tr>")
    seats = _between(row, '<ol class="seats compact">', "</ol>")
    return [
        (
            _text(_between(li, '<span class="seat-who">', "</span>")),
            _text(_between(li, '<strong class="num">', "</strong>")),
        )
        for li in re.findall(r"<li[^>]*>(.*?)</li>", seats, re.S)
    ]


def test_the_directors_round_page_shows_points_as_the_public_pages_do(
    ev: ForfeitEvent, client: Client
) -> None:
    """README rule decision 6, "Forfeit (T7)": the players who played on have no line in the
    forfeited match (theirs is the continuation's), so the director's round page shows no
    points for them there, as the results sheet and the bracket card do; it showed the stored
    points (1) the forfeited match's hands had left B and D."""
    a, b, c, d = (_name(e) for e in ev.entries)
    client.force_login(ev.director)
    page = _get(client, f"/director/tournaments/{ev.tournament.slug}/rounds/{ev.round.pk}/")
    on = "played on at the continuation"
    assert _round_page_seats(page, ev.forfeited.pk) == [
        (f"{a} {on}", "—"),
        (f"{b} {on}", "—"),
        (f"{c} forfeit: a 0\u20136 loss (T7) (4)", "0"),
        (f"{d} {on}", "—"),
    ]
    # The continuation's seats (A, B, D) are placed there with their points: B won it 6-0-0.
    assert [p for _, p in _round_page_seats(page, ev.continuation.pk)] == ["0", "6", "0"]
    assert on not in _between(page, f'<tr id="match-{ev.continuation.pk}"', "</tr>")


def test_leaders_count_every_recorded_hand_and_say_so(ev: ForfeitEvent, client: Client) -> None:
    """Statistics count every hand (B: 1 in the forfeited match and 6 at the continuation, C: the
    hand won before leaving) and say the standings count otherwise."""
    b, c = _name(ev.entries[1]), _name(ev.leaver)
    html = _get(client, f"/stats/{ev.tournament.slug}/")
    board = _between(html, 'id="board-hands_won"', "</section>")
    rows = {
        cells[1]: cells[2]
        for tr in board.split("<tr")[2:]
        if (cells := [_text(x) for x in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)])
    }
    assert rows[b] == "7"
    assert rows[c] == "1"
    note = _text(_between(html, 'id="leaders-forfeits"', "</p>"))
    assert "the hands of forfeited matches included" in note
    assert "(T7)" in note
    assert f'href="/live/{ev.tournament.slug}/standings/"' in html


def test_leaders_say_nothing_of_forfeits_when_none_had_a_hand(client: Client) -> None:
    t = TournamentFactory()
    match_in_progress(t)
    assert 'id="leaders-forfeits"' not in _get(client, f"/stats/{t.slug}/")


def test_standings_line_is_the_one_count_for_t5() -> None:
    """``standings_line``: a forfeited seat is a 0-6 loss whatever it had won (T7); an unplaced
    seat (played on at the continuation) has no line in the forfeited match."""

    def seat(**kw: Any) -> SeatData:
        base: dict[str, Any] = {
            "entry_id": 1,
            "seat": 0,
            "placing": 2,
            "points": 3,
            "hands_won": 2,
            "six_love_given": 0,
            "six_love_received": 0,
            "llaves": 0,
            "ties": 0,
            "replays_won": 0,
            "forfeited": False,
        }
        return SeatData(**{**base, **kw})

    line = standings_line(5, seat(forfeited=True, placing=4, points=0, hands_won=1))
    assert line is not None
    assert (line.forfeit, line.points, line.hands_won, line.six_loves_received) == (
        True,
        0,
        0,
        1,
    )
    assert standings_line(5, seat(placing=None)) is None
    played = standings_line(5, seat())
    assert played is not None
    assert (played.points, played.hands_won) == (3, 2)


# -- 3. the record names its stage ---------------------------------------------------------------


def test_the_player_record_names_its_stage_and_the_earlier_stages_records(
    client: Client, settings: Any
) -> None:
    """A player at the final showed "0 of 1 match won · 0 hands won" under "Record" though they
    had won matches and hands in qualifying: the record is labelled with its stage, and the
    earlier stages' records follow, each as that stage's standings count it."""
    lt = make_live_tournament(8, swiss_rounds=1, cut_size=4, slug="two-stages")
    final_stage = add_knockout(lt, name="Final", final_table_size=4)
    play_round(lt.round, lt.director, seed=3)
    round_advance(round_id=lt.round.pk)  # the cut (T6): the final table is published
    final_round = final_stage.rounds.get()
    play_round(final_round, lt.director, seed=4)
    round_advance(round_id=final_round.pk)
    stages = {
        s["stage"]["name"]: {r["entry_id"]: r for r in s["rows"]}
        for s in live.standings(tournament=lt.tournament)["stages"]
    }
    finalist = next(iter(stages["Final"]))
    q = stages["Qualifying"][finalist]
    f = stages["Final"][finalist]
    page = _get(client, f"/live/two-stages/players/{finalist}/")
    record = _text(_between(page, "<dt>Record in Final</dt>", "</dd>"))
    assert record.startswith(f"{f['match_wins']} of 1 match won · {f['hands_won']} hand")
    earlier = _text(_between(page, '<ul class="earlier-stages">', "</ul>"))
    assert "Qualifying" in earlier
    assert f"{q['match_wins']} of 1 match won · {q['hands_won']} hand" in earlier
    assert "<dt>Record</dt>" not in page


def _bracket_seats(html: str, table_number: int, nth: int) -> list[tuple[str, str]]:
    """(the seat's words, the points shown) of each seat of the ``nth`` card of a table on the
    director's bracket page (a forfeited match and its continuation are two cards of one
    table, T7), in seat order."""
    cards = html.split('<div class="table-card')[1:]
    card = [c for c in cards if f"Table {table_number}</h3>" in c or f"Table {table_number} " in c]
    seats = _between(card[nth], '<ol class="seats compact">', "</ol>")
    return [
        (
            _text(_between(li, '<span class="seat-who">', "</span>")),
            _text(_between(li, '<strong class="num">', "</strong>")),
        )
        for li in re.findall(r"<li[^>]*>(.*?)</li>", seats, re.S)
    ]


def test_the_directors_bracket_page_shows_points_as_the_round_page_does(
    ev: ForfeitEvent, client: Client
) -> None:
    """README rule decision 6, "Forfeit (T7)": the director's bracket page read the stored
    points of the players who played on (B and D had 1 from the forfeited match's hands);
    it counts them as the round page and the results sheet do
    (``brackets.selectors.stage_data.counted_lines``)."""
    a, b, c, d = (_name(e) for e in ev.entries)
    client.force_login(ev.director)
    page = _get(client, f"/director/tournaments/{ev.tournament.slug}/bracket/")
    on = "played on at the continuation"
    assert _bracket_seats(page, 1, 0) == [
        (f"{a} {on}", "—"),
        (f"{b} {on}", "—"),
        (f"{c} forfeit: a 0\u20136 loss (T7) (4)", "0"),
        (f"{d} {on}", "—"),
    ]
    continued = _bracket_seats(page, 1, 1)
    assert [p for _, p in continued] == ["0", "6", "0"]
    assert all(on not in who for who, _ in continued)


def test_the_directors_bracket_page_labels_the_continuation(
    ev: ForfeitEvent, client: Client
) -> None:
    """T7: a forfeited match and its continuation are two cards of one table on the director's
    bracket page. Both read "Table 1" with nothing to tell them apart (a director's walkthrough
    on ``make demo``), where the round page, the dashboard, the table sheets and the public
    bracket label the second "continuation (T7)"; now the bracket page does too."""
    client.force_login(ev.director)
    page = _get(client, f"/director/tournaments/{ev.tournament.slug}/bracket/")
    headings = [
        _text(h) for h in re.findall(r'<div class="table-card[^"]*">\s*<h3>(.*?)</h3>', page, re.S)
    ]
    assert headings == ["Table 1", "Table 1 continuation (T7)"], headings


@pytest.mark.parametrize("prefix", ["/api/live", "/api/v1/live", "/api/v2/live"])
def test_the_bracket_json_counts_points_as_the_pages_do(
    ev: ForfeitEvent, client: Client, prefix: str
) -> None:
    """README rule decision 6, "Forfeit (T7)": the bracket JSON sent only the stored points
    (1 for B and D, the forfeited match's hands) where every page shows "—" for the players who
    played on at the continuation. ``counted_points`` is the pages' selector
    (``brackets.selectors.stage_data.counted_lines``): null for them, 0 for the forfeit's 0-6
    loss; ``points`` keeps the stored value (v1: a non-nullable field stays as it was)."""
    response = client.get(f"{prefix}/{ev.tournament.slug}/bracket/")
    assert response.status_code == 200, (prefix, response.status_code)
    (table_round,) = [
        r for s in response.json()["stages"] for r in s["rounds"] if r["id"] == ev.round.pk
    ]
    tables = {t["match_id"]: t for t in table_round["tables"]}
    forfeited = {s["entry_id"]: s for s in tables[ev.forfeited.pk]["seats"]}
    a, b, c, d = ev.entries
    assert [forfeited[e]["counted_points"] for e in (a, b, c, d)] == [None, None, 0, None]
    assert [forfeited[e]["played_on"] for e in (a, b, c, d)] == [True, True, False, True]
    assert [forfeited[e]["points"] for e in (a, b, c, d)] == [0, 1, 0, 1]
    continued = {s["entry_id"]: s for s in tables[ev.continuation.pk]["seats"]}
    assert [continued[e]["counted_points"] for e in (a, b, d)] == [0, 6, 0]
    assert not any(s["played_on"] for s in continued.values())


@pytest.mark.django_db(transaction=True)
def test_the_directors_final_table_card_labels_the_continuation(client: Client) -> None:
    """T7 at the final table: with a player withdrawn from the final, the bracket page's
    "Final table" card listed the forfeited match's four seats and the continuation's three
    as one list (A, B, C, D, A, B, C: seven seats at one table, letters repeated). The
    continuation's seats now come under "Table 1 · continuation (T7)"."""
    final = final_table_one_hand_from_the_end()
    leaver = Seat.objects.filter(match=final.match).order_by("seat").first()
    assert leaver is not None
    stage = final.match.round_link.round.stage  # type: ignore[attr-defined]
    stage_entry_withdraw(
        stage=stage,
        actor=final.director,
        entry=Entry.objects.get(pk=leaver.entry_id),
        reason="Flight home",
    )
    client.force_login(final.director)
    page = _get(client, f"/director/tournaments/{final.tournament.slug}/bracket/")
    card = _between(page, '<section class="card final-table"', "</section>")
    assert card.count('<ol class="seats final">') == 2
    assert _text(card.split('<ol class="seats final">')[1]).count("played on at the continuation")
    between = _text(card.split('<ol class="seats final">')[1].split("</ol>", 1)[1])
    assert between == "Table 1 · continuation (T7)", between
