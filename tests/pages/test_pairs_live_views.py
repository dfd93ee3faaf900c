"""The spectator pages of a pairs event during and after its final (T9, T10, R42).

The match page shows the two partnerships (AC against BD, partners opposite) with their names
and their one score while the match is played, as the referee's page does; the live match and
tables pages name a pairs final as the bracket does ("The final (two partnerships)", T10),
where an individual event keeps its final table (T6); the pairs standings mark the champion
partnership, as the bracket, the live home and an individual event's standings do. Runs on
PostgreSQL and in the embedded SQLite run."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import Round, RoundMatch
from scoring.models import Match, Seat
from scoring.services import hand_record, match_start
from tests.brackets.pairs_helpers import (
    qualified_for_the_final,
)
from tests.pages.final_table import final_table_one_hand_from_the_end
from tests.pages.test_pairs_event_words import text_of
from tests.pages.test_pairs_pages import finished_pairs_event
from tournament.models import Partnership

pytestmark = pytest.mark.django_db


def pairs_final_in_play() -> tuple[Any, Any, Match]:
    """Four partnerships: one Swiss round cut to two, then the final, started, with one hand
    won by C's domino (AC 1, BD 0)."""
    t, d, _q, k = qualified_for_the_final(4, status="registration")
    final = services.round_publish(stage=k, actor=d)
    assert final.kind == Round.Kind.FINAL
    link = RoundMatch.objects.get(round=final)
    match_start(match_id=link.match_id, actor=d, lot_winner=0)
    hand_record(
        match_id=link.match_id,
        actor=d,
        expected_number=1,
        payload={"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 2},
    )
    t.refresh_from_db()
    match = Match.objects.get(pk=link.match_id)
    assert match.status == Match.Status.IN_PROGRESS
    return t, d, match


def seat_names(match: Match) -> dict[int, str]:
    return dict(Seat.objects.filter(match=match).values_list("seat", "entry__player__name"))


def test_match_page_shows_both_partnerships_with_names_and_score_mid_match_r42(
    client: Client,
) -> None:
    t, _, match = pairs_final_in_play()
    Partnership.objects.filter(tournament=t, members__entry__seats__match=match).filter(
        members__entry__seats__seat=1
    ).update(name="Los Primos")
    t.version += 1  # the live documents are cached per version
    t.save(update_fields=["version"])
    names = seat_names(match)
    html = client.get(f"/live/{t.slug}/matches/{match.pk}/").content.decode()
    sides = re.findall(r'<li class="side[^"]*" data-side="(\d)">(.*?)</li>', html, re.S)
    assert [(k, text_of(body)) for k, body in sides] == [
        ("0", f"AC {names[0]} & {names[2]} 1"),
        ("1", f"BD Los Primos {names[1]} & {names[3]} 0"),
    ]
    assert "Partners sit opposite: A with C, B with D." in text_of(html)


@pytest.mark.django_db(transaction=True)  # the round check runs when its hand commits
def test_match_page_of_an_individual_final_keeps_its_seats_and_final_table_t6(
    client: Client,
) -> None:
    ft = final_table_one_hand_from_the_end()
    page = client.get(f"/live/{ft.tournament.slug}/matches/{ft.match.pk}/").content.decode()
    assert "<h1>Final table · Table 1 " in page
    assert "two partnerships" not in page
    assert 'class="partnerships"' not in page
    assert len(re.findall(r'<tr class="[^"]*" data-seat="\d">', page)) == 4
    tables = text_of(client.get(f"/live/{ft.tournament.slug}/tables/").content.decode())
    assert "Round 1 · Final table · In play" in tables
    assert "partnership" not in tables.lower()


def test_live_match_and_tables_pages_name_a_pairs_final_as_the_bracket_does_t10(
    client: Client,
) -> None:
    t, _, match = pairs_final_in_play()
    page = client.get(f"/live/{t.slug}/matches/{match.pk}/").content.decode()
    assert "<h1>The final (two partnerships) · Table 1 " in page
    assert "Final table" not in page
    tables = text_of(client.get(f"/live/{t.slug}/tables/").content.decode())
    assert "Round 1 · The final (two partnerships) · In play" in tables
    assert "Final table" not in tables
    bracket = text_of(client.get(f"/live/{t.slug}/bracket/").content.decode())
    assert "Round 1 · The final (two partnerships)" in bracket
    # The public API carries the round's pairs flag for its own clients.
    assert client.get(f"/api/v1/live/{t.slug}/tables/").json()["rounds"][0]["pairs"] is True


def test_pairs_standings_mark_the_champion_partnership_as_the_bracket_does_t10(
    client: Client,
) -> None:
    t, _ = finished_pairs_event()
    bracket = client.get(f"/api/v1/live/{t.slug}/bracket/").json()
    champion = bracket["champion_pair"]
    assert champion is not None
    html = client.get(f"/live/{t.slug}/standings/").content.decode()
    final = re.search(r'<ol class="placing-list final-table-result"[^>]*>(.*?)</ol>', html, re.S)
    assert final is not None
    lines = re.findall(r'<li value="(\d)" data-pair="(\d+)">(.*?)</li>', final.group(1), re.S)
    a, b = (p["name"] for p in champion["players"])
    v, pid, body = lines[0]
    assert (v, int(pid), text_of(body)) == (
        "1",
        champion["pair_id"],
        # Bug: a partnership was marked "Champion" ("CAMPEÓN"); now as the home page words it.
        f"{a} & {b} Champion partnership 6 points",
    )
    assert "Champion" not in text_of(lines[1][2])
    assert text_of(html).count("Champion") == 1
    # The documents say so too, for the API's clients.
    stages = client.get(f"/api/v1/live/{t.slug}/standings/").json()["stages"]
    assert [line["champion"] for line in stages[0]["final_table"]] == [True, False]
    assert not any(row["champion"] for row in stages[1]["rows"])  # the qualifying stage


def test_pairs_standings_before_the_final_is_decided_name_no_champion_t10(
    client: Client,
) -> None:
    t, _, _ = pairs_final_in_play()
    html = text_of(client.get(f"/live/{t.slug}/standings/").content.decode())
    assert "Champion" not in html


def test_director_dashboard_groups_a_pairs_match_by_partnership_r42(client: Client) -> None:
    t, d, match = pairs_final_in_play()
    names = seat_names(match)
    client.force_login(d)
    html = client.get(f"/director/tournaments/{t.slug}/").content.decode()
    row = re.search(rf'<tr [^>]*data-match="{match.pk}"[^>]*>(.*?)</tr>', html, re.S)
    assert row is not None
    sides = re.findall(r'<li[^>]*data-side="(\d)">(.*?)</li>', row.group(1), re.S)
    assert [(k, text_of(body)) for k, body in sides] == [
        ("0", f"AC {names[0]} & {names[2]} 1"),
        ("1", f"BD {names[1]} & {names[3]} 0"),
    ]


def test_scores_after_each_hand_are_the_two_partnerships_scores_r43(client: Client) -> None:
    """Partners share one score (R43): the hands list reads "AC 1 \u2013 BD 0" after a hand,
    on the spectator's match page and on the director's match page, not four seat scores."""
    t, d, match = pairs_final_in_play()
    live = text_of(client.get(f"/live/{t.slug}/matches/{match.pk}/").content.decode())
    assert "AC 1 \u2013 BD 0" in live
    assert "1\u20130\u20131\u20130" not in live
    client.force_login(d)
    panel = text_of(client.get(f"/matches/{match.pk}/").content.decode())
    assert "AC 1 \u2013 BD 0" in panel
    assert "1\u20130\u20131\u20130" not in panel


def card_of(html: str, match_id: int) -> str:
    card = re.search(rf'<article[^>]*data-match="{match_id}".*?</article>', html, re.S)
    assert card is not None
    return card.group(0)


def sides_in(card: str) -> list[tuple[str, str]]:
    return [
        (k, text_of(body))
        for k, body in re.findall(r'<li class="side[^"]*" data-side="(\d)">(.*?)</li>', card, re.S)
    ]


def test_tables_page_shows_the_partnerships_their_score_and_who_won_the_hand_r42_r43(
    client: Client,
) -> None:
    """The live tables page reads a pairs table as the match page does: both partnerships AC
    and BD with their registered name, their partners and their one score (R42, T9), and the
    last hand won by a partnership (R43), not by the player who dominoed. The card the
    websocket pushes (``html``) is the same card, in the page's language."""
    from live.presenters.documents import table_card_html
    from live.selectors.matches import match_live

    t, _, match = pairs_final_in_play()
    Partnership.objects.filter(tournament=t, members__entry__seats__match=match).filter(
        members__entry__seats__seat=1
    ).update(name="Los Primos")
    t.version += 1  # the live documents are cached per version
    t.save(update_fields=["version"])
    names = seat_names(match)
    ac, bd = f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}"
    card = card_of(client.get(f"/live/{t.slug}/tables/").content.decode(), match.pk)
    assert sides_in(card) == [("0", f"AC {ac} 1"), ("1", f"BD Los Primos {bd} 0")]
    text = text_of(card)
    assert f"Last hand (1): AC · {ac} won by domino, +1" in text
    assert f"(1): {names[2]} won by" not in text  # C dominoed: the hand is AC's (R43)
    assert "Partners sit opposite" not in text  # said once, on the match page
    assert 'aria-label="partnership score 1"' in card

    pushed = match_live(match_id=match.pk, tournament_id=t.pk)
    assert pushed is not None
    assert [(s["letters"], s["pair_name"], s["score"]) for s in pushed["sides"]] == [
        ("AC", "", 1),
        ("BD", "Los Primos", 0),
    ]
    live = table_card_html(pushed, slug=t.slug, language="en")
    assert sides_in(live) == sides_in(card)
    assert f"Last hand (1): AC · {ac} won by domino, +1" in text_of(live)
    es = text_of(table_card_html(pushed, slug=t.slug, language="es"))
    assert f"Última mano (1): para AC · {ac}, por dominó, +1" in es
    # The match page shows them once, in its card, with the rule's explanation.
    page = client.get(f"/live/{t.slug}/matches/{match.pk}/").content.decode()
    assert page.count('class="partnerships"') == 1
    assert "Partners sit opposite: A with C, B with D." in text_of(page)


def test_a_pairs_table_not_started_yet_shows_its_two_partnerships_t9(client: Client) -> None:
    """Before its first hand a pairs table's ruleset is not frozen on the match yet: the card
    still names its two partnerships (T9), both at 0."""
    t, d, _q, k = qualified_for_the_final(4, status="registration")
    final = services.round_publish(stage=k, actor=d)
    link = RoundMatch.objects.get(round=final)
    t.refresh_from_db()
    names = seat_names(Match.objects.get(pk=link.match_id))
    card = card_of(client.get(f"/live/{t.slug}/tables/").content.decode(), link.match_id)
    assert 'badge-scheduled"' in card
    assert sides_in(card) == [
        ("0", f"AC {names[0]} & {names[2]} 0"),
        ("1", f"BD {names[1]} & {names[3]} 0"),
    ]
    tables = client.get(f"/api/v1/live/{t.slug}/tables/").json()["tables"]
    assert [(x["partners"], len(x["sides"])) for x in tables] == [(True, 2)]
