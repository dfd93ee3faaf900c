"""Public read-only JSON API of the live data (in the OpenAPI schema).

Every endpoint is a conditional GET: the ETag is the tournament version, ``If-None-Match`` with
the current one answers 304 without building anything, and the body is stored bytes built once
per version (:mod:`live.presenters.documents`), gzipped once too for clients that accept it.
``Cache-Control: public, no-cache`` lets a proxy keep the body and revalidate it cheaply. No
authentication: the data is public; drafts are 404.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from django.http import Http404, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.serializers import Serializer
from rest_framework.views import APIView

from core.api.schema import error_response
from core.api.versioning import DEFAULT_VERSION, adapt, version_of
from live.api import serializers as s
from live.http import accepts_gzip, json_bytes_response, live_conditional, request_tournament
from live.presenters.documents import NOT_FOUND, json_document, json_document_gzip

IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The ETag of a previous response: 304 while the tournament is unchanged.",
)
ETAG = OpenApiParameter(
    "ETag",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    response=[200, 304],
    description="The tournament's version: send it back as `If-None-Match` to revalidate.",
)
NOT_MODIFIED = OpenApiResponse(description="Unchanged since the ETag sent (no body).")
NOT_FOUND_RESPONSE = error_response(404, "No such public tournament (or entry/match).")


class _LiveAPIView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []
    kind = ""

    def extra(self, **kwargs: Any) -> tuple[int, ...]:
        return ()

    def get(self, request: Request, **kwargs: Any) -> HttpResponse:
        t = request_tournament(request)
        version = version_of(request)
        if version != DEFAULT_VERSION:
            # The stored bytes are v1 JSON (built once per tournament version): a later API
            # version is written from them per request, uncompressed (core.api.versioning).
            body = json_document(self.kind, t, *self.extra(**kwargs))
            if body == NOT_FOUND:
                raise Http404
            data = adapt(json.loads(body), version)
            return json_bytes_response(json.dumps(data, separators=(",", ":")).encode())
        gzipped = accepts_gzip(request)
        body = (json_document_gzip if gzipped else json_document)(
            self.kind, t, *self.extra(**kwargs)
        )
        if body == NOT_FOUND:
            raise Http404
        return json_bytes_response(body, gzipped=gzipped)


F = TypeVar("F", bound=Callable[..., Any])


def _schema(serializer: type[Serializer[Any]], summary: str) -> Callable[[F], F]:
    return extend_schema(
        summary=summary,
        parameters=[IF_NONE_MATCH, ETAG],
        responses={200: serializer, 304: NOT_MODIFIED, 404: NOT_FOUND_RESPONSE},
        tags=["live"],
    )


class SummaryAPIView(_LiveAPIView):
    kind = "summary"

    @_schema(s.SummarySerializer, "Tournament status, stages, current round and its clock")
    def get(self, request: Request, **kwargs: Any) -> HttpResponse:
        return super().get(request, **kwargs)


class TablesAPIView(_LiveAPIView):
    kind = "tables"

    @_schema(s.LiveTablesSerializer, "Every table of the current round, live")
    def get(self, request: Request, **kwargs: Any) -> HttpResponse:
        return super().get(request, **kwargs)


class StandingsAPIView(_LiveAPIView):
    kind = "standings"

    @_schema(s.StandingsSerializer, "Standings of every stage in T5 order, cut line, outlook")
    def get(self, request: Request, **kwargs: Any) -> HttpResponse:
        return super().get(request, **kwargs)


class BracketAPIView(_LiveAPIView):
    kind = "bracket"

    @_schema(s.BracketSerializer, "Stages, rounds, tables, who advanced, final placings")
    def get(self, request: Request, **kwargs: Any) -> HttpResponse:
        return super().get(request, **kwargs)


class PlayerAPIView(_LiveAPIView):
    kind = "player"

    def extra(self, **kwargs: Any) -> tuple[int, ...]:
        return (int(kwargs["entry_id"]),)

    @_schema(s.PlayerResultsSerializer, "A player's matches and hands in this tournament")
    def get(self, request: Request, **kwargs: Any) -> HttpResponse:
        return super().get(request, **kwargs)


class MatchAPIView(_LiveAPIView):
    kind = "match"

    def extra(self, **kwargs: Any) -> tuple[int, ...]:
        return (int(kwargs["match_id"]),)

    @_schema(s.MatchDetailSerializer, "One table, live, with its hands")
    def get(self, request: Request, **kwargs: Any) -> HttpResponse:
        return super().get(request, **kwargs)


def _view(cls: type[_LiveAPIView]) -> Any:
    return live_conditional(html=False)(cls.as_view())


summary = _view(SummaryAPIView)
tables = _view(TablesAPIView)
standings = _view(StandingsAPIView)
bracket = _view(BracketAPIView)
player = _view(PlayerAPIView)
match = _view(MatchAPIView)
