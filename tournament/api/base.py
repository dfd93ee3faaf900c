"""The base of every API view: authentication, the tournament scope, pagination.

STYLE.md §7: every tournament-owned endpoint resolves its tournament ONCE through
:class:`TournamentScopedMixin` (the one tournament context, ``tournament.context``) and filters
its querysets by it; object lookups under a
tournament go through :meth:`TournamentScopedMixin.scoped_get`, so another tournament's ids
answer 404 (no IDOR). Writes are authorised by the services, which raise 403s.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, TypeVar

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Model, QuerySet
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import NotAuthenticated, ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import BaseSerializer
from rest_framework.views import APIView

from core.exceptions import NotFoundError
from dominoes.digits import parse_int
from tournament.api.permissions import ReadOnlyOrAuthenticated
from tournament.auth import RefereeSessionAuthentication, RefereeTokenAuthentication
from tournament.context import (
    PERMISSIONS,
    Action,
    Principal,
    Role,
    TournamentContext,
    context_for,
    principal_from_request,
    require,
    route_actions,
)
from tournament.models import Tournament

M = TypeVar("M", bound=Model)


PAGE_PARAM_DIGITS = 100


class ApiPagination(LimitOffsetPagination):
    """``?limit=&offset=`` with a bounded page: without ``max_limit`` a ``limit`` past
    PostgreSQL's bigint was a 500 (an ``offset`` past the row count never reaches the query)."""

    max_limit = 1000
    minimums = {"limit": 1, "offset": 0}

    def get_limit(self, request: Request) -> int | None:
        if self.limit_query_param not in request.query_params:
            return self.default_limit
        limit = self._integer(request, self.limit_query_param)
        return min(limit, self.max_limit) if self.max_limit else limit

    def get_offset(self, request: Request) -> int:
        if self.offset_query_param not in request.query_params:
            return 0
        return self._integer(request, self.offset_query_param)

    def _integer(self, request: Request, name: str) -> int:
        """A documented integer parameter that is not one is refused (400 naming it), not
        read as the default: the client would page wrongly without knowing. Past bigint is
        fine (a limit is capped, an offset past the rows is an empty page); past
        ``PAGE_PARAM_DIGITS`` digits it is refused (``int()`` raises past 4300)."""
        minimum = self.minimums[name]
        value = parse_int(request.query_params[name], max_digits=PAGE_PARAM_DIGITS)
        if value is None or value < minimum:
            raise ValidationError({name: [f"Must be an integer >= {minimum}."]})
        return value

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = list(super().get_schema_operation_parameters(view))
        for parameter in parameters:
            if parameter["name"] in self.minimums:
                parameter["schema"]["minimum"] = self.minimums[parameter["name"]]
        return parameters


class ApiView(APIView):
    """Token first: its ``WWW-Authenticate`` makes anonymous writes a 401, not a 403.

    Callers: a referee credential (``Authorization: Token``, or a session opened from a
    referee link) becomes a :class:`tournament.context.RefereeActor`, never a site account; a
    signed-in site account comes from Django's session (``POST /api/auth/login/``).

    A view whose GET answers through :meth:`paginated` sets ``pagination_class =
    ApiPagination``: drf-spectacular reads it to document the ``limit``/``offset`` parameters
    and the ``{count, next, previous, results}`` envelope (a plain APIView has none).
    """

    authentication_classes = [
        RefereeTokenAuthentication,
        SessionAuthentication,
        RefereeSessionAuthentication,
    ]
    permission_classes = [ReadOnlyOrAuthenticated]

    @property
    def principal(self) -> Principal:
        return principal_from_request(self.request)

    def paginated(
        self, request: Request, queryset: QuerySet[Any], serializer: type[BaseSerializer[Any]]
    ) -> Response:
        paginator = ApiPagination()
        page = paginator.paginate_queryset(queryset, request, view=self)
        data = serializer(page, many=True, context={"request": request}).data
        return paginator.get_paginated_response(data)

    def route_action(self, method: str) -> Action | None:
        """This route's action for ``method`` in the one route table (tournament.context)."""
        match = getattr(self.request, "resolver_match", None)
        actions = route_actions(match.view_name) if match is not None else None
        if not actions:
            return None
        return actions.get(method) or actions.get("*")


class TournamentScopedMixin(ApiView):
    """An API view under ``tournaments/<slug>/``: the ONE tournament context, resolved once per
    request (:func:`tournament.context.context_for`), and the ONE check (:func:`require`) of
    this route's action from the route table before the handler runs. A draft answers 404 to
    anyone who does not direct it."""

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        action = self.route_action(request.method or "GET")
        if action is not None:
            if self.principal.is_anonymous and Role.ANONYMOUS not in PERMISSIONS[action]:
                raise NotAuthenticated()
            require(self.context, action)

    @cached_property
    def context(self) -> TournamentContext:
        return context_for(self.request, slug=self.kwargs["slug"])

    @property
    def tournament(self) -> Tournament:
        return self.context.tournament

    @property
    def roles(self) -> frozenset[str]:
        return self.context.roles

    @property
    def actor(self) -> Any:
        return self.context.actor

    def scoped_get(self, queryset: QuerySet[M], pk: Any, *, field: str = "tournament") -> M:
        """``queryset.get(pk=pk)`` restricted to this tournament; 404 for anyone else's."""
        try:
            return queryset.filter(**{field: self.tournament}).get(pk=pk)
        except (ObjectDoesNotExist, ValueError, TypeError):
            raise NotFoundError(
                f"No {queryset.model._meta.verbose_name} {pk} in this tournament.",
                code="not_found",
            ) from None
