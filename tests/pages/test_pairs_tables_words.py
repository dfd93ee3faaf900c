"""A pairs event's tables, stages and rounds read by partnership (T9, T10, R42).

Both partners hold their partnership's placing (``1, 3, 1, 3``, T4 over partnerships), so a
table listed seat by seat read 1st, 1st, 3rd, 3rd. The director's bracket and round pages and
the public bracket list each partnership once per table with its place there (1st / 2nd); the
stages and round pages say partnerships where they meant them (the cut, the knockout and its
final, two partnerships a table, who has the bye); the live standings name both partners of a
partnership wherever a row named it by its label alone. An individual event reads as before
(checked beside). Runs on PostgreSQL and in the embedded SQLite run."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import Round, RoundMatch
from brackets.presenters.director import round_matches
from scoring.models import Seat
from scoring.services import match_result_override
from tests.brackets.pairs_helpers import decide_round, make_pairs_tournament, pairs_stages
from tests.pages.test_pairs_event_words import individual_event_with_stages, text_of
from tests.pages.test_pairs_pages import finished_pairs_event
from tournament.models import Partnership, PartnershipMember, TournamentRole

pytestmark = pytest.mark.django_db


def sides_of(match_id: int) -> tuple[tuple[str, str], tuple[str, str]]:
    """(A, C) and (B, D): the names of the two partnerships at a table (R42)."""
    names = dict(Seat.objects.filter(match_id=match_id).values_list("seat", "entry__player__name"))
    return (names[0], names[2]), (names[1], names[3])


def lists(html: str, css_class: str) -> list[list[str]]:
    """The text of every ``<li>`` of each ``<ol>`` carrying ``css_class``."""
    out = []
    for body in re.findall(rf'<ol class="[^"]*\b{css_class}\b[^"]*">(.*?)</ol>', html, re.S):
        out.append([text_of(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", body, re.S)])
    return out


def links_in_order(t: Any) -> list[RoundMatch]:
    return list(
        RoundMatch.objects.filter(round__stage__tournament=t).order_by(
            "round__stage__number", "round__number", "table_number"
        )
    )


# -- 1. bracket tables: each partnership once per table ------------------------------------------


def test_director_bracket_lists_each_partnership_once_per_table_r42_t4(client: Client) -> None:
    t, d = finished_pairs_event()
    Partnership.objects.filter(tournament=t, number=1).update(name="Los Primos")
    links = links_in_order(t)
    assert len(links) == 3  # two qualifying tables, then the final
    expected = []
    for link in links:
        (a, c), (b, dd) = sides_of(link.match_id)
        placings = list(
            Seat.objects.filter(match_id=link.match_id)
            .order_by("seat")
            .values_list("placing", flat=True)
        )
        assert placings in ([1, 3, 1, 3], [3, 1, 3, 1])  # both partners hold the placing
        ac, bd = (1, 2) if placings[0] == 1 else (2, 1)
        primos = PartnershipMember.objects.filter(
            partnership__tournament=t, partnership__name="Los Primos", entry__player__name=a
        ).exists()
        ac_name = f"Los Primos ({a} & {c})" if primos else f"{a} & {c}"
        expected.append(
            [
                f"AC {ac_name} ({ac}) {6 if ac == 1 else 0}",
                f"BD {b} & {dd} ({bd}) {6 if bd == 1 else 0}",
            ]
        )
    assert any("Los Primos" in row[0] for row in expected)

    client.force_login(d)
    html = client.get(f"/director/tournaments/{t.slug}/bracket/").content.decode()
    cards = lists(html, "compact")
    # The knockout card marks the partnership that went on; its text adds the arrow.
    assert [[x.replace(" →", "") for x in card] for card in cards] == expected
    assert "(3)" not in text_of(html)
    # The final: two partnerships, places 1 and 2, never "place 3".
    final = html[
        html.index('id="final-table"') : html.index("</section>", html.index('id="final-table"'))
    ]
    assert lists(final, "final") == [
        [re.sub(r"\((\d)\) (\d)", r"\2 place \1", row) for row in expected[-1]]
    ]
    assert "place 3" not in text_of(final)
    page = text_of(html)
    # The knockout after a cut of two is the final alone, between two partnerships (T10).
    assert "The final only (top two partnerships) · 2 partnerships (4 players)" in page
    assert "The final (two partnerships) · Closed" in page
    assert "Table knockout to a final table" not in page
    assert "Final table ·" not in page


def test_live_bracket_lists_each_partnership_once_with_1st_and_2nd_t10(client: Client) -> None:
    t, _ = finished_pairs_event()
    html = client.get(f"/live/{t.slug}/bracket/").content.decode()
    cards = lists(html, "bracket-pairs")
    expected = []
    for link in links_in_order(t):
        (a, c), (b, dd) = sides_of(link.match_id)
        first_ac = Seat.objects.get(match_id=link.match_id, seat=0).placing == 1
        winner, loser = (f"{a} & {c}", f"{b} & {dd}") if first_ac else (f"{b} & {dd}", f"{a} & {c}")
        expected.append((winner, loser))
    assert len(cards) == 3
    for card, (winner, loser) in zip(cards, expected, strict=True):
        assert len(card) == 2  # one row per partnership, not four per player
        assert card[0].startswith(f"1st {winner}")
        assert card[1].startswith(f"2nd {loser}")
    # The final's winners are the champion partnership (T10).
    assert cards[-1][0].endswith("Champion partnership")
    region = html[html.index("bracket-stage") :]
    assert "3rd" not in text_of(region)
    # The API carries the same: each table's two partnerships with their places.
    api = client.get(f"/api/v1/live/{t.slug}/bracket/").json()
    final = api["stages"][-1]["rounds"][-1]["tables"][0]
    assert [s["placing"] for s in final["sides"]] in ([1, 2], [2, 1])
    assert {s["letters"] for s in final["sides"]} == {"AC", "BD"}
    assert [s["placing"] for s in final["seats"]] in ([1, 3, 1, 3], [3, 1, 3, 1])
    assert sum(s["champion"] for s in final["sides"]) == 1


def test_a_level_pairs_table_shares_first_place_t3(client: Client) -> None:
    """Time called with the partnerships level: both are 1st, neither the winner (T3)."""
    t, d, _ = make_pairs_tournament(2)
    q, _k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    rnd = services.round_publish(stage=q, actor=d)
    link = RoundMatch.objects.get(round=rnd)
    match_result_override(
        match_id=link.match_id, actor=d, scores=[0, 0, 0, 0], placings=[1, 1, 1, 1], reason="level"
    )
    t.refresh_from_db()
    cards = lists(client.get(f"/live/{t.slug}/bracket/").content.decode(), "bracket-pairs")
    assert [[row.split()[0] for row in card] for card in cards] == [["1st", "1st"]]
    (line,) = round_matches(rnd)
    assert [s.placing for s in line.sides] == [1, 1]
    assert not any(s.won for s in line.sides)


# -- 2. the round page and the stages page --------------------------------------------------------


def five_pairs_round_one() -> tuple[Any, Any, Round]:
    """Five partnerships: round 1 seats four at two tables and one partnership has the bye."""
    t, d, _ = make_pairs_tournament(5)
    Partnership.objects.filter(tournament=t, number=5).update(name="Los Primos")
    q, _k = pairs_stages(t, d, swiss_rounds=2, cut_size=3, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    rnd = services.round_publish(stage=q, actor=d)
    return t, d, rnd


def test_round_page_names_the_partnerships_at_each_table_and_the_bye_t9(client: Client) -> None:
    t, d, rnd = five_pairs_round_one()
    assert len(rnd.byes) == 2  # both players of one partnership
    client.force_login(d)
    url = f"/director/tournaments/{t.slug}/rounds/{rnd.pk}/"
    html = client.get(url).content.decode()
    page = text_of(html)
    bye = PartnershipMember.objects.filter(entry_id__in=rnd.byes).order_by("slot")
    names = [m.entry.player.name for m in bye]
    assert {m.partnership.name for m in bye} == {"Los Primos"}  # the lowest seed sits out
    assert f"1 partnership has a bye (T1): Los Primos ({names[0]} & {names[1]})" in page
    assert "2 byes" not in page
    assert "Partnerships (AC against BD) and scores" in page
    assert "Seats in play order and scores" not in page
    links = list(RoundMatch.objects.filter(round=rnd).order_by("table_number"))
    before = []
    for link in links:
        (a, c), (b, dd) = sides_of(link.match_id)
        before.append([f"AC {a} & {c} 0", f"BD {b} & {dd} 0"])  # no place before a result
    assert lists(html, "pair-sides") == before
    decide_round(rnd, d, winners={2: 1})
    after = client.get(url).content.decode()
    rows = lists(after, "pair-sides")
    assert [[r.split("(")[-1].split(")")[0] for r in card] for card in rows] == [
        ["1", "2"],
        ["2", "1"],
    ]
    assert after.count('<li class="winner">') == 2  # one winning partnership per table
    assert "(3)" not in text_of(after)


def test_round_preview_names_the_bye_partnership_once_t9(client: Client) -> None:
    """Before publishing, the preview lists the partnership with the bye once, by its name
    and both players, as the round page does after (it listed the two players apart)."""
    t, d, _ = make_pairs_tournament(5)
    Partnership.objects.filter(tournament=t, number=5).update(name="Los Primos")
    q, _k = pairs_stages(t, d, swiss_rounds=2, cut_size=3, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    client.force_login(d)
    html = client.get(f"/director/tournaments/{t.slug}/stages/{q.pk}/preview/").content.decode()
    byes = re.search(r'<section id="byes">(.*?)</section>', html, re.S)
    assert byes is not None
    items = [text_of(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", byes.group(1), re.S)]
    members = PartnershipMember.objects.filter(partnership__tournament=t, partnership__number=5)
    a, b = (m.entry.player.name for m in members.order_by("slot"))
    assert items == [f"Los Primos ({a} & {b}) #5"]  # with its one seed (T8 over partnerships)


def test_the_round_rows_of_a_pairs_round_take_one_query_more(
    django_assert_num_queries: Any,
) -> None:
    """The partnerships' registered names are one query for the whole round (T9)."""
    _t, _d, rnd = five_pairs_round_one()
    loaded = Round.objects.select_related("stage").get(pk=rnd.pk)
    with django_assert_num_queries(3):
        lines = round_matches(loaded)
    assert [len(line.sides) for line in lines] == [2, 2]


