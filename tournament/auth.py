"""Referee token authentication for the API, and the client address used to rate-limit it.

A referee sends ``Authorization: Token <key>`` or ``Authorization: Bearer <key>``; the same key
is the private link ``/ref/<key>/`` (the page view calls
:func:`tournament.services.referee_token_resolve` itself). Wrong keys are limited per client
address by an atomic Redis counter in that service.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.request import Request

from tournament.models import RefereeToken
from tournament.services import (
    RefereeTokenInvalidError,
    RefereeTokenThrottledError,
    referee_token_resolve,
)

KEYWORDS = (b"token", b"bearer")


def _trusted_proxy(address: str) -> bool:
    """Whether ``address`` is our reverse proxy (loopback or private network by default).

    ``REFEREE_TRUSTED_PROXIES`` (a list of networks) overrides the default. Only a request that
    reached us through a trusted proxy may name its client in ``X-Forwarded-For``; anyone else
    could spoof the header to dodge the per-address limit.
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    networks = getattr(settings, "REFEREE_TRUSTED_PROXIES", None)
    if networks is not None:
        return any(ip in ipaddress.ip_network(n) for n in networks)
    return ip.is_loopback or ip.is_private


def client_ip(request: HttpRequest | Request) -> str:
    """The client's address: the rightmost ``X-Forwarded-For`` hop added by a trusted proxy
    (nginx appends ``$remote_addr``), else ``REMOTE_ADDR``."""
    meta = request.META
    remote = str(meta.get("REMOTE_ADDR") or "0.0.0.0")  # noqa: S104 - a value, not a bind
    forwarded = str(meta.get("HTTP_X_FORWARDED_FOR") or "")
    if forwarded and _trusted_proxy(remote):
        hop = forwarded.split(",")[-1].strip()
        try:
            return str(ipaddress.ip_address(hop))
        except ValueError:
            return remote
    return remote


class RefereeTokenAuthentication(BaseAuthentication):
    """``Authorization: Token <key>`` / ``Bearer <key>`` → the referee's user."""

    keyword = "Token"
    rate_limited = True  # wrong keys, per client address (PITFALLS.md); the schema says 429

    def authenticate(self, request: Request) -> tuple[Any, RefereeToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Malformed Authorization header.")
        try:
            key = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("Malformed token.") from None
        try:
            token = referee_token_resolve(key=key, client_ip=client_ip(request))
        except RefereeTokenThrottledError as exc:
            raise exceptions.Throttled(detail=exc.message) from None
        except RefereeTokenInvalidError as exc:
            raise exceptions.AuthenticationFailed(exc.message) from None
        return token.role.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class RefereeTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """Documents the referee token in the OpenAPI schema (``Authorization: Token <key>``)."""

    target_class = "tournament.auth.RefereeTokenAuthentication"
    name = "refereeToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "Referee token: `Token <key>` or `Bearer <key>` (192-bit key).",
        }
