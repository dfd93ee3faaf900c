"""Sign-in for API clients (session login and logout, CSRF) and who am I (``/api/me/``)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth import login as django_login
from django.contrib.auth import logout as django_logout
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_protect, ensure_csrf_cookie
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.schema import error_response
from core.exceptions import ApplicationError
from tournament import selectors
from tournament.api import serializers as s
from tournament.api.base import ApiView
from tournament.context import (
    PERMISSIONS,
    SESSION_CREDENTIAL_KEY,
    STATUS_GATES,
    Principal,
    Role,
    roles_for_action,
)
from tournament.models import Tournament

CSRF_NOTE = (
    "Session login for API clients. CSRF: first `GET /api/auth/login/` (sets the `csrftoken` "
    "cookie), then POST with the header `X-CSRFToken: <that cookie>` and the cookie; every "
    "later unsafe request of the session sends the same header. The session cookie is "
    "HttpOnly. Wrong passwords are limited per client address."
)


@method_decorator(ensure_csrf_cookie, name="get")
@method_decorator(csrf_protect, name="post")
class SessionLoginApi(ApiView):
    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []

    @extend_schema(responses={204: None}, tags=["auth"], description=CSRF_NOTE)
    def get(self, request: Request) -> Response:
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        request=s.SessionLoginInput,
        responses={
            200: s.MeOutput,
            400: error_response(400, "Wrong username or password"),
            403: error_response(403, "CSRF check failed: no csrftoken cookie or X-CSRFToken"),
            429: error_response(429, "Too many wrong passwords: wait `Retry-After` seconds"),
        },
        parameters=[
            OpenApiParameter(
                "Retry-After",
                int,
                location=OpenApiParameter.HEADER,
                response=[429],
                description="Seconds until this username may sign in again from here",
            )
        ],
        tags=["auth"],
        description=CSRF_NOTE,
    )
    def post(self, request: Request) -> Response:
        data = s.SessionLoginInput(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(
            request._request,
            username=data.validated_data["username"],
            password=data.validated_data["password"],
        )
        if user is None:
            raise ApplicationError(
                "Wrong username or password.",
                code="bad_credentials",
                fields={"password": ["Wrong username or password."]},
            )
        django_login(request._request, user)  # rotates the session key; drops a link's credential
        request._request.session.pop(SESSION_CREDENTIAL_KEY, None)
        return Response(me_payload(request._request, Principal(user=user)))


@method_decorator(csrf_protect, name="post")
class SessionLogoutApi(ApiView):
    authentication_classes: list[Any] = []
    permission_classes: list[Any] = []

    @extend_schema(request=None, responses={204: None}, tags=["auth"], description=CSRF_NOTE)
    def post(self, request: Request) -> Response:
        django_logout(request._request)  # flushes the session, a link's credential included
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(ApiView):
    permission_classes: list[Any] = []

    @extend_schema(
        responses=s.MeOutput,
        tags=["auth"],
        description=(
            "Who am I and where may I act: a site account (its tournaments, roles and actions) "
            "or a referee credential (its one tournament, its assigned matches, its actions)."
        ),
    )
    def get(self, request: Request) -> Response:
        return Response(me_payload(request._request, self.principal))


def me_payload(request: Any, principal: Principal) -> dict[str, Any]:
    def actions(tournament: Tournament, roles: frozenset[Role]) -> list[str]:
        # The staff column counts only with each action's Django permission (as require does).
        return sorted(
            a.value
            for a, allowed in PERMISSIONS.items()
            if roles_for_action(principal.user, roles, a) & allowed
            and tournament.status in STATUS_GATES[a]
        )

    if principal.referee is not None:
        ref = principal.referee
        tournament = Tournament.objects.get(pk=ref.tournament_id)
        return {
            "kind": "referee",
            "user": None,
            "referee": {
                "credential": ref.credential_id,
                "identity": ref.pk,
                "matches": selectors.referee_match_ids(
                    tournament_id=ref.tournament_id, user_id=ref.pk
                ),
            },
            "tournaments": [
                {
                    "slug": tournament.slug,
                    "status": tournament.status,
                    "roles": [Role.REFEREE.value],
                    "actions": actions(tournament, frozenset({Role.REFEREE})),
                }
            ],
        }
    if principal.user is None:
        return {"kind": "anonymous", "user": None, "referee": None, "tournaments": []}
    user = principal.user
    directed = selectors.tournament_list(user=user).filter(
        pk__in=selectors.directed_tournament_ids(user=user)
    )
    return {
        "kind": "user",
        "user": {"id": user.pk, "username": user.get_username(), "staff": bool(user.is_staff)},
        "referee": None,
        "tournaments": [
            {
                "slug": t.slug,
                "status": t.status,
                "roles": sorted(r.value for r in principal.roles_in(t.pk)),
                "actions": actions(t, principal.roles_in(t.pk)),
            }
            for t in directed[:200]
        ],
    }
