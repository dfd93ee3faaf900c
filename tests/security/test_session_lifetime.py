"""How long a session cookie lives (docs/security.md, "Credentials"): an account's ends with the
browser (a director on a shared laptop at a venue expects closing it to sign them out); a
referee link's outlives a closed browser, since its credential is re-checked on every request."""

from __future__ import annotations

import json

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import TournamentFactory, director_of
from tests.security.conftest import csrf, fresh_ip, open_link
from tournament import services
from tournament.context import SESSION_CREDENTIAL_KEY
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def _lifetime(client: Client) -> tuple[str, str]:
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    return str(cookie["max-age"]), str(cookie["expires"])


def test_chain_director_signs_in_on_a_shared_laptop_then_a_referee_opens_a_link() -> None:
    t = TournamentFactory(status=Tournament.Status.RUNNING)
    director = director_of(t, username="dir-venue")
    laptop = Client(REMOTE_ADDR=fresh_ip())
    signed_in = laptop.post("/accounts/login/", {"username": "dir-venue", "password": "pw"})
    assert signed_in.status_code == 302
    assert _lifetime(laptop) == ("", "")  # a browser-session cookie: gone when it closes

    api = Client(enforce_csrf_checks=True)
    api.get("/api/auth/login/")
    r = api.post(
        "/api/auth/login/",
        json.dumps({"username": "dir-venue", "password": "pw"}),
        content_type="application/json",
        **csrf(api),
    )
    assert r.status_code == 200, r.content
    assert _lifetime(api) == ("", "")

    # The same laptop opens a referee's link: the director is signed out, and the link's
    # session keeps its cookie for SESSION_COOKIE_AGE (a phone closed mid-match keeps it).
    role = services.referee_create(tournament=t, actor=director, username="ref-venue")
    token = services.referee_token_issue(tournament=t, actor=director, user=role.user)
    assert open_link(laptop, token.key).status_code == 200  # type: ignore[attr-defined]
    assert _lifetime(laptop)[0] == str(settings.SESSION_COOKIE_AGE)
    assert "_auth_user_id" not in laptop.session
    assert laptop.session[SESSION_CREDENTIAL_KEY] == token.pk
