"""The floor: the least a hand-recording endpoint can do, as a bare Django view.

Same server, middleware (sessions, CSRF, auth), caller resolution, database and workers as the
real endpoint; in one transaction it locks a match row, inserts one row and updates the match.
Whatever the real endpoint adds on top (validation, folding the match with the engine,
idempotency records, snapshots, events) is what the bench's ratio measures.
"""

from __future__ import annotations

import json

from django.db import connection, transaction
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_POST

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


@require_POST
def floor_hand(request: HttpRequest, match_id: int) -> JsonResponse:
    # The caller as the real endpoint resolves it: the referee credential the link's session
    # holds, re-checked (one query), or a signed-in account.
    if principal_from_request(request).is_anonymous:
        return JsonResponse({"error": {"code": "not_authenticated"}}, status=403)
    payload = json.loads(request.body or b"{}")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "SELECT hands_count FROM bench_floor_match WHERE id = %s FOR NO KEY UPDATE",
            [match_id],
        )
        row = cursor.fetchone()
        if row is None:
            return JsonResponse({"error": {"code": "not_found"}}, status=404)
        number = row[0] + 1
        cursor.execute(
            "INSERT INTO bench_floor_hand (match_id, number, payload) VALUES (%s, %s, %s)",
            [match_id, number, json.dumps(payload)],
        )
        cursor.execute(
            "UPDATE bench_floor_match SET hands_count = %s, version = version + 1,"
            " updated_at = now() WHERE id = %s",
            [number, match_id],
        )
    return JsonResponse({"number": number}, status=201)
