"""A closed round's clock (T2, T3) on the director's round page and the spectators' pages.

Bug (testers, on a finished event): a closed round whose clock was never started still read
"Round clock: 60 minutes, not started" (spectators' home and Live tables, which show the last
round played once none is in play), and one whose clock had run showed a countdown on the
round page and the projector that went on to "Time!" after every result was in. A closed
round's clock says nothing any more: no clock line, or, if time was called (T3), when.
"""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from brackets import services
from brackets.models import Round
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tests.brackets.test_brackets_services import finish_round

pytestmark = pytest.mark.django_db


def closed_round(*, start_clock: bool = False, call_time: bool = False) -> tuple[Any, Round]:
    """Round 1 of a 60-minute stage, every table finished and the round closed (manual mode:
    it waits for the director, so the spectators' pages show it as the last round played)."""
    _tournament, director, stage = tournament_with_stage(8, time_limit=60, auto_advance=False)
    services.stage_seed(stage=stage, actor=director, method="rating")
    rnd = services.round_publish(stage=stage, actor=director)
    if start_clock:
        rnd = services.round_clock_start(round=rnd, actor=director)
    if call_time:
        services.round_call_time(round=rnd, actor=director, reason="hour up")
    finish_round(rnd, director)
    rnd.refresh_from_db()
    if rnd.status != Round.Status.CLOSED:
        services.round_close(round=rnd, actor=director)
        rnd.refresh_from_db()
    assert rnd.status == Round.Status.CLOSED
    return director, rnd


def body(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def spectator_pages(rnd: Round) -> dict[str, str]:
    slug = rnd.stage.tournament.slug
    return {
        name: body(Client(), reverse(f"live:{name}", kwargs={"slug": slug}))
        for name in ("home", "tables", "projector")
    }


def round_page(director: Any, rnd: Round) -> str:
    url = reverse("brackets:round", args=[rnd.stage.tournament.slug, rnd.pk])
    return body(director_client(director), url)


def test_a_closed_round_never_started_shows_no_clock() -> None:
    director, rnd = closed_round()
    for name, page in spectator_pages(rnd).items():
        assert "not started" not in page, name
        assert "Round clock" not in page, name
    page = round_page(director, rnd)
    assert "not started" not in page
    assert "Round closed" in page.split('id="clock"', 1)[1].split("</section>", 1)[0]


def test_a_closed_round_whose_clock_ran_counts_nothing_down() -> None:
    director, rnd = closed_round(start_clock=True)
    for name, page in spectator_pages(rnd).items():
        assert "data-clock-ends" not in page, name
        assert "Round clock" not in page, name
    page = round_page(director, rnd)
    clock = page.split('id="clock"', 1)[1].split("</section>", 1)[0]
    assert "data-ends-at" not in clock  # director.js would count it to "Time!"
    assert "ends at" not in clock
    assert "Round closed" in clock


def test_a_closed_round_says_when_time_was_called() -> None:
    """T3: time was called, then every result came in; the pages say when, not "running"."""
    director, rnd = closed_round(start_clock=True, call_time=True)
    assert rnd.time_called_at is not None
    called = timezone.localtime(rnd.time_called_at).strftime("%H:%M")
    pages = spectator_pages(rnd)
    for name in ("home", "tables"):
        assert f"Round closed; time was called at {called} (T3)." in pages[name], name
        assert "data-clock-ends" not in pages[name], name
    assert "data-clock-ends" not in pages["projector"]
    assert "Time was called at" in round_page(director, rnd)
