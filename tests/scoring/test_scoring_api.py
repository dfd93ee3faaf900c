"""The scoring API: recording hands, bad input, idempotency, query counts, schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from scoring.models import Hand, Match
from tests.factories import (
    TournamentFactory,
    director_of,
    match_in_progress,
    referee_of,
    scheduled_match,
)
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def win(poser: int, winner: int, tile: str = "5-4", **extra: Any) -> dict[str, Any]:
    return {"poser": poser, "pose_tile": tile, "end": "domino", "winner": winner, **extra}


@pytest.fixture
def tournament() -> Tournament:
    return TournamentFactory()


@pytest.fixture
def referee(tournament: Tournament) -> Any:
    return referee_of(tournament)


@pytest.fixture
def match(tournament: Tournament, referee: Any) -> Match:
    return match_in_progress(tournament, referee=referee)


@pytest.fixture
def api(referee: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(referee)
    return client


def post_hand(api: APIClient, match: Match, body: Any, **headers: str) -> Any:
    return api.post(
        f"/api/matches/{match.pk}/hands/",
        data=json.dumps(body),
        content_type="application/json",
        headers=headers,
    )


def test_record_a_hand_returns_the_hand_and_the_new_state(api: APIClient, match: Match) -> None:
    r = post_hand(api, match, {"number": 1, **win(3, 1, "6-6")})
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["hand"]["number"] == 1
    assert body["hand"]["winner"] == 1
    assert body["hand"]["scores_after"] == [0, 1, 0, 0]
    assert body["match"]["scores"] == [0, 1, 0, 0]
    assert body["match"]["next_hand"]["poser"] == 1
    assert body["match"]["next_hand"]["forced"] is False
    assert body["match"]["version"] == 2
    assert body["tournament_version"] >= 1
    assert "client_ip" not in body["hand"]


def test_match_detail_describes_the_next_hand_and_marks_love(api: APIClient, match: Match) -> None:
    post_hand(api, match, {"number": 1, **win(3, 1, "6-6")})
    anon = APIClient()
    r = anon.get(f"/api/matches/{match.pk}/")
    assert r.status_code == 200
    body = r.json()
    assert body["next_hand"] == {
        "number": 2,
        "poser": 1,
        "forced": False,
        "forced_tile": None,
        "value": 1,
        "is_replay": False,
        "is_playoff": False,
        "tie_run": 0,
        "leader": None,
        "reason": body["next_hand"]["reason"],
        "rule": "R7",
    }
    assert [s["love"] for s in body["seats"]] == [True, False, True, True]
    assert [s["score"] for s in body["seats"]] == [0, 1, 0, 0]
    assert body["ruleset"]["preset"] == "wsod"
    assert all(s["name"] for s in body["seats"])


BAD_INPUTS = [
    # (name, body, field, code, rule)
    ("unknown seat", {"number": 1, **win(7, 0, "6-6")}, "poser", "unknown_seat", "§9"),
    ("unknown winner", {"number": 1, **win(0, 9, "6-6")}, "winner", "unknown_seat", "§9"),
    (
        "forced pose not 6-6",
        {"number": 1, **win(0, 1, "5-5")},
        "pose_tile",
        "wrong_pose_tile",
        "R5",
    ),
    (
        "count out of range",
        {"number": 1, "poser": 0, "pose_tile": "6-6", "end": "block", "counts": [10, 999, 3, 4]},
        "counts[1]",
        "count_out_of_range",
        "R20",
    ),
    (
        "negative count",
        {"number": 1, "poser": 0, "pose_tile": "6-6", "end": "block", "counts": [10, -1, 3, 4]},
        "counts[1]",
        "negative_count",
        "R20",
    ),
    (
        "wrong number of counts",
        {"number": 1, "poser": 0, "pose_tile": "6-6", "end": "block", "counts": [1, 2]},
        "counts",
        "wrong_count_length",
        "§9",
    ),
    (
        "block names a winner",
        {
            "number": 1,
            "poser": 0,
            "pose_tile": "6-6",
            "end": "block",
            "winner": 1,
            "counts": [1, 2, 3, 4],
        },
        "winner",
        "block_names_winner",
        "R20",
    ),
    (
        "llave claim without llave",
        {"number": 1, **win(0, 1, "6-6", llave=True)},
        "llave",
        "llave_not_allowed",
        "R24",
    ),
    ("not a tile", {"number": 1, **win(0, 1, "7-7")}, "pose_tile", "invalid_tile", "R1"),
    # "\u00b2" passes str.isdigit() but not int(): it was a 500.
    (
        "a tile in other digits",
        {"number": 1, **win(0, 1, "\u00b2\u00b2")},
        "pose_tile",
        "invalid_tile",
        "R1",
    ),
    (
        "unknown field",
        {"number": 1, **win(0, 1, "6-6"), "colour": "red"},
        "colour",
        "unknown_field",
        "§9",
    ),
    ("missing end", {"number": 1, "poser": 0, "pose_tile": "6-6"}, "end", "missing_field", "§9"),
    ("missing number", win(0, 1, "6-6"), "number", "missing_field", "§9"),
    ("number not int", {"number": "one", **win(0, 1, "6-6")}, "number", "malformed", "§9"),
    ("body is a list", [1, 2], "non_field_errors", "malformed", "§9"),
    (
        "sporting in tournament play",
        {"number": 1, **win(0, 1, "3-2", sporting=True)},
        "sporting",
        "sporting_not_allowed",
        "R11",
    ),
]


@pytest.mark.parametrize(
    ("body", "field", "code", "rule"),
    [pytest.param(b, f, c, r, id=name) for name, b, f, c, r in BAD_INPUTS],
)
def test_bad_input_is_a_400_naming_field_and_rule_and_stores_nothing(
    api: APIClient, match: Match, body: Any, field: str, code: str, rule: str
) -> None:
    version = match.version
    r = post_hand(api, match, body)
    assert r.status_code == 400, r.content
    error = r.json()["error"]
    assert error["code"] == code
    assert error["rule"] == rule
    assert field in error["fields"], error
    assert error["message"]
    assert not Hand.objects.filter(match=match).exists()
    match.refresh_from_db()
    assert match.version == version


def test_wrong_poser_after_a_decided_hand_names_r7(api: APIClient, match: Match) -> None:
    assert post_hand(api, match, {"number": 1, **win(2, 0, "6-6")}).status_code == 201
    r = post_hand(api, match, {"number": 2, **win(1, 0)})
    assert r.status_code == 400
    error = r.json()["error"]
    assert (error["code"], error["rule"]) == ("wrong_poser", "R7")
    assert "poser" in error["fields"]
    assert Hand.objects.filter(match=match).count() == 1


def test_a_hand_after_the_match_ended_is_refused_with_r33(api: APIClient, match: Match) -> None:
    assert post_hand(api, match, {"number": 1, **win(2, 0, "6-6")}).status_code == 201
    for n in range(2, 7):
        assert post_hand(api, match, {"number": n, **win(0, 0)}).status_code == 201
    r = post_hand(api, match, {"number": 7, **win(0, 0)})
    assert r.status_code == 400
    error = r.json()["error"]
    assert (error["code"], error["rule"]) == ("match_over", "R33")
    assert "number" in error["fields"]
    assert Hand.objects.filter(match=match).count() == 6


def test_malformed_json_is_a_400(api: APIClient, match: Match) -> None:
    r = api.post(
        f"/api/matches/{match.pk}/hands/", data="{not json", content_type="application/json"
    )
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "parse_error"
    assert not Hand.objects.filter(match=match).exists()


def test_stale_number_is_a_409_with_the_state(api: APIClient, match: Match) -> None:
    post_hand(api, match, {"number": 1, **win(2, 0, "6-6")})
    r = post_hand(api, match, {"number": 1, **win(2, 0, "6-6")})
    assert r.status_code == 409
    error = r.json()["error"]
    assert error["code"] == "stale_hand_number"
    assert error["match"]["hands_count"] == 1
    assert error["match"]["scores"] == [1, 0, 0, 0]


def test_idempotency_key_replays_the_original_response(api: APIClient, match: Match) -> None:
    body = {"number": 1, **win(2, 0, "6-6")}
    first = post_hand(api, match, body, **{"Idempotency-Key": "abc-1"})
    again = post_hand(api, match, body, **{"Idempotency-Key": "abc-1"})
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Hand.objects.filter(match=match).count() == 1
    other = post_hand(api, match, {"number": 1, **win(2, 1, "6-6")}, **{"Idempotency-Key": "abc-1"})
    assert other.status_code == 422
    assert other.json()["error"]["code"] == "idempotency_key_reused"
    assert Hand.objects.filter(idempotency_key="abc-1").count() == 1


def test_stored_response_and_rows_equal_what_the_referee_was_told(
    api: APIClient, match: Match
) -> None:
    """On PostgreSQL the hand (with its stored answer), results and tournament version are
    one statement, the hand taking the bumped version from it: all must agree with the
    answer, and the stored answer completed with the row's id and version is that answer."""
    first = post_hand(api, match, {"number": 1, **win(3, 1, "6-6")}, **{"Idempotency-Key": "k1"})
    second = post_hand(api, match, {"number": 2, **win(1, 1)}, **{"Idempotency-Key": "k2"})
    assert first.status_code == second.status_code == 201
    for response, key in ((first, "k1"), (second, "k2")):
        body = response.json()
        hand = Hand.objects.get(idempotency_key=key)
        assert hand.pk == body["hand"]["id"]
        assert (hand.number, hand.match_id) == (body["hand"]["number"], match.pk)
        assert hand.tournament_version == body["tournament_version"]
        assert hand.idempotent_response == {
            **body,
            "hand": {**body["hand"], "id": None},
            "tournament_version": None,
        }
        assert len(hand.idempotency_fingerprint) == 64
        listed = api.get(  # signed in: anonymous callers see no user ids
            f"/api/matches/{match.pk}/hands/"
        ).json()["results"]
        # the list also says which role recorded each hand (RecordedHandRead)
        roles = {"recorded_by_role": "referee", "voided_by_role": None}
        assert [h for h in listed if h["id"] == hand.pk] == [{**body["hand"], **roles}]
    assert second.json()["tournament_version"] == first.json()["tournament_version"] + 1
    match.refresh_from_db()
    match.tournament.refresh_from_db()
    assert match.tournament.version == second.json()["tournament_version"]
    assert second.json()["match"]["version"] == match.version
    assert second.json()["match"]["scores"] == match.scores == [0, 2, 0, 0]
    assert list(match.seats.order_by("seat").values_list("points", flat=True)) == [0, 2, 0, 0]


