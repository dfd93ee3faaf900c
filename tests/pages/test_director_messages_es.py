"""Director page messages follow the page's language: a director browsing in Spanish reads the
confirmations of seeding, publishing, the clock and calling time (T3) in Spanish, with the
numbers filled in; the same POSTs in English keep their English text."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from brackets.models import Round
from tests.brackets.factories_pages import director_client, tournament_with_stage

pytestmark = pytest.mark.django_db


def url(name: str, *args: Any) -> str:
    return reverse(f"brackets:{name}", args=args)


def messages_after(client: Client, response: Any) -> list[str]:
    assert response.status_code == 302, response.status_code
    page = client.get(response["Location"])
    return [str(m) for m in page.context["messages"]]


@pytest.mark.parametrize(
    ("language", "seeded", "published", "clock", "time_called"),
    [
        (
            "es",
            "8 jugadores sembrados: por rating.",
            "La ronda 1 de {stage} está publicada.",
            "Reloj en marcha: 25 minutos.",
            "Tiempo cumplido (T3): 2 partidas terminaron por tiempo.",
        ),
        (
            "en",
            "Seeded 8 players by rating.",
            "Round 1 of {stage} is published.",
            "Clock started: 25 minutes.",
            "Time called (T3): 2 match(es) ended on time.",
        ),
    ],
)
def test_round_messages_are_in_the_directors_language(
    language: str, seeded: str, published: str, clock: str, time_called: str
) -> None:
    tournament, director, stage = tournament_with_stage(8, time_limit=30)
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    slug = tournament.slug

    response = client.post(url("seed", slug, stage.pk), {"method": "rating"})
    assert messages_after(client, response) == [seeded]

    response = client.post(url("publish", slug, stage.pk), {"expected_number": "1"})
    assert messages_after(client, response) == [published.format(stage=stage.name)]
    rnd = Round.objects.get(stage=stage, number=1)

    response = client.post(url("clock", slug, rnd.pk), {"minutes": "25"})
    assert messages_after(client, response) == [clock]

    response = client.post(url("call-time", slug, rnd.pk), {"reason": "late", "confirm": "on"})
    assert messages_after(client, response) == [time_called]


@pytest.mark.parametrize(
    ("language", "plan", "stale", "in_play"),
    [
        (
            "es",
            "Ronda 1 de ",
            "La próxima ronda es la 1, no la 5: vuelve a ver la vista previa.",
            "La ronda 1 está en juego: se cierra cuando termina su última partida.",
        ),
        (
            "en",
            "Round 1 of ",
            "The next round is round 1, not 5: preview again.",
            "Round 1 is in play: it closes when its last match ends.",
        ),
    ],
)
def test_the_round_plan_and_its_refusals_are_in_the_directors_language(
    language: str, plan: str, stale: str, in_play: str
) -> None:
    """The preview's plan line and the service's refusals come from the services in the
    request's language (brackets.services.planning, rounds), numbers filled in."""
    tournament, director, stage = tournament_with_stage(8, time_limit=30)
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    slug = tournament.slug
    client.post(url("seed", slug, stage.pk), {"method": "rating"})

    preview = client.get(url("preview", slug, stage.pk)).content.decode()
    assert plan in preview

    response = client.post(url("publish", slug, stage.pk), {"expected_number": "5"})
    assert stale in messages_after(client, response)[0]
    assert not Round.objects.filter(stage=stage).exists()

    client.post(url("publish", slug, stage.pk), {"expected_number": "1"})
    preview = client.get(url("preview", slug, stage.pk)).content.decode()
    assert in_play in preview


@pytest.mark.parametrize(
    ("language", "expected", "absent"),
    [
        (
            "es",
            {
                "stages": [
                    "Clasificatoria (estilo suizo)",
                    "En marcha",
                    "Publicada (en juego)",
                    "Ronda clasificatoria 1 en juego: 0 de 2 terminadas.",
                ],
                "round": ["Publicada (en juego)", "Programada"],
                "bracket": ["Publicada (en juego)", "Clasificatoria (estilo suizo)"],
                "seeding": ["En marcha"],
                "lifecycle": ["En marcha", "Terminado"],
            },
            ["Published (in play)", "Scheduled", "Running", "Qualifying (Swiss-style)"],
        ),
        (
            "en",
            {
                "stages": [
                    "Qualifying (Swiss-style)",
                    "Running",
                    "Published (in play)",
                    "Qualifying round 1 in play: 0 of 2 done.",
                ],
                "round": ["Published (in play)", "Scheduled"],
                "bracket": ["Published (in play)", "Qualifying (Swiss-style)"],
                "seeding": ["Running"],
                "lifecycle": ["Running", "Finished"],
            },
            ["Publicada (en juego)", "Programada", "En marcha"],
        ),
    ],
)
def test_statuses_and_kinds_are_shown_in_the_directors_language(
    language: str, expected: dict[str, list[str]], absent: list[str]
) -> None:
    """Choice labels (tournament, stage, round and match statuses, stage and round kinds) and
    the stage list's next-step hint are in the page's language (core.choice_labels)."""
    from html import unescape

    tournament, director, stage = tournament_with_stage(8)
    client = director_client(director)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    slug = tournament.slug
    client.post(url("seed", slug, stage.pk), {"method": "rating"})
    client.post(url("publish", slug, stage.pk), {"expected_number": "1"})
    rnd = Round.objects.get(stage=stage, number=1)
    pages = {
        "stages": url("stages", slug),
        "round": url("round", slug, rnd.pk),
        "bracket": url("bracket", slug),
        "seeding": url("seeding", slug, stage.pk),
        "lifecycle": reverse("tournament:lifecycle", args=[slug]),
    }
    for name, path in pages.items():
        response = client.get(path)
        assert response.status_code == 200, (name, response.status_code)
        html = unescape(response.content.decode())
        for text in expected[name]:
            assert text in html, (name, text)
        for text in absent:
            assert text not in html, (name, text)
