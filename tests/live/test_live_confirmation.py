"""Spectators see a match held by confirmation at the table (issue 15): the live match page,
the tables page and the projector label a match awaiting the players' confirmation or
disputed and with the director, and the live API carries it as ``confirmation_hold``."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from live.api import serializers as s
from live.scope import RECENT
from scoring import confirmation
from tests.live.conftest import LiveTournament, play_hands, start_match
from tournament.models import Tournament

pytestmark = pytest.mark.django_db

AWAITING_EN = "Awaiting confirmation"
DISPUTED_EN = "Result disputed: with the director"


def _fresh(client: Any, url: str, **headers: Any) -> Any:
    """A read after a change: no reuse of the version read less than a second ago."""
    RECENT.clear()
    return client.get(url, **headers)


def _card(html: str, match_id: int) -> str:
    found = re.search(rf'<article[^>]*data-match="{match_id}".*?</article>', html, re.S)
    assert found is not None
    return found.group(0)


@pytest.fixture
def held(live_tournament: LiveTournament) -> tuple[LiveTournament, Any, list[dict[str, Any]]]:
    """Round 1's first match under ``every_hand`` confirmation, one hand recorded (so it
    waits for the players); the other matches of the round are not held."""
    Tournament.objects.filter(pk=live_tournament.tournament.pk).update(confirmation="every_hand")
    match = live_tournament.matches()[0]
    payloads = start_match(match, live_tournament.director)
    play_hands(match, live_tournament.director, payloads[:1])
    live_tournament.refresh()
    match.refresh_from_db()
    assert match.confirmation_hold == "hand"
    return live_tournament, match, payloads


def test_a_match_awaiting_confirmation_is_labelled_on_every_live_page(
    client: Any, held: Any
) -> None:
    live, match, _ = held
    other = live.matches()[1]
    for page in ("tables/", "projector/"):
        html = _fresh(client, f"/live/spring-open/{page}").content.decode()
        assert AWAITING_EN in _card(html, match.pk)
        assert 'data-hold="awaiting"' in _card(html, match.pk)
        assert "data-hold" not in _card(html, other.pk)  # only the held match
    detail = _fresh(client, f"/live/spring-open/matches/{match.pk}/").content.decode()
    assert AWAITING_EN in detail
    es = _fresh(client, f"/live/spring-open/matches/{match.pk}/", HTTP_ACCEPT_LANGUAGE="es")
    assert "Pendiente de confirmación" in es.content.decode()


def test_the_api_exposes_the_hold_and_it_clears_when_every_player_confirms(
    client: Any, held: Any
) -> None:
    live, match, _ = held
    body = _fresh(client, f"/api/live/spring-open/matches/{match.pk}/").json()
    assert body["match"]["confirmation_hold"] == "awaiting"
    tables = _fresh(client, "/api/live/spring-open/tables/").json()["tables"]
    holds = {t["id"]: t["confirmation_hold"] for t in tables}
    assert holds.pop(match.pk) == "awaiting"
    assert set(holds.values()) == {None}
    # The documented shape (a nullable enum) round-trips the body unchanged.
    assert json.loads(json.dumps(s.MatchDetailSerializer(body).data)) == body

    for seat in range(match.n_players):
        confirmation.hand_confirm(match_id=match.pk, actor=live.director, number=1, seat=seat)
    body = _fresh(client, f"/api/live/spring-open/matches/{match.pk}/").json()
    assert body["match"]["confirmation_hold"] is None
    html = _fresh(client, "/live/spring-open/tables/").content.decode()
    assert "data-hold" not in _card(html, match.pk)


def test_a_disputed_result_is_with_the_director_until_resolved(client: Any, held: Any) -> None:
    live, match, payloads = held
    confirmation.hand_dispute(
        match_id=match.pk,
        actor=live.director,
        number=1,
        seat=1,
        claimed=payloads[0],
        note="The player says the counts were otherwise.",
    )
    body = _fresh(client, f"/api/live/spring-open/matches/{match.pk}/").json()
    assert body["match"]["confirmation_hold"] == "disputed"
    for page in ("tables/", "projector/", f"matches/{match.pk}/"):
        html = _fresh(client, f"/live/spring-open/{page}").content.decode()
        assert DISPUTED_EN in html
        assert AWAITING_EN not in html
    es = _fresh(client, "/live/spring-open/tables/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Resultado impugnado: lo decide el director" in es

    confirmation.dispute_resolve(
        match_id=match.pk, actor=live.director, decision="uphold", reason="Checked the tiles."
    )
    body = _fresh(client, f"/api/live/spring-open/matches/{match.pk}/").json()
    assert body["match"]["confirmation_hold"] != "disputed"
    html = _fresh(client, "/live/spring-open/tables/").content.decode()
    assert DISPUTED_EN not in html
