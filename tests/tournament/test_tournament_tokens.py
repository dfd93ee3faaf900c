"""Referee tokens: entropy, header auth, revocation, per-address failure limit on real Redis."""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from typing import Any

import pytest
from django.core.cache import cache
from django.db import connections
from django.test import override_settings
from rest_framework.test import APIClient

from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tests.security.conftest import fresh_ip
from tournament import services
from tournament.auth import client_ip
from tournament.models import RefereeToken, Tournament
from tournament.services import (
    RefereeTokenInvalidError,
    RefereeTokenThrottledError,
    referee_token_resolve,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def tournament() -> Tournament:
    return TournamentFactory()


@pytest.fixture
def setup(tournament: Tournament) -> tuple[Any, Any, RefereeToken]:
    director = director_of(tournament)
    referee = referee_of(tournament)
    token = services.referee_token_issue(tournament=tournament, actor=director, user=referee)
    return director, referee, token


def test_keys_carry_at_least_128_random_bits(setup: Any, tournament: Tournament) -> None:
    director, referee, token = setup
    keys = {token.key} | {
        services.referee_token_issue(tournament=tournament, actor=director, user=referee).key
        for _ in range(20)
    }
    assert len(keys) == 21
    for key in keys:
        prefix, secret = key.split(".")
        raw = base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))
        assert len(raw) * 8 >= 128
        assert len(raw) == 24  # secrets.token_urlsafe(24): 192 bits
        # Only the non-secret prefix and a SHA-256 of the whole key are stored.
        row = RefereeToken.objects.get(prefix=prefix)
        assert row.key_hash == hashlib.sha256(key.encode()).hexdigest()
        assert key not in {
            str(v) for v in RefereeToken.objects.filter(pk=row.pk).values().get().values()
        }