def test_round_page_of_the_pairs_final_is_the_final_not_a_final_table_t10(client: Client) -> None:
    t, d = finished_pairs_event()
    final = Round.objects.get(stage__tournament=t, kind=Round.Kind.FINAL)
    client.force_login(d)
    page = text_of(
        client.get(f"/director/tournaments/{t.slug}/rounds/{final.pk}/").content.decode()
    )
    assert "The final (two partnerships) · round 1" in page
    assert "Final table · round" not in page


def test_stages_page_of_a_pairs_event_speaks_of_partnerships_t9_t10(client: Client) -> None:
    t, d = finished_pairs_event()  # a cut to two partnerships, then the final alone
    client.force_login(d)
    page = text_of(client.get(f"/director/tournaments/{t.slug}/stages/").content.decode())
    assert "Qualifying (Swiss-style) · 1 round · cut to the top 2 partnerships ·" in page
    assert page.count("two partnerships a table, partners opposite (T9)") == 2
    assert (
        "The final only (top two partnerships) · one match between the top two partnerships (T10)"
        in page
    )
    assert "1 The final (two partnerships) Closed" in page
    # The final was played: the page says the event is over (T6), not that the last stage is
    # a knockout (it is "the final only").
    assert "The final has been played: the tournament is over, no stage can follow it" in page
    assert "The last stage is the partnership knockout" not in page
    for individual in (
        "3-player tables allowed",
        "tables of 4 only",
        "final table of 4",
        "top 1 per table",
        "Table knockout to a final table",
        "Final table",
        "cut to the top 2 ·",
    ):
        assert individual not in page, individual
    # A longer knockout: partnerships down to the final (T10).
    t2, d2, _ = make_pairs_tournament(8, status="registration")
    pairs_stages(t2, d2, swiss_rounds=2, cut_size=4)
    client.force_login(d2)
    page2 = text_of(client.get(f"/director/tournaments/{t2.slug}/stages/").content.decode())
    assert "Partnership knockout to the final · each table's winning partnership" in page2
    assert "cut to the top 4 partnerships" in page2


