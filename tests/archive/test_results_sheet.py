"""The printable results sheet of a round (issue 16, item 5): every table, its players in seat
order with place, points and hands won, how each match ended, the byes; a print stylesheet;
public like the standings (a draft's round is 404)."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import timezone

from brackets import services as brackets_services
from brackets.models import RoundMatch
from live.scope import RECENT
from scoring.models import Match, Seat
from scoring.services import match_result_override
from tests.brackets.conftest import make_tournament, open_matches, play_round
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def _round(n: int = 9):  # type: ignore[no-untyped-def]
    tournament, director = make_tournament(n)
    stage = brackets_services.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=2,
        cut_size=4,
        auto_advance=True,
    )
    brackets_services.stage_seed(stage=stage, actor=director)
    rnd = brackets_services.round_publish(stage=stage, actor=director)
    return tournament, director, rnd


def test_the_sheet_lists_every_table_with_places_points_and_how_it_ended() -> None:
    tournament, director, rnd = _round(9)
    first = open_matches(rnd)[0]
    match_result_override(
        match_id=first.pk,
        actor=director,
        scores=[6, 2, 0][: first.n_players] + [0] * max(0, first.n_players - 3),
        reason="score sheet",
    )
    play_round(rnd, director, seed=4)
    url = f"/live/{tournament.slug}/rounds/{rnd.pk}/results/"
    response = Client().get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "css/results.css" in html
    links = list(RoundMatch.objects.filter(round=rnd).order_by("table_number", "match_id"))
    bodies = re.findall(
        r'<tbody class="results-table" data-match="(\d+)">(.*?)</tbody>', html, re.S
    )
    assert [int(mid) for mid, _ in bodies] == [link.match_id for link in links]
    for (mid, body), link in zip(bodies, links, strict=True):
        seats = list(
            Seat.objects.filter(match_id=int(mid)).select_related("entry__player").order_by("seat")
        )
        rows = re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
        assert len(rows) == len(seats)
        for row, seat in zip(rows, seats, strict=True):
            cells = [
                re.sub(r"<[^>]+>", "", c).strip()
                for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row, re.S)
            ]
            if row is rows[0]:
                assert cells[0] == str(link.table_number)
                cells = cells[1:]
            assert cells[0] == "ABCD"[seat.seat]
            assert cells[1].startswith(seat.entry.player.name)
            assert cells[2] == str(seat.placing)
            assert cells[3] == str(seat.points)
            assert cells[4] == str(seat.hands_won)
    assert "Director override" in bodies[0][1]
    assert html.count("Director override") == 1
    assert f"{len(links)} of {len(links)} tables finished" in html
    if rnd.byes:
        assert "Byes" in html


def test_the_sheet_is_public_but_not_for_drafts_or_other_tournaments() -> None:
    tournament, _, rnd = _round(8)
    other, _, other_rnd = _round(8)
    client = Client()
    assert client.get(f"/live/{tournament.slug}/rounds/{other_rnd.pk}/results/").status_code == 404
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.DRAFT)
    RECENT.clear()  # the live layer's one-second memory of public tournaments (live/scope.py)
    assert client.get(f"/live/{tournament.slug}/rounds/{rnd.pk}/results/").status_code == 404
    # An unfinished round shows its tables in play, places as dashes.
    html = client.get(f"/live/{other.slug}/rounds/{other_rnd.pk}/results/").content.decode()
    assert "0 of 2 tables finished" in html
    assert "—" in html


def _sheet_with_a_time_call_and_a_match_in_play() -> tuple[Tournament, str]:
    """A round whose first table ended on time (T3) and whose second is still in play."""
    tournament, _, rnd = _round(8)
    first, second = (link.match_id for link in RoundMatch.objects.filter(round=rnd))
    now = timezone.now()
    Match.objects.filter(pk=first).update(
        status=Match.Status.FINISHED,
        end_reason=Match.EndReason.TIME,
        hands_count=6,
        started_at=now,
        finished_at=now,
    )
    Match.objects.filter(pk=second).update(
        status=Match.Status.IN_PROGRESS, hands_count=2, started_at=now
    )
    return tournament, f"/live/{tournament.slug}/rounds/{rnd.pk}/results/"


@pytest.mark.parametrize(
    ("language", "words", "english"),
    [
        ("es", ["En juego", "6 manos · Tiempo (T3)", "Qualifying, Ronda 1"], ["In progress"]),
        ("en", ["In progress", "6 hands · Time (T3)", "Qualifying, Round 1"], []),
    ],
)
def test_the_sheet_names_statuses_end_reasons_and_the_round_in_the_page_language(
    language: str, words: list[str], english: list[str]
) -> None:
    """QA: the Spanish sheet said "In progress" and "Time (T3)" (and "Round 2") in English."""
    _, url = _sheet_with_a_time_call_and_a_match_in_play()
    html = Client(HTTP_ACCEPT_LANGUAGE=language).get(url).content.decode()
    for word in words:
        assert word in html
    for word in english:
        assert word not in html


def test_a_spanish_sheet_is_never_served_to_an_english_visitor() -> None:
    """The sheet's text is translated, so its cache key is per language: the weak ETag names the
    language and the answer varies on Accept-Language (and Cookie, the language switcher's). A
    browser or proxy holding the Spanish copy that revalidates it for an English visitor gets
    the English page, never a 304."""
    _, url = _sheet_with_a_time_call_and_a_match_in_play()
    spanish = Client(HTTP_ACCEPT_LANGUAGE="es").get(url)
    etag = spanish["ETag"]
    assert "En juego" in spanish.content.decode()
    vary = {v.strip().lower() for v in spanish["Vary"].split(",")}
    assert {"accept-language", "cookie"} <= vary
    assert "public" not in spanish["Cache-Control"]
    again = Client(HTTP_ACCEPT_LANGUAGE="es").get(url, HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304  # the same language revalidates
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get(url, HTTP_IF_NONE_MATCH=etag)
    assert english.status_code == 200
    assert english["ETag"] != etag
    html = english.content.decode()
    assert "In progress" in html
    assert "En juego" not in html
