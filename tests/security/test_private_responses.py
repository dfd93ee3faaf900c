"""What a browser may keep (docs/security.md, "What browsers keep"; core.private_responses).

A tester found director pages (players' e-mail addresses, the action log, webhooks, settings,
a round) and API answers (credentials, action log, ``/api/me/``) sent without any
``Cache-Control``: a shared laptop at the venue kept them on disk. Every answer to a request
made with credentials (a session cookie, an ``Authorization`` header) now says
``private, no-store`` unless its view chose its own header. Through the real middleware stack
(Django's test client), for a director, a referee's link session and a referee's API token;
anonymous answers, the live pages and API, static files and the dashboard's 304 unchanged.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from brackets.models import Round
from brackets.services import round_publish, stage_seed
from scoring.services import match_assign_referee
from tests.brackets.factories_pages import tournament_with_stage
from tests.security.conftest import fresh_ip, open_link, token_client
from tournament import services
from tournament.models import RefereeToken, Tournament

pytestmark = pytest.mark.django_db

PRIVATE = "private, no-store"


@pytest.fixture
def event() -> dict[str, Any]:
    tournament, director, stage = tournament_with_stage(8, referees=0)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd: Round = round_publish(stage=stage, actor=director)
    role = services.referee_create(tournament=tournament, actor=director, username="Rosa")
    match_id = rnd.round_matches.order_by("table_number").values_list("match_id", flat=True)[0]
    match_assign_referee(match_id=match_id, actor=director, referee=role.user)
    token = services.referee_token_issue(tournament=tournament, actor=director, user=role.user)
    return {
        "t": tournament,
        "director": director,
        "round": rnd,
        "match_id": match_id,
        "token": token,
    }


def _director(event: dict[str, Any]) -> Client:
    client = Client(REMOTE_ADDR=fresh_ip())
    client.force_login(event["director"])
    return client


def _referee_phone(token: RefereeToken) -> Client:
    phone = Client(REMOTE_ADDR=fresh_ip())
    assert open_link(phone, token.key).status_code == 200  # type: ignore[attr-defined]
    return phone


def _cache_control(response: Any) -> str:
    value = str(response.get("Cache-Control", ""))
    if getattr(response, "streaming", False):
        response.close()
    return value


def director_urls(event: dict[str, Any]) -> list[str]:
    slug = event["t"].slug
    base = f"/director/tournaments/{slug}/"
    return [
        "/director/",
        base + "notifications/emails/",  # players' e-mail addresses
        base + "log/",
        base + "webhooks/",
        base + "settings/",
        base + f"rounds/{event['round'].pk}/",
        base + "stages/",
        f"/api/tournaments/{slug}/referee-tokens/",
        f"/api/tournaments/{slug}/action-log/",
        f"/api/v2/tournaments/{slug}/action-log/",
        f"/api/tournaments/{slug}/entries/",
        "/api/me/",
    ]


def test_director_pages_and_api_are_not_kept(event: dict[str, Any]) -> None:
    client = _director(event)
    for url in director_urls(event):
        response = client.get(url)
        assert response.status_code == 200, url
        assert _cache_control(response) == PRIVATE, url


def test_a_redirect_and_a_refusal_to_a_signed_in_account_are_not_kept_either(
    event: dict[str, Any],
) -> None:
    """Any answer to a request with credentials: a redirect, a 404, a 403."""
    client = _director(event)
    slug = event["t"].slug
    assert _cache_control(client.get(f"/director/tournaments/{slug}/no-such-page/")) == PRIVATE
    other = Client(REMOTE_ADDR=fresh_ip())
    other.force_login(
        services.referee_create(
            tournament=event["t"], actor=event["director"], username="Nadie"
        ).user
    )
    refused = other.get(f"/api/tournaments/{slug}/action-log/")
    assert refused.status_code in (401, 403)
    assert _cache_control(refused) == PRIVATE


def test_pages_that_chose_their_own_header_keep_it(event: dict[str, Any]) -> None:
    """``never_cache`` pages, and the answers showing a secret once (``no-store``)."""
    client = _director(event)
    slug = event["t"].slug
    sheets = client.get(f"/director/tournaments/{slug}/rounds/{event['round'].pk}/sheets/")
    assert "max-age=0" in sheets["Cache-Control"]  # never_cache, as before
    links = client.post(
        f"/director/tournaments/{slug}/rounds/{event['round'].pk}/sheets/links/", follow=True
    )
    assert links.redirect_chain  # POST-redirect-GET: the sheets' GET shows the links once
    assert "/ref/#" in links.content.decode()
    assert "no-store" in links["Cache-Control"]


def test_a_referee_link_session_is_not_kept(event: dict[str, Any]) -> None:
    phone = _referee_phone(event["token"])
    match_id = event["match_id"]
    for url in ("/referee/", f"/matches/{match_id}/", f"/api/matches/{match_id}/", "/api/me/"):
        response = phone.get(url)
        assert response.status_code == 200, url
        assert "no-store" in _cache_control(response), url
    # The API answers had no header before (the pages were never_cache already).
    assert _cache_control(phone.get(f"/api/matches/{match_id}/")) == PRIVATE
    assert _cache_control(phone.get("/api/me/")) == PRIVATE


def test_a_referee_api_token_is_not_kept(event: dict[str, Any]) -> None:
    api = token_client(event["token"])
    me = api.get("/api/me/")
    assert me.status_code == 200
    assert _cache_control(me) == PRIVATE
    assert _cache_control(api.get(f"/api/matches/{event['match_id']}/")) == PRIVATE


def test_public_pages_cache_as_before_for_spectators(event: dict[str, Any]) -> None:
    """No credentials, nothing added: the answers are what they were."""
    anon = Client(REMOTE_ADDR=fresh_ip())
    slug = event["t"].slug
    for url in ("/", "/live/", "/players/", "/rules/", "/circuits/", f"/stats/{slug}/"):
        response = anon.get(url)
        assert response.status_code == 200, url
        assert "Cache-Control" not in response, url
    live = anon.get(f"/live/{slug}/")
    assert live["Cache-Control"] == "private, no-cache"
    api = anon.get(f"/api/live/{slug}/standings/")
    assert api["Cache-Control"] == "public, no-cache"  # nginx keeps it (deploy/nginx)
    again = anon.get(f"/api/live/{slug}/standings/", HTTP_IF_NONE_MATCH=api["ETag"])
    assert again.status_code == 304
    # Public API reads without credentials: as before, no header.
    assert "Cache-Control" not in anon.get(f"/api/tournaments/{slug}/")


def test_live_pages_and_api_keep_their_own_header_for_a_signed_in_director(
    event: dict[str, Any],
) -> None:
    """The live views set their own Cache-Control (ETag revalidation of public data): a
    director watching the live pages revalidates them exactly as a spectator does."""
    client = _director(event)
    slug = event["t"].slug
    live = client.get(f"/live/{slug}/")
    assert live["Cache-Control"] == "private, no-cache"
    assert client.get(f"/live/{slug}/", HTTP_IF_NONE_MATCH=live["ETag"]).status_code == 304
    api = client.get(f"/api/live/{slug}/standings/")
    assert api["Cache-Control"] == "public, no-cache"
    again = client.get(f"/api/live/{slug}/standings/", HTTP_IF_NONE_MATCH=api["ETag"])
    assert again.status_code == 304
    assert again["Cache-Control"] == "public, no-cache"


def test_static_files_keep_their_own_header_with_a_session(event: dict[str, Any]) -> None:
    client = _director(event)
    response = client.get("/static/js/dashboard.js")
    assert response.status_code == 200
    value = _cache_control(response)
    assert "no-store" not in value
    assert "private" not in value
    assert value == _cache_control(Client().get("/static/js/dashboard.js"))


def test_dashboard_rows_revalidate_with_nothing_stored(event: dict[str, Any]) -> None:
    """The dashboard's script keeps the rows' ETag and answers a 304 with the rows it has:
    neither the 200 nor the 304 needs a copy in the browser's cache, so both say no-store."""
    client = _director(event)
    url = f"/director/tournaments/{event['t'].slug}/rows/"
    first = client.get(url)
    assert first.status_code == 200
    assert first["Cache-Control"] == PRIVATE
    unchanged = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert unchanged.status_code == 304
    assert unchanged["Cache-Control"] == PRIVATE
    Tournament.objects.filter(pk=event["t"].pk).update(version=event["t"].version + 100)
    changed = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert changed.status_code == 200
    assert changed["ETag"] != first["ETag"]


def test_chain_sign_out_then_the_same_browser_reads_public_pages(event: dict[str, Any]) -> None:
    """A director signs out on the venue laptop: the session cookie is gone, and the public
    pages read next are answered as to any spectator."""
    client = Client(REMOTE_ADDR=fresh_ip())
    client.force_login(event["director"])
    assert _cache_control(client.get("/director/")) == PRIVATE
    client.post("/accounts/logout/")
    assert not client.cookies.get("sessionid") or not client.cookies["sessionid"].value
    assert "Cache-Control" not in client.get("/")