# -- 3. live standings: both partners named -------------------------------------------------------


def test_live_standings_name_both_partners_of_each_partnership_t10(client: Client) -> None:
    t, _ = finished_pairs_event()
    Partnership.objects.filter(tournament=t, number=1).update(name="Los Primos")
    t.version += 1
    t.save(update_fields=["version"])
    final = Round.objects.get(stage__tournament=t, kind=Round.Kind.FINAL)
    link = RoundMatch.objects.get(round=final)
    html = client.get(f"/live/{t.slug}/standings/").content.decode()
    start = html.index("final-table-result")
    result = html[start : html.index("</ol>", start)]
    rows = [text_of(li) for li in re.findall(r"<li[^>]*>(.*?)</li>", result, re.S)]
    assert len(rows) == 2
    for side in sides_of(link.match_id):
        a, b = side
        registered = PartnershipMember.objects.get(
            entry__player__name=a, entry__tournament=t
        ).partnership.name
        label = f"{registered} ({a} & {b})" if registered else f"{a} & {b}"
        assert any(row.startswith(label) for row in rows), (label, rows)
    for entry_id in Seat.objects.filter(match_id=link.match_id).values_list("entry_id", flat=True):
        assert f"/live/{t.slug}/players/{entry_id}/" in result
    page = text_of(html)
    assert "The top 2 partnerships advance (T6 , T10)." in page  # each rule a link
    # A partnership without a registered name is named by its players once, not twice.
    unnamed = Partnership.objects.get(tournament=t, number=2)
    a, b = (
        PartnershipMember.objects.filter(partnership=unnamed)
        .order_by("slot")
        .values_list("entry__player__name", flat=True)
    )
    rows = re.findall(rf'<tr[^>]*data-pair="{unnamed.pk}">(.*?)</tr>', html, re.S)
    assert rows
    for row in rows:
        cell = text_of(re.search(r"<th[^>]*>(.*?)</th>", row, re.S).group(1))  # type: ignore[union-attr]
        assert cell == f"{a} Club 1 & {b} Club 1", cell
    # The projector's standings slide names both partners too.
    projector = text_of(client.get(f"/live/{t.slug}/projector/").content.decode())
    first = Partnership.objects.get(tournament=t, number=1)
    p1, p2 = (
        PartnershipMember.objects.filter(partnership=first)
        .order_by("slot")
        .values_list("entry__player__name", flat=True)
    )
    assert f"Los Primos ({p1} & {p2})" in projector


