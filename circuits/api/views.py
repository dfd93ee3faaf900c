"""Public JSON API of a circuit's standings (in the OpenAPI schema).

A conditional GET like the live API: the strong ETag is the circuit version (its settings and
its member tournaments' versions), ``If-None-Match`` with it answers 304 without building
anything, and the body is stored bytes built once per version. No authentication: only public
circuits are served; others are 404.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse, HttpResponseNotModified
from django.utils.cache import patch_cache_control
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.views import APIView

from circuits.api.serializers import CircuitStandingsOut
from circuits.selectors import circuit_etag, circuit_members, public_circuit, standings_bytes
from core.exceptions import NotFoundError

IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    OpenApiTypes.STR,
    OpenApiParameter.HEADER,
    description="The ETag of a previous response: 304 while no member tournament changed.",
)


class CircuitStandingsApi(APIView):
    """A public circuit's points-race standings, its member tournaments and its settings."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []

    @extend_schema(
        summary="Circuit standings (points race across its tournaments)",
        parameters=[IF_NONE_MATCH],
        responses={
            200: CircuitStandingsOut,
            304: OpenApiResponse(description="Unchanged since the ETag sent (no body)."),
            404: OpenApiResponse(description="No such public circuit."),
        },
        tags=["circuits"],
        operation_id="circuits_standings_retrieve",
    )
    def get(self, request: Request, slug: str) -> HttpResponse:
        circuit = public_circuit(slug=slug)
        if circuit is None:
            raise NotFoundError(f"No public circuit {slug!r}.", code="not_found")
        members = circuit_members(circuit_id=circuit.pk)
        etag = circuit_etag(circuit, members)
        strong = f'"c{etag}"'
        if strong in request.META.get("HTTP_IF_NONE_MATCH", ""):
            response: HttpResponse = HttpResponseNotModified()
        else:
            response = HttpResponse(
                standings_bytes(circuit, members, etag), content_type="application/json"
            )
        response["ETag"] = strong
        patch_cache_control(response, public=True, no_cache=True)
        return response
