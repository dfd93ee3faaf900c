"""Helpers of the security tests (issue 12): referee credentials and link sessions."""

from __future__ import annotations

import itertools
from typing import Any

from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from tournament import services
from tournament.models import RefereeToken, Tournament

_ips = itertools.count(1)


def fresh_ip() -> str:
    """A client address no other test used (the failure counters live in the shared Redis)."""
    n = next(_ips)
    ip = f"10.99.{(n >> 8) & 255}.{n & 255}"
    cache.delete(services._failure_key(ip))
    return ip


def open_link(client: Client, key: str) -> Any:
    """What the referee's phone does with ``/ref/#<key>``: GET the page (CSRF cookie), then
    its script POSTs the key from the fragment."""
    page = client.get("/ref/")
    assert page.status_code == 200
    return client.post("/ref/", {"key": key}, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)


def csrf(client: Client) -> dict[str, str]:
    return {"HTTP_X_CSRFTOKEN": client.cookies["csrftoken"].value}


def referee_with_key(tournament: Tournament, director: Any, name: str) -> tuple[Any, RefereeToken]:
    """A new referee of ``tournament`` (through the services) and a credential issued to it;
    the credential carries its ``key`` (shown once)."""
    role = services.referee_create(tournament=tournament, actor=director, username=name)
    token = services.referee_token_issue(tournament=tournament, actor=director, user=role.user)
    return role.user, token


def token_client(token: RefereeToken) -> APIClient:
    """An API client sending ``token``'s key (``Authorization: Token``) from a fresh address."""
    api = APIClient(REMOTE_ADDR=fresh_ip())
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")  # type: ignore[attr-defined]
    return api
