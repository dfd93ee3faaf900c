"""Referee and spectator polish (issue 13 item 4): one seat naming, explained resets and replays,
translated error messages, rounds on the match list, the rules page and the referee card."""

from __future__ import annotations

import json
import re
from html import unescape
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from core.choice_labels import CHOICE_LABELS
from core.rules_reference import rule_anchor, rule_links
from scoring.error_messages import ERROR_MESSAGES
from scoring.models import Match
from scoring.services import hand_record
from tests.factories import referee_of
from tests.live.conftest import make_live_tournament, play_hands, start_match
from tests.pages.conftest import Setup
from tournament.services import referee_token_issue

pytestmark = pytest.mark.django_db

RULE_NUMBERS = [
    *(f"R{n}" for n in range(1, 47)),
    *(f"T{n}" for n in range(1, 12)),
]


def _record(match: Match, actor: Any, number: int, **payload: Any) -> None:
    result = hand_record(match_id=match.pk, actor=actor, expected_number=number, payload=payload)
    assert result.status == 201


def _es(client: Client) -> Client:
    client.cookies["django_language"] = "es"
    return client


def _names(match: Match) -> list[str]:
    return [s.entry.player.name for s in match.seats.order_by("seat")]


# -- the referee's match page ------------------------------------------------------------------


def test_a_reset_is_explained_in_words_with_seats_as_letter_and_name(
    client: Client, setup: Setup
) -> None:
    # RULES.md X2: A, A, B, C, D win; D's win makes everyone have scored: RESET (R31d).
    match = setup.match
    for number, (poser, w) in enumerate([(1, 0), (0, 0), (0, 1), (1, 2), (2, 3)], start=1):
        tile = "6-6" if number == 1 else "5-5"
        _record(match, setup.referee, number, poser=poser, pose_tile=tile, end="domino", winner=w)
    client.force_login(setup.referee)
    html = unescape(client.get(f"/matches/{match.pk}/").content.decode())
    assert "Hand 5: Reset: with this hand every player had scored" in html
    assert 'href="/rules/#R31">R31d</a>' in html
    html = unescape(_es(client).get(f"/matches/{match.pk}/").content.decode())
    assert "Reinicio: con esta mano todos los jugadores habían puntuado" in html


def test_a_replay_is_explained_and_names_the_leader_by_letter_and_name(
    client: Client, setup: Setup
) -> None:
    match = setup.match
    _record(match, setup.referee, 1, poser=2, pose_tile="6-6", end="domino", winner=0)
    _record(match, setup.referee, 2, poser=0, pose_tile="5-5", end="block", counts=[9, 3, 3, 12])
    client.force_login(setup.referee)
    html = unescape(client.get(f"/matches/{match.pk}/").content.decode())
    name_a = _names(match)[0]
    assert f"A · {name_a} leads and poses any tile" in html
    assert "Replay: the last hand was tied, so nobody scored and this hand is worth 2" in html
    assert "Tied hand: nobody scores" in html  # the hands list explains the tie too
    html = unescape(_es(client).get(f"/matches/{match.pk}/").content.decode())
    assert "Repetición: la última mano quedó empatada" in html


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_page_carries_the_translated_error_table_and_the_seat_to_pose(
    client: Client, setup: Setup, language: str
) -> None:
    match = setup.match
    _record(match, setup.referee, 1, poser=2, pose_tile="6-6", end="domino", winner=1)
    client.force_login(setup.referee)
    client.cookies["django_language"] = language
    html = client.get(f"/matches/{match.pk}/").content.decode()
    table = json.loads(unescape(re.search(r'data-error-messages="([^"]*)"', html)[1]))
    assert set(table) == set(ERROR_MESSAGES)
    expected = {
        "en": "%(seat)s must pose this hand.",
        "es": "%(seat)s debe salir en esta mano.",
    }[language]
    assert table["wrong_poser"] == expected
    # B won hand 1 and poses hand 2 (R7): the page names the seat as the form does.
    name_b = _names(match)[1]
    assert f'data-poser-label="B · {name_b}"' in unescape(html)
    # No engine wording ("Seat 1 (B)") anywhere on the page.
    assert not re.search(r"Seat \d \([A-D]\)", html)