# -- the same pages of an individual event are unchanged -----------------------------------------


def test_an_individual_events_tables_stages_and_rounds_read_as_before(client: Client) -> None:
    """The same assertions hold before and after the pairs wording (nothing here changed)."""
    from tests.live.conftest import make_live_tournament

    lt = make_live_tournament(8, cut_size=4)
    t, rnd = lt.tournament, lt.round
    links = list(RoundMatch.objects.filter(round=rnd).order_by("table_number"))
    for link in links:
        match_result_override(
            match_id=link.match_id,
            actor=lt.director,
            scores=[6, 3, 2, 0],
            placings=[1, 2, 3, 4],
            reason="sheet",
        )
    t.refresh_from_db()
    client.force_login(lt.director)
    round_html = client.get(f"/director/tournaments/{t.slug}/rounds/{rnd.pk}/").content.decode()
    round_page = text_of(round_html)
    assert "Seats in play order and scores" in round_page
    assert "pair-sides" not in round_html
    names = dict(
        Seat.objects.filter(match_id=links[0].match_id).values_list("seat", "entry__player__name")
    )
    assert (
        f"A {names[0]} (1) 6 B {names[1]} (2) 3 C {names[2]} (3) 2 D {names[3]} (4) 0" in round_page
    )
    bracket_html = client.get(f"/director/tournaments/{t.slug}/bracket/").content.decode()
    assert "pair-sides" not in bracket_html
    assert f"A {names[0]} (1) 6" in text_of(bracket_html)
    live = client.get(f"/live/{t.slug}/bracket/").content.decode()
    assert "bracket-pairs" not in live
    assert f"1st {names[0]} 2nd {names[1]} 3rd {names[2]} 4th {names[3]}" in text_of(live)
    api = client.get(f"/api/v1/live/{t.slug}/bracket/").json()
    assert {len(tb.get("sides", [])) for tb in api["stages"][0]["rounds"][0]["tables"]} == {0}
    standings = text_of(client.get(f"/live/{t.slug}/standings/").content.decode())
    assert "The top 4 advance (T6)." in standings
    stages = text_of(client.get(f"/director/tournaments/{t.slug}/stages/").content.decode())
    assert (
        "Qualifying (Swiss-style) · 3 rounds · cut to the top 4 · 3-player tables allowed" in stages
    )
    assert "partnership" not in stages.lower()
    t2 = individual_event_with_stages(cut=8)
    client.force_login(TournamentRole.objects.get(tournament=t2, role="director").user)
    page2 = text_of(client.get(f"/director/tournaments/{t2.slug}/stages/").content.decode())
    assert "Table knockout to a final table · top 1 per table · final table of 4" in page2
    assert "partnership" not in page2.lower()
