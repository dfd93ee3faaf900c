"""The webhooks API: the tournament's receivers and their delivery log, for its directors
(``/api/tournaments/<slug>/webhooks/``), the same services as the director's webhooks page
(``notify.services``: URL checks, limits, the action log, a secret shown once)."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from core.api.schema import error_response
from notify import selectors, services
from notify.api import serializers as s
from notify.models import WebhookDelivery, WebhookEndpoint
from tournament.api.base import ApiPagination, TournamentScopedMixin
from tournament.api.permissions import director_read

TAGS = ["webhooks"]
MAX_KEY = 64


class _WebhookView(TournamentScopedMixin):
    def endpoint(self, endpoint_id: int) -> WebhookEndpoint:
        return self.scoped_get(WebhookEndpoint.objects.all(), endpoint_id)


class WebhookListApi(_WebhookView):
    pagination_class = ApiPagination

    @extend_schema(responses=s.WebhookEndpointOutput(many=True), tags=TAGS)
    @director_read
    def get(self, request: Request, slug: str) -> Response:
        return self.paginated(
            request,
            selectors.webhook_endpoint_list(tournament=self.tournament),
            s.WebhookEndpointOutput,
        )

    @extend_schema(
        request=s.WebhookCreateInput,
        responses={201: s.WebhookEndpointOutput},
        tags=TAGS,
        description=(
            "Add a receiver. The answer carries its signing `secret` once: store it now "
            "(docs/webhooks.md shows how a receiver checks a signature)."
        ),
    )
    def post(self, request: Request, slug: str) -> Response:
        data = s.WebhookCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        endpoint, secret = services.endpoint_create(
            tournament=self.tournament, actor=request.user, **data.validated_data
        )
        body = s.WebhookEndpointOutput(endpoint, context={"secrets": {endpoint.pk: secret}}).data
        return Response(body, status=status.HTTP_201_CREATED, headers={"Cache-Control": "no-store"})


class WebhookDetailApi(_WebhookView):
    @extend_schema(responses=s.WebhookEndpointOutput, tags=TAGS)
    @director_read
    def get(self, request: Request, slug: str, endpoint_id: int) -> Response:
        return Response(s.WebhookEndpointOutput(self.endpoint(endpoint_id)).data)


class WebhookDisableApi(_WebhookView):
    @extend_schema(
        request=None,
        responses=s.WebhookEndpointOutput,
        tags=TAGS,
        description="Stop sending to the receiver; its pending deliveries are cancelled "
        "(kept in the log). Disabling twice answers the same.",
    )
    def post(self, request: Request, slug: str, endpoint_id: int) -> Response:
        endpoint = services.endpoint_disable(
            tournament=self.tournament, actor=request.user, endpoint_id=endpoint_id
        )
        return Response(s.WebhookEndpointOutput(endpoint).data)


class WebhookPingApi(_WebhookView):
    @extend_schema(
        request=None,
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                str,
                OpenApiParameter.HEADER,
                required=False,
                description="Names this request: sent again, it sends no second ping and "
                "answers 200 with the first one's delivery.",
            )
        ],
        responses={
            202: s.WebhookDeliveryOutput,
            200: s.WebhookDeliveryOutput,
            409: error_response(409, "The receiver is disabled: nothing is sent to it."),
        },
        tags=TAGS,
        description="Send a signed test event (`ping`) to the receiver through the outbox, "
        "retried and logged like any delivery.",
    )
    def post(self, request: Request, slug: str, endpoint_id: int) -> Response:
        key = (request.headers.get("Idempotency-Key") or "").strip()
        if len(key) > MAX_KEY:
            raise ValidationError({"Idempotency-Key": [f"At most {MAX_KEY} characters."]})
        delivery = services.endpoint_ping(
            tournament=self.tournament,
            actor=request.user,
            endpoint_id=endpoint_id,
            key=key or uuid.uuid4().hex,
        )
        if delivery is not None:
            return Response(s.WebhookDeliveryOutput(delivery).data, status=status.HTTP_202_ACCEPTED)
        repeated = selectors.webhook_ping_delivery(
            endpoint=self.endpoint(endpoint_id), event_key=services.ping_event_key(key)
        )
        return Response(s.WebhookDeliveryOutput(repeated).data)


class WebhookDeliveryListApi(_WebhookView):
    pagination_class = ApiPagination

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "status",
                str,
                enum=WebhookDelivery.Status.values,
                required=False,
                description="Only the deliveries in this state.",
            )
        ],
        responses=s.WebhookDeliveryOutput(many=True),
        tags=TAGS,
        description="The receiver's deliveries, newest first.",
    )
    @director_read
    def get(self, request: Request, slug: str, endpoint_id: int) -> Response:
        wanted = request.query_params.get("status")
        if wanted is not None and wanted not in WebhookDelivery.Status.values:
            raise ValidationError(
                {"status": [f"One of: {', '.join(WebhookDelivery.Status.values)}."]}
            )
        deliveries = selectors.webhook_delivery_list(
            tournament=self.tournament, endpoint_id=self.endpoint(endpoint_id).pk, status=wanted
        )
        return self.paginated(request, deliveries, s.WebhookDeliveryOutput)