def test_every_error_message_is_translated_to_spanish() -> None:
    from django.utils import translation

    with translation.override("en"):
        english = {code: str(msg) for code, msg in ERROR_MESSAGES.items()}
    with translation.override("es"):
        same = [code for code, msg in ERROR_MESSAGES.items() if str(msg) == english[code]]
    assert same == []


def test_choice_labels_cover_every_model_choice_and_are_translated() -> None:
    from django.apps import apps
    from django.utils import translation

    labels = set()
    for model in apps.get_models():
        if model._meta.app_label not in {"tournament", "scoring", "brackets", "notify"}:
            continue
        for field in model._meta.get_fields():
            for _value, label in getattr(field, "choices", None) or []:
                labels.add(str(label))
    # Language names (notify's mail language) are shown in their own language, untranslated.
    labels -= {str(name) for _code, name in settings.LANGUAGES}
    assert labels <= set(CHOICE_LABELS)
    with translation.override("es"):
        same = [
            label
            for label in CHOICE_LABELS
            if translation.gettext(label) == label and label not in {"Normal", "Director"}
        ]
    assert same == []


def test_the_match_list_labels_rounds_and_statuses_in_both_languages(client: Client) -> None:
    lt = make_live_tournament(8, slug="rounds-open")
    referee = referee_of(lt.tournament, username="tables")
    Match.objects.filter(pk__in=[m.pk for m in lt.matches()]).update(referee=referee)
    token = referee_token_issue(tournament=lt.tournament, actor=lt.director, user=referee)
    client.get("/ref/")  # what the phone does with /ref/#<key>: the page posts the key
    client.post("/ref/", {"key": token.key}, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    html = unescape(client.get("/referee/").content.decode())
    assert "Qualifying · Round 1" in html
    assert "Table 1" in html
    assert "Scheduled" in html
    html = unescape(_es(client).get("/referee/").content.decode())
    assert "Qualifying · Ronda 1" in html
    assert "Mesa 1" in html
    assert "Programada" in html
    assert "Scheduled" not in html


@pytest.mark.parametrize("language", ["en", "es"])
def test_invalid_referee_link_is_translated(client: Client, language: str) -> None:
    client.cookies["django_language"] = language
    client.get("/ref/")  # the exchange page sets the CSRF cookie; its script posts the key
    answer = client.post(
        "/ref/",
        {"key": "x" * 8 + "." + "y" * 32},
        REMOTE_ADDR="10.9.8.7",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )
    assert answer.status_code == 404
    html = answer.json()["error"]["message"]  # the page's script shows it
    expected = {
        "en": "This referee link is not valid.",
        "es": "Este enlace de árbitro no es válido.",
    }[language]
    assert expected in html


# -- rules reference and referee card ----------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "es"])
def test_rules_page_has_an_anchor_for_every_rule_number(client: Client, language: str) -> None:
    client.cookies["django_language"] = language
    response = client.get("/rules/")
    assert response.status_code == 200
    html = response.content.decode()
    missing = [n for n in RULE_NUMBERS if f'id="{n}"' not in html]
    assert missing == []
    assert html.count('id="s12"') == 1  # §12 Partnerships
    heading = {"en": "Partnerships", "es": "Parejas"}[language]
    assert heading in html


def test_rules_page_language_follows_the_query(client: Client) -> None:
    assert "Reglamento" in client.get("/rules/?lang=es").content.decode()
    html = client.get("/rules/?lang=en").content.decode()
    assert "Rules reference" in html
    assert 'href="?lang=es"' in html  # the twin file's link works on the site


@pytest.mark.parametrize(
    ("citation", "anchor"),
    [("R5", "R5"), ("R31a", "R31"), ("R31d", "R31"), ("T3", "T3"), ("§9", "s9"), ("X1", None)],
)
def test_rule_anchor(citation: str, anchor: str | None) -> None:
    assert rule_anchor(citation) == anchor


def test_rule_links_escape_the_text_and_link_each_citation() -> None:
    html = str(rule_links("<b> leads (R10, R28) and §9; R2D2 is no rule"))
    assert html.startswith("&lt;b&gt;")
    assert '<a class="rule-link" href="/rules/#R10">R10</a>' in html
    assert '<a class="rule-link" href="/rules/#R28">R28</a>' in html
    assert '<a class="rule-link" href="/rules/#s9">§9</a>' in html
    assert "R2D2 is no rule" in html


@pytest.mark.parametrize("language", ["en", "es"])
def test_referee_card_is_printable_and_translated(client: Client, language: str) -> None:
    client.cookies["django_language"] = language
    response = client.get("/rules/referee-card/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/css/rules.css" in html
    title = {"en": "Referee card", "es": "Tarjeta del árbitro"}[language]
    assert title in html
    for anchor in ("R5", "R7", "R8", "R9", "R10", "R31", "R33"):
        assert f'href="/rules/#{anchor}"' in html
    # The card states the standard rules; it says so, since an event may set them otherwise.
    scope = {"en": "the standard tournament rules", "es": "el reglamento estándar"}[language]
    assert scope in html.split('id="card-scope"')[1].split("</p>")[0]


# -- spectators ------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "es"])
def test_standings_have_a_legend_and_the_outlook_for_phones(client: Client, language: str) -> None:
    lt = make_live_tournament(8, cut_size=4, slug="legend-open")
    client.cookies["django_language"] = language
    html = unescape(client.get(f"/live/{lt.tournament.slug}/standings/").content.decode())
    assert 'class="legend"' in html
    words = {
        "en": ["Match wins", "Hands won", "Six-loves given", "Matches played (+ byes)"],
        "es": ["Partidas ganadas", "Manos ganadas", "Partidas jugadas (+ descansos)"],
    }[language]
    for word in words:
        assert word in html
    assert 'href="/rules/#T5"' in html


def test_player_page_opens_with_a_summary(client: Client) -> None:
    lt = make_live_tournament(8, cut_size=4, slug="summary-open")
    match, other = lt.matches()[:2]
    # A rank means something once a match of the stage is finished (README: before the first
    # result the standings show none): the other table plays its match out.
    play_hands(other, lt.director, start_match(other, lt.director))
    other.refresh_from_db()
    assert other.status == Match.Status.FINISHED
    entry_id = match.seats.get(seat=1).entry_id
    html = unescape(client.get(f"/live/{lt.tournament.slug}/players/{entry_id}/").content.decode())
    assert 'class="player-summary"' in html
    assert re.search(r"<dt>Rank</dt><dd>\d+ of 8 · Qualifying", html)
    assert "seat B" in html
    number = match.table.number if match.table else 1
    assert f"Table {number}</a>" in html


def test_projector_has_no_site_chrome(client: Client) -> None:
    lt = make_live_tournament(8, cut_size=4, slug="kiosk-open")
    html = client.get(f"/live/{lt.tournament.slug}/projector/").content.decode()
    assert "site-header" not in html
    assert "data-projector" in html
    assert "data-fullscreen" in html
    html = client.get(f"/live/{lt.tournament.slug}/standings/").content.decode()
    assert "site-header" in html


def test_table_cards_name_seats_by_letter(client: Client) -> None:
    lt = make_live_tournament(8, slug="letters-open")
    html = client.get(f"/live/{lt.tournament.slug}/tables/").content.decode()
    assert re.findall(r'<td class="seat-no">([^<]*)</td>', html)[:4] == ["A", "B", "C", "D"]


def test_a_seat_without_a_club_shows_its_country_with_no_stray_separator(
    client: Client, setup: Setup
) -> None:
    """Walkthrough: a player with a country and no club read "· PR" under their name."""
    seats = list(setup.match.seats.order_by("seat").select_related("entry__player"))
    (no_club, both, neither, club_only) = (s.entry.player for s in seats)
    no_club.club, no_club.country = "", "PR"
    both.club, both.country = "Bayamón DC", "PR"
    neither.club, neither.country = "", ""
    club_only.club, club_only.country = "Ponce DC", ""
    for player in (no_club, both, neither, club_only):
        player.save(update_fields=["club", "country"])
    client.force_login(setup.referee)
    html = unescape(client.get(f"/matches/{setup.match.pk}/").content.decode())
    smalls = [
        re.sub(r"\s+", " ", s).strip()
        for s in re.findall(r'<span class="who">.*?<small>(.*?)</small>', html, re.S)
    ]
    assert smalls == ["PR", "Bayamón DC · PR", "", "Ponce DC"]
