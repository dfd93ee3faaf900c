"""Server side of the spectator pages: conditional GETs, languages, what each page shows."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from tests.factories import TournamentFactory
from tests.live.conftest import LiveTournament, finish_round_fast, play_hands, start_match
from tournament.models import Tournament

pytestmark = pytest.mark.django_db

PAGES = ["", "tables/", "standings/", "bracket/", "projector/"]


@pytest.fixture
def playing(live_tournament: LiveTournament) -> LiveTournament:
    match = live_tournament.matches()[0]
    play_hands(match, live_tournament.director, start_match(match, live_tournament.director)[:2])
    live_tournament.refresh()
    return live_tournament


@pytest.mark.parametrize("page", PAGES)
def test_pages_are_conditional_on_version_and_language(
    client: Any, playing: Any, page: str
) -> None:
    url = f"/live/spring-open/{page}"
    en = client.get(url)
    assert en.status_code == 200
    version = playing.tournament.version
    assert en["ETag"] == f'W/"t{playing.tournament.pk}v{version}-en"'
    assert en["Cache-Control"] == "private, no-cache"
    assert {"Accept-Language", "Cookie"} <= {v.strip() for v in en["Vary"].split(",")}
    assert client.get(url, HTTP_IF_NONE_MATCH=en["ETag"]).status_code == 304

    es = client.get(url, HTTP_ACCEPT_LANGUAGE="es")
    assert es["ETag"].endswith('-es"')
    assert '<html lang="es">' in es.content.decode()
    # The English ETag does not match the Spanish page.
    assert (
        client.get(url, HTTP_ACCEPT_LANGUAGE="es", HTTP_IF_NONE_MATCH=en["ETag"]).status_code == 200
    )


def test_page_root_tells_the_script_what_to_follow(client: Any, playing: Any) -> None:
    html = client.get("/live/spring-open/tables/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    root = re.search(r'<div id="live"[^>]*>', html, re.S)
    assert root is not None
    tag = root.group(0)
    assert 'data-ws="/ws/live/spring-open/?lang=es"' in tag
    assert f'data-version="{playing.tournament.version}"' in tag
    assert 'data-follow="tables"' in tag
    assert 'data-etag="W/&quot;t' in tag
    assert "js/live.js" in html


def test_tables_page_shows_scores_love_and_next_hand(client: Any, playing: Any) -> None:
    match = playing.matches()[0]
    match.refresh_from_db()
    html = client.get("/live/spring-open/tables/").content.decode()
    card = re.search(rf'<article[^>]*data-match="{match.pk}".*?</article>', html, re.S)
    assert card is not None
    text = card.group(0)
    assert f'data-version="{match.version}"' in text
    scores = [int(x) for x in re.findall(r'<td class="num score">(\d+)', text)]
    assert scores == match.scores
    assert text.count('class="love"') == match.scores.count(0)
    assert f"Hand 3: worth {match.next_hand['value']}" in text or "replay" in text
    assert "Last hand (2)" in text


def test_a_match_in_play_says_who_poses_next_as_the_referee_page_does(
    client: Any, playing: Any
) -> None:
    """R6-R10: the live card, the live match page and the live JSON say who poses the next
    hand, the seat the referee's page names ("A · Ana", the letter and the name)."""
    match = playing.matches()[0]
    match.refresh_from_db()
    poser = match.next_hand["poser"]
    names = {s.seat: str(s.entry.player) for s in match.seats.select_related("entry__player")}
    if poser is None:  # a forced pose (R5): nobody in particular
        expected = f"Next to pose: the holder of {match.next_hand['forced_tile']}"
        referee_says = f"The holder of {match.next_hand['forced_tile']} poses"
    else:
        label = f"{'ABCD'[poser]} · {names[poser]}"
        expected = f"Next to pose: {label}"
        referee_says = label
    for url in ("/live/spring-open/tables/", f"/live/spring-open/matches/{match.pk}/"):
        html = client.get(url).content.decode()
        card = re.search(rf'<article[^>]*data-match="{match.pk}".*?</article>', html, re.S)
        assert card is not None
        assert expected in card.group(0), url
    body = client.get(f"/api/live/spring-open/matches/{match.pk}/").json()
    assert body["match"]["next_hand"]["poser"] == poser
    # The referee's page names the same seat for the next pose.
    director = Client()
    director.force_login(playing.director)
    panel = director.get(f"/matches/{match.pk}/").content.decode()
    assert referee_says in panel
    # Nobody poses next at a table not started yet.
    waiting = playing.matches()[1]
    html = client.get("/live/spring-open/tables/").content.decode()
    card = re.search(rf'<article[^>]*data-match="{waiting.pk}".*?</article>', html, re.S)
    assert card is not None
    assert "Next to pose" not in card.group(0)


