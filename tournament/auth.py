"""Referee credentials in the API, and the client address used to rate-limit wrong keys.

A referee credential is a CAPABILITY, never a login (docs/security.md): both authentication
classes here put a :class:`tournament.context.RefereeActor` in ``request.user`` - the
tournament-scoped referee identity's id and tournament, no site account.

* ``Authorization: Token <prefix>.<secret>`` (or ``Bearer``): :class:`RefereeTokenAuthentication`.
* A browser session opened from the private link ``/ref/#<key>`` stores only the credential's
  id; :class:`RefereeSessionAuthentication` re-checks it on every request (revoked, tournament
  not running -> refused at once) and enforces CSRF like DRF's session authentication.

The client address comes from django-ipware with ``TRUSTED_PROXY_COUNT`` proxies in front:
0 (the default) ignores ``X-Forwarded-For`` entirely, so talking to the app directly cannot
spoof it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from ipware import get_client_ip
from rest_framework import exceptions
from rest_framework.authentication import (
    BaseAuthentication,
    SessionAuthentication,
    get_authorization_header,
)
from rest_framework.request import Request

from tournament.context import RefereeActor, session_referee
from tournament.models import RefereeToken
from tournament.services import (
    RefereeTokenInvalidError,
    RefereeTokenThrottledError,
    referee_token_resolve,
)

KEYWORDS = (b"token", b"bearer")


def client_ip(request: HttpRequest | Request) -> str:
    """The client's address: ``REMOTE_ADDR`` unless ``TRUSTED_PROXY_COUNT`` > 0, then the
    address the outermost trusted proxy saw (django-ipware, right-most hops)."""
    django_request = getattr(request, "_request", request)
    remote = str(django_request.META.get("REMOTE_ADDR") or "0.0.0.0")  # noqa: S104 - a value
    count = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0) or 0)
    if count <= 0:
        return remote
    try:
        ip, _routable = get_client_ip(
            django_request,
            proxy_order="right-most",
            proxy_count=count,
            request_header_order=["HTTP_X_FORWARDED_FOR", "X_FORWARDED_FOR"],
        )
    except ValueError:
        return remote
    return str(ip or remote)


class RefereeTokenAuthentication(BaseAuthentication):
    """``Authorization: Token <key>`` / ``Bearer <key>`` -> a :class:`RefereeActor`."""

    keyword = "Token"
    rate_limited = True  # wrong keys, per client address; the schema says 429

    def authenticate(self, request: Request) -> tuple[RefereeActor, RefereeToken] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() not in KEYWORDS:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Malformed Authorization header.")
        # Headers are Latin-1 (WSGI); the service refuses any key not shaped like an issued
        # one before a lookup and counts it as a wrong key, as it counts a wrong key.
        key = parts[1].decode("latin-1")
        try:
            token = referee_token_resolve(key=key, client_ip=client_ip(request))
        except RefereeTokenThrottledError as exc:
            raise exceptions.Throttled(detail=exc.message) from None
        except RefereeTokenInvalidError as exc:
            raise exceptions.AuthenticationFailed(exc.message) from None
        return RefereeActor.of(token), token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword


class RefereeSessionAuthentication(SessionAuthentication):
    """A session opened from a referee link: the credential id, re-checked now; CSRF applies."""

    def authenticate(self, request: Request) -> tuple[RefereeActor, None] | None:
        actor = session_referee(request._request)
        if actor is None:
            return None
        self.enforce_csrf(request)
        return actor, None


class RefereeTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """Documents the referee credential in the OpenAPI schema."""

    target_class = "tournament.auth.RefereeTokenAuthentication"
    name = "refereeToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": (
                "Referee credential: `Token <prefix>.<secret>` (or `Bearer`). A capability: "
                "read and record/undo hands on the matches assigned to that referee, in one "
                "tournament, while it is running. Wrong keys are limited per client address "
                "(429); a valid key is never refused by that limit."
            ),
        }


class RefereeSessionScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "tournament.auth.RefereeSessionAuthentication"
    name = "refereeSession"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": settings.SESSION_COOKIE_NAME,
            "description": (
                "A session opened from a referee link (POST /ref/ with the key): holds only the "
                "credential id, re-checked on every request. Writes need the X-CSRFToken header."
            ),
        }
