"""The base of every API view: authentication, the tournament scope, pagination.

STYLE.md §7: every tournament-owned endpoint resolves its tournament ONCE through
:class:`TournamentScopedMixin` and filters its querysets by it; object lookups under a
tournament go through :meth:`TournamentScopedMixin.scoped_get`, so another tournament's ids
answer 404 (no IDOR). Writes are authorised by the services, which raise 403s.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, TypeVar

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Model, QuerySet
from rest_framework.authentication import SessionAuthentication
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from core.exceptions import NotFoundError
from tournament.api.permissions import ReadOnlyOrAuthenticated
from tournament.auth import RefereeTokenAuthentication
from tournament.models import Tournament
from tournament.selectors import tournament_get, user_roles

M = TypeVar("M", bound=Model)


class ApiPagination(LimitOffsetPagination):
    """``?limit=&offset=`` with a bounded page: without ``max_limit`` a ``limit`` past
    PostgreSQL's bigint was a 500 (an ``offset`` past the row count never reaches the query)."""

    max_limit = 1000


class ApiView(APIView):
    """Token first: its ``WWW-Authenticate`` makes anonymous writes a 401, not a 403.

    A view whose GET answers through :meth:`paginated` sets ``pagination_class =
    ApiPagination``: drf-spectacular reads it to document the ``limit``/``offset`` parameters
    and the ``{count, next, previous, results}`` envelope (a plain APIView has none).
    """

    authentication_classes = [RefereeTokenAuthentication, SessionAuthentication]
    permission_classes = [ReadOnlyOrAuthenticated]

    def paginated(
        self, request: Request, queryset: QuerySet[Any], serializer: type[BaseSerializer[Any]]
    ) -> Response:
        paginator = ApiPagination()
        page = paginator.paginate_queryset(queryset, request, view=self)
        data = serializer(page, many=True, context={"request": request}).data
        return paginator.get_paginated_response(data)


class TournamentScopedMixin(ApiView):
    """An API view under ``tournaments/<slug>/``: resolves the tournament once per request."""

    @cached_property
    def tournament(self) -> Tournament:
        return tournament_get(slug=self.kwargs["slug"])

    @cached_property
    def roles(self) -> set[str]:
        if getattr(self.request.user, "is_superuser", False):
            return {"director"}
        return user_roles(user=self.request.user, tournament_id=self.tournament.pk)

    def scoped_get(self, queryset: QuerySet[M], pk: Any, *, field: str = "tournament") -> M:
        """``queryset.get(pk=pk)`` restricted to this tournament; 404 for anyone else's."""
        try:
            return queryset.filter(**{field: self.tournament}).get(pk=pk)
        except (ObjectDoesNotExist, ValueError, TypeError):
            raise NotFoundError(
                f"No {queryset.model._meta.verbose_name} {pk} in this tournament.",
                code="not_found",
            ) from None
