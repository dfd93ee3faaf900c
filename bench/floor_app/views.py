"""The floor: the least a hand-recording endpoint can do, as a bare Django view.

Same server, middleware (sessions, CSRF, auth), caller resolution, database and workers as the
real endpoint, and the same database driver features (issue 19: the floor must not make more
round trips than the endpoint): statements prepared on first use and bound server-side
(``core.sql.prepared_cursor``), and three round trips to PostgreSQL per hand -- BEGIN, the lock
of the match row, and one statement that inserts the hand and updates the match with the
COMMIT pipelined behind it (``core.sql.execute_and_commit``), as the real hand store does.
Whatever the real endpoint adds on top (validation, folding the match with the engine,
idempotency records, snapshots, events) is what the bench's ratio measures.
"""

from __future__ import annotations

import json

from django.db import transaction
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_POST
from rest_framework.request import Request
from rest_framework.response import Response

from core.sql import execute_and_commit, prepared_cursor
from scoring.api.views import HandListApi, json_object
from tournament.context import principal_from_request

SCHEMA = """
CREATE TABLE IF NOT EXISTS bench_floor_match (
    id integer PRIMARY KEY,
    hands_count integer NOT NULL DEFAULT 0,
    version integer NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS bench_floor_hand (
    id bigserial PRIMARY KEY,
    match_id integer NOT NULL REFERENCES bench_floor_match (id),
    number integer NOT NULL,
    payload jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
"""


LOCK = "SELECT hands_count FROM bench_floor_match WHERE id = %s FOR NO KEY UPDATE"
# One statement: the insert and the update (a data-modifying CTE), the transaction's last.
STORE = """
WITH hand AS (
    INSERT INTO bench_floor_hand (match_id, number, payload) VALUES (%s, %s, %s)
    RETURNING number
)
UPDATE bench_floor_match SET hands_count = (SELECT number FROM hand), version = version + 1,
    updated_at = now()
WHERE id = %s
"""


@require_POST
def floor_hand(request: HttpRequest, match_id: int) -> JsonResponse:
    # The caller as the real endpoint resolves it: the referee credential the link's session
    # holds, re-checked (one query), or a signed-in account.
    if principal_from_request(request).is_anonymous:
        return JsonResponse({"error": {"code": "not_authenticated"}}, status=403)
    payload = json.loads(request.body or b"{}")
    with transaction.atomic(), prepared_cursor() as cursor:
        cursor.execute(LOCK, [match_id])
        row = cursor.fetchone()
        if row is None:
            return JsonResponse({"error": {"code": "not_found"}}, status=404)
        number = row[0] + 1
        execute_and_commit(cursor, STORE, [match_id, number, json.dumps(payload), match_id])
    return JsonResponse({"number": number}, status=201)


class FrameHandApi(HandListApi):
    """The frame: the real hand endpoint (``scoring.api.views.HandListApi``: its DRF view,
    authentication classes, permission, parser, exception handler and renderer) with its
    ``post`` reduced to reading the body and answering 201 -- no service, no database beyond
    the caller's resolution.

    The bench runs it once next to the floor, to split the hand endpoint's cost into the
    framework around it (this) and the service inside it (the rest): where a faster hand
    has to come from.
    """

    def post(self, request: Request, match_id: int) -> Response:
        body = json_object(request)
        key = request.headers.get("Idempotency-Key", "")
        return Response({"number": body.get("number"), "key": key}, status=201)