@pytest.mark.parametrize("scheme", ["Token", "Bearer", "token"])
def test_a_token_authenticates_the_referee_on_the_api(
    setup: Any, tournament: Tournament, scheme: str
) -> None:
    _, referee, token = setup
    match = match_in_progress(tournament, referee=referee)
    api = APIClient(REMOTE_ADDR=fresh_ip())
    api.credentials(HTTP_AUTHORIZATION=f"{scheme} {token.key}")
    r = api.post(
        f"/api/matches/{match.pk}/hands/",
        {"number": 1, "poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 2},
        format="json",
    )
    assert r.status_code == 201, r.content
    assert r.json()["hand"]["recorded_by"] == referee.pk
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_a_revoked_token_is_rejected(setup: Any, tournament: Tournament) -> None:
    director, referee, token = setup
    match = match_in_progress(tournament, referee=referee)
    api = APIClient(REMOTE_ADDR=fresh_ip())
    director_api = APIClient()
    director_api.force_authenticate(director)
    r = director_api.post(f"/api/tournaments/{tournament.slug}/referee-tokens/{token.pk}/revoke/")
    assert r.status_code == 200
    assert r.json()["active"] is False
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    r = api.post(
        f"/api/matches/{match.pk}/hands/",
        {"number": 1, "poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 2},
        format="json",
    )
    assert r.status_code == 401
    assert r["WWW-Authenticate"] == "Token"
    # Reads stay public, but the revoked token does not pass as anonymous either.
    assert api.get(f"/api/matches/{match.pk}/").status_code == 401
    with pytest.raises(RefereeTokenInvalidError):
        referee_token_resolve(key=token.key, client_ip=fresh_ip())


def test_anonymous_writes_get_401(tournament: Tournament) -> None:
    match = match_in_progress(tournament)
    r = APIClient().post(f"/api/matches/{match.pk}/hands/", {"number": 1}, format="json")
    assert r.status_code == 401
    assert r.json()["error"]["code"] == "not_authenticated"


@override_settings(REFEREE_TOKEN_MAX_FAILURES=3, REFEREE_TOKEN_FAILURE_WINDOW=60)
def test_wrong_tokens_are_rate_limited_per_client_address(setup: Any) -> None:
    _, _, token = setup
    ip, other_ip = fresh_ip(), fresh_ip()
    api = APIClient(REMOTE_ADDR=ip)
    api.credentials(HTTP_AUTHORIZATION="Token wrongprefix.000000000000000000")
    statuses = [api.get("/api/tournaments/").status_code for _ in range(5)]
    assert statuses == [401, 401, 401, 429, 429]
    assert api.get("/api/tournaments/").json()["error"]["code"] == "throttled"
    # Issue 12 finding 4: the right key is NEVER refused by the limit (one venue behind one
    # NAT must not lock its referees out) ...
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.get("/api/tournaments/").status_code == 200
    # ... and another address is unaffected.
    other = APIClient(REMOTE_ADDR=other_ip)
    other.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert other.get("/api/tournaments/").status_code == 200
    # The counter lives in Redis with the window as its expiry.
    assert cache.get(services._failure_key(ip)) >= 3
    ttl = cache._cache.get_client().ttl(cache.make_and_validate_key(services._failure_key(ip)))
    assert 0 < ttl <= 60


@override_settings(REFEREE_TOKEN_MAX_FAILURES=1000)
def test_the_failure_counter_is_atomic_under_concurrency() -> None:
    ip = fresh_ip()
    n_threads, per_thread = 8, 5
    barrier = threading.Barrier(n_threads)

    def worker() -> None:
        barrier.wait()
        try:
            for _ in range(per_thread):
                with pytest.raises(RefereeTokenInvalidError):
                    referee_token_resolve(key="nope", client_ip=ip)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert cache.get(services._failure_key(ip)) == n_threads * per_thread


@override_settings(REFEREE_TOKEN_MAX_FAILURES=2)
def test_resolve_raises_throttled_after_the_limit() -> None:
    ip = fresh_ip()
    for _ in range(2):
        with pytest.raises(RefereeTokenInvalidError):
            referee_token_resolve(key="x" * 32, client_ip=ip)
    with pytest.raises(RefereeTokenThrottledError) as exc:
        referee_token_resolve(key="x" * 32, client_ip=ip)
    assert exc.value.status_code == 429


def test_client_ip_ignores_forwarded_for_without_a_configured_proxy() -> None:
    """Issue 12 finding 4: by default (TRUSTED_PROXY_COUNT=0) X-Forwarded-For is never read,
    so rotating it while talking to the app directly cannot dodge the limit."""
    from django.test import RequestFactory

    rf = RequestFactory()
    for remote in ("127.0.0.1", "10.0.0.5", "8.8.8.8"):
        spoofed = rf.get("/", REMOTE_ADDR=remote, HTTP_X_FORWARDED_FOR="1.2.3.4, 5.6.7.8")
        assert client_ip(spoofed) == remote


@override_settings(TRUSTED_PROXY_COUNT=1)
def test_client_ip_behind_one_trusted_proxy_takes_the_hop_it_appended() -> None:
    from django.test import RequestFactory

    rf = RequestFactory()
    via_proxy = rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="1.2.3.4, 5.6.7.8")
    assert client_ip(via_proxy) == "5.6.7.8"  # the hop nginx appended; 1.2.3.4 is the client's
    garbage = rf.get("/", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="not-an-ip")
    assert client_ip(garbage) == "127.0.0.1"


def test_the_key_and_link_are_shown_once_and_keep_the_key_out_of_the_path(
    setup: Any, tournament: Tournament
) -> None:
    director, referee, _ = setup
    api = APIClient()
    api.force_authenticate(director)
    issued = api.post(
        f"/api/tournaments/{tournament.slug}/referee-tokens/", {"user": referee.pk}, format="json"
    ).json()
    key = issued["key"]
    # The key rides in the fragment, which browsers never send: it reaches no access log.
    assert issued["link"].endswith(f"/ref/#{key}")
    body = api.get(f"/api/tournaments/{tournament.slug}/referee-tokens/").json()
    assert body["results"][0]["active"] is True
    assert body["results"][0]["key"] is None
    assert body["results"][0]["link"] is None
    assert key not in json.dumps(body)


# -- the credential check every link request makes (precompiled) ---------------------------------


def _orm_usable(credential_id: Any) -> RefereeToken | None:
    """The same question through the ORM: the definition the precompiled statement keeps."""
    from tournament.principal import _credential

    return _credential(credential_id, status=Tournament.Status.RUNNING)


def test_the_precompiled_credential_check_answers_as_the_orm_does(
    setup: Any, tournament: Tournament
) -> None:
    from tournament.models import TournamentRole
    from tournament.principal import credential_usable

    director, referee, token = setup
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["status"])
    got = credential_usable(credential_id=token.pk)
    assert got is not None
    assert got.pk == token.pk
    assert got.role.user_id == referee.pk
    assert got.role.tournament_id == tournament.pk
    assert got.role.role == TournamentRole.Role.REFEREE
    assert got.key_hash == _orm_usable(token.pk).key_hash  # type: ignore[union-attr]
    # Strings from a session, garbage and unknown ids: as the ORM (None, never a 500).
    assert credential_usable(credential_id=str(token.pk)).pk == token.pk  # type: ignore[union-attr]
    bad: Any
    for bad in (None, "x", "", [], token.pk + 1000):
        assert credential_usable(credential_id=bad) is None
        assert _orm_usable(bad) is None

    # Not running -> nobody; running again -> usable again.
    for status in (Tournament.Status.REGISTRATION, Tournament.Status.FINISHED):
        tournament.status = status
        tournament.save(update_fields=["status"])
        assert credential_usable(credential_id=token.pk) is None
        assert _orm_usable(token.pk) is None
    tournament.status = Tournament.Status.RUNNING
    tournament.save(update_fields=["status"])
    assert credential_usable(credential_id=token.pk) is not None

    # The role changed under the credential -> nobody.
    TournamentRole.objects.filter(pk=token.role_id).update(role=TournamentRole.Role.DIRECTOR)
    assert credential_usable(credential_id=token.pk) is None
    assert _orm_usable(token.pk) is None
    TournamentRole.objects.filter(pk=token.role_id).update(role=TournamentRole.Role.REFEREE)

    # Revoked -> nobody, at once.
    services.referee_token_revoke(token=RefereeToken.objects.get(pk=token.pk), actor=director)
    assert credential_usable(credential_id=token.pk) is None
    assert _orm_usable(token.pk) is None
