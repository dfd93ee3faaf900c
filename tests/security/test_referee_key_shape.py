"""A referee key is checked for its shape before any lookup (tournament.services.credentials).

``POST /ref/`` read the key from the raw body, past the JSON parser's NUL and surrogate checks:
a lone surrogate could not be encoded for the query and a NUL is a ``DataError`` on
PostgreSQL, so each was a 500, and none counted toward the wrong-key limit. The same held for
``Authorization: Token``. A key not shaped like an issued one (``<prefix>.<secret>``, URL-safe
base64 characters) now gets the answer of a wrong key and counts as one.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tests.factories import TournamentFactory, director_of, match_in_progress
from tests.security.conftest import csrf, fresh_ip, open_link
from tournament import services
from tournament.context import SESSION_CREDENTIAL_KEY
from tournament.models import RefereeToken, Tournament
from tournament.services.credentials import credential_key_well_formed

pytestmark = pytest.mark.django_db

# Each was a 500 on PostgreSQL (NUL: DataError) or on both databases (a lone surrogate).
UNSTORABLE = ["\ud800.x", "abc\ud800.x", "\x00.abc", "abcdefghijkl.\x00"]
# Never a 500, but never looked up either.
ODD = ["é.x", "a b.c", "abc.def\n", "abc", ".abc", "abc.", "a.b.c", "a" * 60 + "." + "b" * 69]


def _running() -> tuple[Tournament, Any, RefereeToken]:
    tournament = TournamentFactory(status=Tournament.Status.RUNNING)
    director = director_of(tournament)
    role = services.referee_create(tournament=tournament, actor=director, username="ref-shape")
    token = services.referee_token_issue(tournament=tournament, actor=director, user=role.user)
    return tournament, role.user, token


def _failures(ip: str) -> int:
    return int(cache.get(services._failure_key(ip)) or 0)


def _post_json(client: Client, key: str) -> Any:
    return client.post(
        "/ref/", json.dumps({"key": key}), content_type="application/json", **csrf(client)
    )


@pytest.mark.parametrize("key", UNSTORABLE + ODD)
def test_the_link_answers_an_odd_key_as_a_wrong_key_and_counts_it(key: str) -> None:
    _running()
    ip = fresh_ip()
    client = Client(REMOTE_ADDR=ip)
    wrong = open_link(client, "wrongprefix.0000000000000000")  # the answer to compare with
    assert (wrong.status_code, _failures(ip)) == (404, 1)
    got = _post_json(client, key)
    assert got.status_code == 404, got.content[:300]
    assert got.json() == wrong.json()
    if "\ud800" not in key:  # a form body cannot carry a lone surrogate
        form = open_link(client, key)
        assert (form.status_code, form.json()) == (404, wrong.json())
    assert _failures(ip) == (3 if "\ud800" not in key else 2)
    assert SESSION_CREDENTIAL_KEY not in client.session


@pytest.mark.parametrize("key", [k for k in UNSTORABLE + ODD if "\ud800" not in k])
def test_an_odd_token_header_is_a_wrong_key_and_counts(key: str) -> None:
    _running()
    ip = fresh_ip()
    api = APIClient(REMOTE_ADDR=ip)
    api.credentials(HTTP_AUTHORIZATION="Token wrongprefix.0000000000000000")
    wrong = api.get("/api/me/")
    api.credentials(HTTP_AUTHORIZATION=f"Token {key.strip()}")
    got = api.get("/api/me/")
    if " " in key.strip():  # three words: not a key at all (DRF: a malformed header)
        assert got.status_code == 401
        return
    assert got.status_code == wrong.status_code == 401
    assert got.json() == wrong.json()
    assert _failures(ip) == 2


@override_settings(REFEREE_TOKEN_MAX_FAILURES=3)
def test_chain_odd_keys_reach_the_limit_then_the_valid_key_still_opens_its_match() -> None:
    """Odd keys from one address count like wrong ones (429 past the limit), and a valid key
    from that address is still accepted: it opens the session, which reads its match."""
    tournament, referee, token = _running()
    match = match_in_progress(tournament, referee=referee)
    ip = fresh_ip()
    client = Client(REMOTE_ADDR=ip)
    codes = [open_link(client, "\x00.abc").status_code for _ in range(3)]
    codes.append(_post_json(client, "\ud800.x").status_code)
    assert codes == [404, 404, 404, 429]
    opened = open_link(client, token.key)  # type: ignore[attr-defined]
    assert opened.status_code == 200, opened.content
    assert client.session[SESSION_CREDENTIAL_KEY] == token.pk
    assert client.get(f"/api/matches/{match.pk}/").status_code == 200
    api = APIClient(REMOTE_ADDR=ip)
    api.credentials(HTTP_AUTHORIZATION="Token \x00.abc")
    assert api.get("/api/me/").status_code == 429
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")  # type: ignore[attr-defined]
    assert api.get("/api/me/").status_code == 200


def test_every_issued_key_is_well_formed_and_odd_ones_are_not() -> None:
    tournament, referee, token = _running()
    director = director_of(tournament)
    keys = [token.key] + [  # type: ignore[attr-defined]
        services.referee_token_issue(tournament=tournament, actor=director, user=referee).key
        for _ in range(30)
    ]
    assert all(credential_key_well_formed(k) for k in keys)
    assert not any(credential_key_well_formed(k) for k in UNSTORABLE + ODD)
    assert not credential_key_well_formed(None)