def _is_hand_store(sql: str) -> bool:
    """The one statement that stores a hand (scoring.services.hand_store.pipelined_statement)."""
    return sql.startswith("WITH t(version) AS (UPDATE") and 'INSERT INTO "scoring_hand"' in sql


@pytest.mark.postgres
def test_recording_statements_stay_in_psycopgs_statement_cache(
    api: APIClient, match: Match
) -> None:
    """psycopg re-parses a statement's text on every execution unless it has at most 4,096
    characters and 50 parameters: every statement of the hot path must fit, including the
    one that finishes a match (more columns) and a retry's replay."""
    import psycopg._queries
    from django.db import connection

    from scoring.engine import Ruleset
    from scoring.engine.simulate import simulate_match

    # psycopg's own limits (3.3: 4,096 and 50); a private module, so read with fallbacks.
    max_length = getattr(psycopg._queries, "MAX_CACHED_STATEMENT_LENGTH", 4096)
    max_params = getattr(psycopg._queries, "MAX_CACHED_STATEMENT_PARAMS", 50)

    seen: list[tuple[str, int]] = []

    def spy(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append((sql, len(params or ())))
        return execute(sql, params, many, context)

    sim = simulate_match(Ruleset.from_json(match.ruleset), 4, 11)
    with connection.execute_wrapper(spy):
        for number, record in enumerate(sim.records, start=1):
            body = {"number": number, **record.to_dict()}
            body.pop("sporting", None)
            r = post_hand(api, match, body, **{"Idempotency-Key": f"s{number}"})
            assert r.status_code == 201, r.content
        again = post_hand(api, match, body, **{"Idempotency-Key": f"s{number}"})
    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert match.scores == list(sim.scored[-1].scores_after)
    statements = {sql for sql, _ in seen if not sql.startswith(("SAVEPOINT", "RELEASE"))}
    assert any(_is_hand_store(sql) for sql in statements)
    for sql, n_params in seen:
        assert len(sql) <= max_length, (len(sql), sql[:200])
        assert n_params <= max_params, (n_params, sql[:200])


def _prepared_statements() -> dict[str, int]:
    """This connection's prepared statements: text -> executions (custom + generic plans)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements")
        return dict(cursor.fetchall())


@pytest.mark.postgres
def test_hot_statements_are_prepared_once_per_connection(api: APIClient, match: Match) -> None:
    """The lock and the store of a hand are PostgreSQL prepared statements (core.sql
    prepared_cursor): later hands execute them without parsing or planning them again."""
    from scoring.services import _lock_for_recording_sql

    before = _prepared_statements()
    bodies = _simulated(match, 3)[:4]
    for body in bodies:
        r = post_hand(api, match, body, **{"Idempotency-Key": f"p{body['number']}"})
        assert r.status_code == 201, r.content
    replay = post_hand(api, match, bodies[-1], **{"Idempotency-Key": f"p{bodies[-1]['number']}"})
    assert replay["Idempotent-Replayed"] == "true"
    prepared = {sql: n - before.get(sql, 0) for sql, n in _prepared_statements().items()}
    lock = _lock_for_recording_sql().replace("%s", "$")
    locks = {sql: n for sql, n in prepared.items() if sql.split("$")[0] == lock.split("$")[0]}
    stores = {sql: n for sql, n in prepared.items() if _is_hand_store(sql)}
    # One prepared lock statement served every submission, the replay included.
    assert list(locks.values()) == [len(bodies) + 1], locks
    # Each hand ran a prepared store; at most a couple of texts (parameter types may differ).
    assert sum(stores.values()) == len(bodies), stores
    assert max(stores.values()) >= 2, stores
    # Django's own statements are not prepared.
    assert not any("auth_user" in sql for sql in prepared)


@pytest.mark.postgres
def test_recording_works_with_prepared_statements_turned_off(api: APIClient, match: Match) -> None:
    """DATABASE_PREPARED_STATEMENTS=false (psycopg's prepare_threshold None, for a pooler
    without prepared statements): the same statements run unprepared, with the same result."""
    from django.db import connection

    connection.ensure_connection()
    raw = connection.connection
    saved = raw.prepare_threshold
    raw.prepare_threshold = None
    try:
        before = _prepared_statements()
        for body in _simulated(match, 3)[:3]:
            r = post_hand(api, match, body, **{"Idempotency-Key": f"u{body['number']}"})
            assert r.status_code == 201, r.content
        again = post_hand(api, match, body, **{"Idempotency-Key": f"u{body['number']}"})
        assert again["Idempotent-Replayed"] == "true"
        assert _prepared_statements() == before
    finally:
        raw.prepare_threshold = saved
    match.refresh_from_db()
    assert match.hands_count == 3


def test_play_log_is_replayed_by_the_engine(api: APIClient, match: Match) -> None:
    import random

    from scoring.engine import Ruleset
    from scoring.engine.match import match_start
    from scoring.engine.simulate import BOTS, simulate_hand

    ruleset = Ruleset.from_json(match.ruleset)
    state = match_start(ruleset, 4)
    log, record = simulate_hand(ruleset, 4, state.next, random.Random(5), (BOTS["heuristic"],) * 4)
    r = post_hand(api, match, {"number": 1, "play_log": log.to_dict()})
    assert r.status_code == 201, r.content
    hand = r.json()["hand"]
    assert hand["poser"] == record.poser
    assert hand["pose_tile"] == str(record.pose_tile)
    assert hand["end"] == record.end.value
    assert hand["play_log"] == log.to_dict()
    # A claimed outcome that contradicts the log is refused.
    match2 = match_in_progress(match.tournament, referee=match.referee)
    wrong = (record.poser + 1) % 4
    r = post_hand(api, match2, {"number": 1, "poser": wrong, "play_log": log.to_dict()})
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "log_mismatch"
    # A broken log names the move.
    bad = log.to_dict()
    bad["moves"] = [*bad["moves"][:1], {"seat": 0, "kind": "fly"}]
    r = post_hand(api, match2, {"number": 1, "play_log": bad})
    assert r.status_code == 400
    assert r.json()["error"]["fields"].keys() == {"play_log.moves[1].kind"}


@pytest.mark.postgres
def test_recording_uses_a_constant_number_of_queries(
    api: APIClient, match: Match, django_assert_num_queries: Any
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def count(n: int, body: dict[str, Any]) -> int:
        with CaptureQueriesContext(connection) as ctx:
            r = post_hand(api, match, {"number": n, **body}, **{"Idempotency-Key": f"q{n}"})
        assert r.status_code == 201, r.content
        return len(ctx.captured_queries)

    # 19 decided hands without a match end: ties keep the score line (R27).
    tie = {"poser": 0, "pose_tile": "6-6", "end": "block", "counts": [5, 5, 9, 9]}
    first = count(1, tie)
    # The budget, whatever the hand number: lock + permission (the state before the hand is
    # the engine snapshot stored by the previous hand, read with the lock), ONE statement that
    # inserts the hand, updates match + seats + tournament version and inserts the
    # idempotency record, and the transaction's savepoint pair (the test runs inside a
    # transaction). The SQLite demo spells the writes out as separate statements.
    assert first == 4, first
    for n in range(2, 20):
        nh = Match.objects.get(pk=match.pk).next_hand
        assert nh is not None
        poser = nh["poser"] if nh["poser"] is not None else 0
        tile = "6-6" if nh["forced"] else "5-4"
        r = post_hand(api, match, {"number": n, **tie, "poser": poser, "pose_tile": tile})
        assert r.status_code == 201, r.content
    nh = Match.objects.get(pk=match.pk).next_hand
    assert nh is not None
    poser = nh["poser"] if nh["poser"] is not None else 0
    tile = "6-6" if nh["forced"] else "5-4"
    with django_assert_num_queries(first):
        r = post_hand(
            api,
            match,
            {"number": 20, **tie, "poser": poser, "pose_tile": tile},
            **{"Idempotency-Key": "q20"},
        )
    assert r.status_code == 201


@pytest.mark.postgres
def test_a_retry_is_answered_by_the_lock_statement_alone(api: APIClient, match: Match) -> None:
    """A retried submission (same Idempotency-Key after the answer was lost) reads its stored
    answer in the lock statement: one statement besides the test's savepoints, no fold, no
    stored-answer lookup; the same key with another body is still a 422 (§9)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    body = {"number": 1, "poser": 0, "pose_tile": "6-6", "end": "block", "counts": [5, 5, 9, 9]}
    first = post_hand(api, match, body, **{"Idempotency-Key": "lost-1"})
    assert first.status_code == 201, first.content
    with CaptureQueriesContext(connection) as ctx:
        again = post_hand(api, match, body, **{"Idempotency-Key": "lost-1"})
    assert again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    statements = [q["sql"] for q in ctx.captured_queries if "SAVEPOINT" not in q["sql"]]
    # The lock statement (prepared: logged with its $n placeholders) and nothing else.
    assert len(statements) == 1, statements
    assert "FOR NO KEY UPDATE" in statements[0]
    other = {**body, "counts": [5, 5, 9, 8]}
    reused = post_hand(api, match, other, **{"Idempotency-Key": "lost-1"})
    assert reused.status_code == 422
    assert reused.json()["error"]["code"] == "idempotency_key_reused"
    assert Hand.objects.filter(match=match).count() == 1


@pytest.mark.postgres
def test_the_lock_statement_finds_a_keyed_hand_by_index_in_its_generic_plan(match: Match) -> None:
    """The retry lookup rides on the lock statement of every hand: as a prepared statement's
    generic plan (parameters unknown) it must still probe the partial unique index on
    (recorded_by, idempotency_key), never scan the hands (a seq scan would grow with every
    hand of every event)."""
    from django.db import connection

    from scoring.services import _lock_for_recording_sql

    parts = _lock_for_recording_sql().split("%s")
    sql = "".join(f"{part}${i}" for i, part in enumerate(parts[:-1], start=1)) + parts[-1]
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute(f"PREPARE lock_plan(int, text, int, text, int, text, int) AS {sql}")
        try:
            cursor.execute("EXPLAIN EXECUTE lock_plan(1, 'director', 1, 'referee', 1, 'k', 1)")
            plan = "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("DEALLOCATE lock_plan")
    assert "hand_unique_user_idempotency_key" in plan, plan
    assert "Seq Scan" not in plan, plan


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_as_served_a_hand_is_three_statements_and_commits_with_the_store(
    api: APIClient, match: Match
) -> None:
    """Outside any test transaction, as in production: the lock, the store and the COMMIT
    that travels with the store (core.sql.execute_and_commit, so the tournament's version
    row is not locked across a round trip); after a refusal nothing is written or bumped."""
    from django.db import connection

    statements: list[str] = []

    def spy(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements.append(sql)
        return execute(sql, params, many, context)

    first = {"number": 1, "poser": 2, "pose_tile": "6-6", "end": "domino", "winner": 0}
    version = Tournament.objects.get(pk=match.tournament_id).version
    with connection.execute_wrapper(spy):
        r = post_hand(api, match, first, **{"Idempotency-Key": "t1"})
    assert r.status_code == 201, r.content
    commit = statements.index("COMMIT")
    assert commit == 2, statements
    assert "FOR NO KEY UPDATE" in statements[0]
    assert _is_hand_store(statements[1])
    # After the commit only the reactions to hand_recorded read (the webhook outbox looks up
    # the tournament's endpoints, remembered per process for a few seconds): nothing writes.
    after = statements[commit + 1 :]
    assert len(after) <= 1, after
    assert all(s.lstrip().startswith("SELECT") and "notify_webhookendpoint" in s for s in after)
    assert r.json()["tournament_version"] == version + 1
    assert Tournament.objects.get(pk=match.tournament_id).version == version + 1
    assert Hand.objects.filter(match=match).count() == 1
    bad = post_hand(api, match, {**first, "number": 2, "poser": 9})
    assert bad.status_code == 400
    assert Tournament.objects.get(pk=match.tournament_id).version == version + 1
    assert Hand.objects.filter(match=match).count() == 1


def _simulated(match: Match, seed: int) -> list[dict[str, Any]]:
    from scoring.engine import Ruleset
    from scoring.engine.simulate import simulate_match

    sim = simulate_match(Ruleset.from_json(match.ruleset), match.n_players, seed)
    bodies = []
    for number, record in enumerate(sim.records, start=1):
        body = {"number": number, **record.to_dict()}
        body.pop("sporting", None)
        bodies.append(body)
    return bodies


def _fold_of_stored_hands(match: Match) -> Any:
    from scoring.selectors import match_state

    match.refresh_from_db()
    return match_state(match=match)


@pytest.mark.parametrize(
    "damage",
    [
        {"match_version": 0},  # written for an older version of the match
        {"state": {"format": 99}},  # a format this engine does not read
        {"state": "garbage"},
    ],
)
@pytest.mark.postgres
def test_a_retired_or_unreadable_snapshot_falls_back_to_the_fold(
    api: APIClient, match: Match, damage: dict[str, Any]
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scoring.engine.snapshot import state_to_json

    bodies = _simulated(match, 5)
    assert len(bodies) > 4
    for body in bodies[:3]:
        assert post_hand(api, match, body).status_code == 201
    match.refresh_from_db()
    stored = match.engine_state
    assert isinstance(stored, dict)
    assert stored["match_version"] == match.version
    assert stored["state"] == state_to_json(_fold_of_stored_hands(match))
    Match.objects.filter(pk=match.pk).update(engine_state={**stored, **damage})
    with CaptureQueriesContext(connection) as ctx:
        r = post_hand(api, match, bodies[3])
    assert r.status_code == 201, r.content
    assert len(ctx.captured_queries) == 5  # the usual 4, plus reading the stored hands
    state = _fold_of_stored_hands(match)
    assert match.scores == list(state.scores) == r.json()["match"]["scores"]
    # ... and the hand wrote a fresh snapshot, so the next one is back to 4 queries.
    assert match.engine_state == {"match_version": match.version, "state": state_to_json(state)}
    with CaptureQueriesContext(connection) as ctx:
        assert post_hand(api, match, bodies[4]).status_code == 201
    assert len(ctx.captured_queries) == 4


def test_the_hand_that_ends_a_match_is_checked_against_the_full_fold(
    api: APIClient, match: Match, caplog: pytest.LogCaptureFixture
) -> None:
    """A snapshot that drifted from the hands (here: a statistic) never finishes a match: the
    last hand is folded from the stored hands, the fold decides, and the drift is logged."""
    from scoring.models import Seat

    bodies = _simulated(match, 9)
    for body in bodies[:-1]:
        assert post_hand(api, match, body).status_code == 201
    match.refresh_from_db()
    drifted = match.engine_state
    drifted["state"]["stats"][0][0] += 50  # hands_won of seat A
    Match.objects.filter(pk=match.pk).update(engine_state=drifted)
    with caplog.at_level("ERROR", logger="scoring.services"):
        r = post_hand(api, match, bodies[-1])
    assert r.status_code == 201, r.content
    assert "differs from the fold" in caplog.text
    state = _fold_of_stored_hands(match)
    assert match.status == Match.Status.FINISHED
    assert state.over
    won = list(
        Seat.objects.filter(match=match).order_by("seat").values_list("hands_won", flat=True)
    )
    assert won == [s.hands_won for s in state.stats]
    assert won[0] < 50


def test_start_override_forfeit_void_through_the_api(tournament: Tournament) -> None:
    director = director_of(tournament)
    api = APIClient()
    api.force_authenticate(director)
    m = scheduled_match(tournament, n_players=2)
    r = api.post(f"/api/matches/{m.pk}/start/", {"lot_winner": 1}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["status"] == "in_progress"
    r = post_hand(api, m, {"number": 1, **win(0, 1, "6-6")})
    assert r.status_code == 201
    r = api.post(f"/api/matches/{m.pk}/hands/void-last/", {"number": 1}, format="json")
    assert r.status_code == 400
    assert "reason" in r.json()["error"]["fields"]
    r = api.post(
        f"/api/matches/{m.pk}/hands/void-last/", {"number": 1, "reason": "typo"}, format="json"
    )
    assert r.status_code == 200
    assert r.json()["hand"]["void"] is True
    assert r.json()["match"]["hands_count"] == 0
    r = api.post(
        f"/api/matches/{m.pk}/override/",
        {"scores": [0, 6], "reason": "appeal"},
        format="json",
    )
    assert r.status_code == 200
    assert r.json()["end_reason"] == "override"
    assert r.json()["winner_seat"] == 1
    m2 = scheduled_match(tournament, n_players=3)
    r = api.post(f"/api/matches/{m2.pk}/forfeit/", {"seat": 0, "reason": "no-show"}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["match"]["end_reason"] == "forfeit"
    assert r.json()["continuation"]["n_players"] == 2
    hands = APIClient().get(f"/api/matches/{m.pk}/hands/").json()
    assert hands["count"] == 1
    assert hands["results"][0]["void_reason"] == "typo"


def test_the_hand_list_reads_include_void_and_refuses_a_blank_or_unknown_value(
    tournament: Tournament,
) -> None:
    """``include_void`` (default true) is a boolean: ``false`` leaves voided hands out; given
    but blank, or not a boolean, it is a 400 naming the parameter, never read as absent (a
    blank used to list the voided hands, the default)."""
    director = director_of(tournament)
    api = APIClient()
    api.force_authenticate(director)
    m = scheduled_match(tournament, n_players=2)
    assert (
        api.post(f"/api/matches/{m.pk}/start/", {"lot_winner": 1}, format="json").status_code == 200
    )
    assert post_hand(api, m, {"number": 1, **win(0, 1, "6-6")}).status_code == 201
    voided = api.post(
        f"/api/matches/{m.pk}/hands/void-last/", {"number": 1, "reason": "typo"}, format="json"
    )
    assert voided.status_code == 200
    url = f"/api/matches/{m.pk}/hands/"
    assert api.get(url).json()["count"] == 1
    assert api.get(url, {"include_void": "true"}).json()["count"] == 1
    assert api.get(url, {"include_void": "false"}).json()["count"] == 0
    assert api.get(url, {"include_void": "0"}).json()["count"] == 0
    for value in ("", "maybe"):
        r = api.get(url, {"include_void": value})
        assert r.status_code == 400, (value, r.content)
        error = r.json()["error"]
        assert list(error["fields"]) == ["include_void"]
        assert "boolean" in error["fields"]["include_void"][0]


def test_create_match_through_the_api(tournament: Tournament) -> None:
    from tests.factories import EntryFactory, TableFactory

    director = director_of(tournament)
    ref = referee_of(tournament)
    api = APIClient()
    api.force_authenticate(director)
    entries = [EntryFactory(tournament=tournament).pk for _ in range(3)]
    table = TableFactory(tournament=tournament)
    r = api.post(
        f"/api/tournaments/{tournament.slug}/matches/",
        {"entries": entries, "table": table.pk, "referee": ref.pk, "label": "R1 T1"},
        format="json",
    )
    assert r.status_code == 201, r.content
    body = r.json()
    assert [s["entry"] for s in body["seats"]] == entries
    assert body["status"] == "scheduled"
    assert body["table_number"] == table.number
    listing = APIClient().get(f"/api/tournaments/{tournament.slug}/matches/").json()
    assert [m["id"] for m in listing["results"]] == [body["id"]]


def test_openapi_schema_documents_hand_recording(client: Any) -> None:
    r = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert r.status_code == 200
    schema = r.json() if r["Content-Type"].startswith("application/json") else None
    if schema is None:
        import yaml

        schema = yaml.safe_load(r.content)
    op = schema["paths"]["/api/v1/matches/{match_id}/hands/"]["post"]
    assert "requestBody" in op
    assert {"201", "400", "409", "422"} <= set(op["responses"])
    assert any(p["name"] == "Idempotency-Key" for p in op["parameters"])
    for path in [
        "/api/v1/tournaments/",
        "/api/v1/players/",
        "/api/v1/tournaments/{slug}/entries/",
        "/api/v1/tournaments/{slug}/tables/",
        "/api/v1/tournaments/{slug}/matches/",
        "/api/v1/matches/{match_id}/",
        "/api/v1/matches/{match_id}/start/",
        "/api/v1/matches/{match_id}/hands/void-last/",
        "/api/v1/matches/{match_id}/override/",
        "/api/v1/matches/{match_id}/forfeit/",
        "/api/v1/tournaments/{slug}/referee-tokens/",
    ]:
        assert path in schema["paths"], path


@pytest.mark.postgres
def test_tables_every_hand_rewrites_leave_room_for_hot_updates() -> None:
    """scoring 0008: the match, seat and tournament tables keep half of each page free, so the
    row versions a recorded hand writes stay on their page (no index entries)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, reloptions FROM pg_class WHERE relname = ANY(%s)",
            [["scoring_match", "scoring_seat", "tournament_tournament"]],
        )
        options = dict(cursor.fetchall())
    assert options == {
        "scoring_match": ["fillfactor=50"],
        "scoring_seat": ["fillfactor=50"],
        "tournament_tournament": ["fillfactor=50"],
    }