def test_spanish_page_is_translated(client: Any, playing: Any) -> None:
    html = client.get("/live/spring-open/tables/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Mesa 1" in html
    assert "Última mano (2)" in html
    _first_results(playing)
    standings = client.get("/live/spring-open/standings/", HTTP_ACCEPT_LANGUAGE="es")
    assert "Clasificación" in standings.content.decode()
    assert "Línea de corte" in standings.content.decode()


def _first_results(lt: LiveTournament) -> None:
    """Round 1 finished: the standings have a result to rank by (no cut line before, T6)."""
    from live.scope import RECENT

    finish_round_fast(lt.round, seed=1)
    RECENT.clear()  # the version lookup is reused for up to 1 s


def test_standings_page_draws_the_cut_line(client: Any, playing: Any) -> None:
    _first_results(playing)
    html = client.get("/live/spring-open/standings/").content.decode()
    assert html.count('class="cut-line"') == 1
    assert "Cut line: the top 4 advance" in html


def test_player_and_match_pages(client: Any, playing: Any) -> None:
    match = playing.matches()[0]
    entry = match.seats.get(seat=1).entry_id
    player = client.get(f"/live/spring-open/players/{entry}/")
    assert player.status_code == 200
    assert f'data-matches="{match.pk}"' in player.content.decode()
    detail = client.get(f"/live/spring-open/matches/{match.pk}/").content.decode()
    assert f'data-ws="/ws/live/spring-open/matches/{match.pk}/?lang=en"' in detail
    assert detail.count("<tr") >= 2 + 4  # hands table rows and seats
    number = match.round_link.table_number
    assert f"<h1>Round 1 · Table {number} <span" in detail  # which table of which round
    client.cookies["django_language"] = "es"
    es = client.get(f"/live/spring-open/matches/{match.pk}/").content.decode()
    assert f"<h1>Ronda 1 · Mesa {number} <span" in es
    del client.cookies["django_language"]
    assert client.get("/live/spring-open/players/999999/").status_code == 404
    assert client.get("/live/spring-open/matches/999999/").status_code == 404


@pytest.mark.parametrize("page", PAGES)
def test_drafts_are_not_public(client: Any, page: str) -> None:
    TournamentFactory(slug="hidden", status=Tournament.Status.DRAFT)
    assert client.get(f"/live/hidden/{page}").status_code == 404


def test_index_lists_public_tournaments_only(client: Any, playing: Any) -> None:
    TournamentFactory(name="Secret Cup", slug="secret", status=Tournament.Status.DRAFT)
    html = client.get("/live/").content.decode()
    assert playing.tournament.name in html
    assert "Secret Cup" not in html


def test_projector_cycles_tables_and_standings(client: Any, playing: Any) -> None:
    html = client.get("/live/spring-open/projector/").content.decode()
    assert "data-projector" in html
    assert html.count("data-slide") >= 2  # at least one tables slide and one standings slide
    assert 'class="live projector"' in html


def test_home_links_the_leaders_and_every_export(client: Any, playing: Any) -> None:
    """Found by the user test: the exports and the leaders page were linked from nowhere."""
    html = client.get("/live/spring-open/").content.decode()
    hrefs = set(re.findall(r'href="([^"]+)"', html))
    assert "/stats/spring-open/" in hrefs
    for kind in ("standings", "players", "matches", "hands"):
        for fmt in ("csv", "json"):
            url = f"/live/spring-open/export/{kind}.{fmt}"
            assert url in hrefs
            assert client.get(url).status_code == 200, url


def test_time_called_with_tables_playing_on_says_how_many(client: Any, playing: Any) -> None:
    """T3: the director calls time and keeps one table going (sudden death); the clock line
    says that table plays on instead of reading as if the round were over, and the summary
    and tables documents count it (``open_tables``)."""
    from brackets.services import round_call_time
    from live.selectors import live_tables, tournament_summary

    kept = playing.matches()[0]
    round_call_time(
        round=playing.round, actor=playing.director, reason="over the hour", sudden_death=[kept.pk]
    )
    playing.refresh()
    summary = tournament_summary(tournament=playing.tournament)
    assert [r["open_tables"] for r in summary["current_rounds"]] == [1]
    assert [r["open_tables"] for r in live_tables(tournament=playing.tournament)["rounds"]] == [1]
    home = client.get("/live/spring-open/").content.decode()
    assert "Time has been called (T3); 1 table plays on." in home
    es = client.get("/live/spring-open/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Se cumplió el tiempo (T3); sigue jugando 1 mesa." in es


def test_the_bracket_marks_a_table_ended_by_time_as_the_round_page_does_t3(
    client: Any, playing: Any
) -> None:
    """T3: a match ended when time was called is marked "time". The director's round page says
    so beside the table; the spectators' bracket says it too, in both languages, and again
    after it re-renders (the region is rebuilt from the bracket document on each version)."""
    from brackets.services import round_call_time

    played, waiting = playing.matches()[:2]
    before = client.get("/live/spring-open/bracket/").content.decode()
    assert "data-end-reason" not in before
    round_call_time(round=playing.round, actor=playing.director, reason="over the hour")
    playing.refresh()
    ended = {m.pk for m in playing.matches() if m.end_reason == "time"}
    assert {played.pk, waiting.pk} <= ended
    # (The page asks for the version it learnt of: the server reuses its version lookup for
    # up to a second, as live.js's X-Live-Version covers.)
    now = str(playing.tournament.version)
    html = client.get("/live/spring-open/bracket/", HTTP_X_LIVE_VERSION=now).content.decode()
    for match_id in ended:
        table = re.search(
            rf'<li class="bracket-table[^"]*">\s*<a href="/live/spring-open/matches/{match_id}/">'
            r"(.*?)</a>(.*?)<ol",
            html,
            re.S,
        )
        assert table is not None
        assert '<span class="muted end-reason" data-end-reason="time">time called (T3)</span>' in (
            table.group(2)
        )
    es = client.get(
        "/live/spring-open/bracket/", HTTP_ACCEPT_LANGUAGE="es", HTTP_X_LIVE_VERSION=now
    ).content.decode()
    assert es.count(">tiempo cumplido (T3)</span>") == len(ended)
    # The director's round page marks the same tables.
    director = Client()
    director.force_login(playing.director)
    round_page = director.get(
        f"/director/tournaments/spring-open/rounds/{playing.round.pk}/"
    ).content.decode()
    assert round_page.count("<small>Time (T3)</small>") == len(ended)


def test_a_stage_named_as_its_kind_is_not_named_twice(client: Any, playing: Any) -> None:
    """Found by the user test: "Stage: Qualifying · Qualifying" on the live home and bracket
    (the stage's name, then its kind's). The kind is said only when the name does not say it."""
    from django.db.models import F

    from brackets.models import Stage

    stage = Stage.objects.get(tournament=playing.tournament, number=1)
    for language in ("en", "es"):
        for page in ("", "bracket/"):
            html = client.get(f"/live/spring-open/{page}?lang={language}").content.decode()
            text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
            assert f"{stage.name} · {stage.name}" not in text, (language, page)
    Stage.objects.filter(pk=stage.pk).update(name="Day one")
    # A new version, as every write makes: the live documents are cached per version.
    # (and the page learns a version newer than the one it read a second ago from live.js).
    Tournament.objects.filter(pk=playing.tournament.pk).update(version=F("version") + 1)
    version = Tournament.objects.get(pk=playing.tournament.pk).version
    html = client.get("/live/spring-open/", HTTP_X_LIVE_VERSION=str(version)).content.decode()
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    assert "Day one · Qualifying" in text
