"""API permissions. Coarse gates only: the services make every object-level decision
(director of THIS tournament, referee of THIS match) and the views scope every list."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from rest_framework import exceptions
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request

from core.api.schema import private_read

H = TypeVar("H", bound=Callable[..., Any])


class ReadOnlyOrAuthenticated(BasePermission):
    """Anyone may read public data; nobody writes anonymously (401 with a token challenge)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated)


def require_tournament_director(view: Any) -> None:
    """For private reads (roles, credentials, action log, previews): the one check of the
    tournament context with ``VIEW_PRIVATE``. ``view`` is a ``TournamentScopedMixin``."""
    from tournament.context import Action, require

    if view.principal.is_anonymous:
        raise exceptions.NotAuthenticated()
    require(view.context, Action.VIEW_PRIVATE)


def director_read(handler: H) -> H:
    """Decorates the GET handler of a private read: :func:`require_tournament_director`
    first, and the schema documents its 401 and 403 (``core.api.schema.private_read``)."""

    @functools.wraps(handler)
    def guarded(view: Any, *args: Any, **kwargs: Any) -> Any:
        require_tournament_director(view)
        return handler(view, *args, **kwargs)

    return private_read(guarded)  # type: ignore[return-value]
