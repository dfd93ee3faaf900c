"""API permissions. Coarse gates only: the services make every object-level decision
(director of THIS tournament, referee of THIS match) and the views scope every list."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from core.exceptions import PermissionDeniedError


class ReadOnlyOrAuthenticated(BasePermission):
    """Anyone may read public data; nobody writes anonymously (401 with a token challenge)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated)


def require_tournament_director(view: Any) -> None:
    """For private reads (roles, tokens, action log): the caller directs the view's tournament.

    ``view`` is a :class:`tournament.api.base.TournamentScopedMixin`.
    """
    if not view.request.user.is_authenticated:
        raise exceptions.NotAuthenticated()
    if "director" not in view.roles:
        raise PermissionDeniedError(
            "Only a director of this tournament may see this.", code="not_director"
        )
