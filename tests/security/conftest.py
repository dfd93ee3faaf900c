"""Helpers of the security tests (issue 12): referee credentials and link sessions."""

from __future__ import annotations

import itertools
from typing import Any

from django.core.cache import cache
from django.test import Client

from tournament import services

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
