"""Property-based fuzzing of the JSON API against our own OpenAPI schema (schemathesis).

The schema is loaded from ``/api/schema/`` of the Django WSGI application itself, and every
documented operation is called in-process (no network, no server) by three callers:

* ``anonymous``: nobody signed in; schemathesis also makes up ``Authorization`` headers and
  ``sessionid`` cookies from the documented security schemes (junk and malformed tokens);
* ``director``: a director of the fuzzed tournament, signed in by session (with a CSRF token);
* ``referee``: a referee of that tournament, by ``Authorization: Token <key>``.

The database holds a world built by the factories and the real services: a running tournament
with a seeded stage and a published round (a match in progress with hands, a scheduled one), a
finished match, tokens (one revoked), another tournament and a draft one. Path parameters and
the id-valued body fields (``player``, ``user``, ``entries``...) are steered towards those rows
two times in three (otherwise nearly every request would stop at a 404 or an "unknown id");
the rest of the time they are whatever schemathesis generates.

Every response must: not be a 5xx (``not_a_server_error``); have a status the schema documents
for the operation (``status_code_conformance``: core.api.schema documents every operation's
errors); match the documented schema (``response_schema_conformance``); and, for any 4xx with
a body, have the project's error shape ``{"error": {"code", "message", "fields", "rule"?}}``.

Bounded and deterministic: ``derandomize=True``, 25 examples per operation and caller (positive
and negative data), no deadline. Requests share the test's transaction (same thread and
connection, as with Django's test client), so each test's rows are rolled back after it;
``on_commit`` callbacks (live broadcasts) therefore do not run here.
"""

from __future__ import annotations

import json
import logging
import os
import traceback
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import schemathesis
from django.conf import settings as django_settings
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import got_request_exception, request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from brackets.models import RoundMatch, Stage
from brackets.services import round_publish, stage_create, stage_seed
from scoring.engine import Ruleset
from scoring.engine.simulate import simulate_match
from scoring.models import Match
from scoring.services import hand_record, match_assign_referee, match_result_override, match_start
from tests.factories import (
    EntryFactory,
    PlayerFactory,
    TableFactory,
    TournamentFactory,
    UserFactory,
    director_of,
    referee_of,
    scheduled_match,
)
from tournament.models import (
    Entry,
    Partnership,
    Player,
    RefereeToken,
    Table,
    Tournament,
    TournamentRole,
)
from tournament.services import referee_token_issue, referee_token_revoke

# ``API_FUZZ_DEEP=1`` for a longer local hunt: 200 examples per operation and schemathesis'
# coverage phase (boundary, missing and wrong-typed values of every field: about 120 more
# requests per operation and caller). The default keeps this module at about two minutes.
DEEP = os.environ.get("API_FUZZ_DEEP", "") not in ("", "0")
MAX_EXAMPLES = 200 if DEEP else 25
ROLES = ("anonymous", "director", "referee")
CSRF_SECRET = "fuzz" * 8  # 32 characters: sent as the csrftoken cookie and the X-CSRFToken header


# --- the application, in-process -----------------------------------------------------------------


class InProcessApp:
    """Django's WSGI handler, run as Django's test client runs it: in this thread, on this
    thread's database connection (inside the test's transaction), with the
    ``close_old_connections`` receivers disconnected while a test uses it (:meth:`attached`).

    Tracebacks of unhandled exceptions are kept for the failure report. ``Accept-Encoding`` is
    dropped (schemathesis sends requests' default ``gzip, deflate``, and the WSGI transport does
    not decode a compressed body): the fuzzer reads the identity representation.
    """

    def __init__(self) -> None:
        self.handler = WSGIHandler()
        self.remote_addr = "198.51.100.1"
        self.tracebacks: list[str] = []

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        environ["REMOTE_ADDR"] = self.remote_addr
        environ.pop("HTTP_ACCEPT_ENCODING", None)
        return self.handler(environ, start_response)

    def _keep_traceback(self, sender: Any, **kwargs: Any) -> None:
        self.tracebacks.append(traceback.format_exc())

    def attached(self) -> Iterator[InProcessApp]:
        self.tracebacks.clear()
        request_started.disconnect(close_old_connections)
        request_finished.disconnect(close_old_connections)
        got_request_exception.connect(self._keep_traceback)
        try:
            yield self
        finally:
            got_request_exception.disconnect(self._keep_traceback)
            request_started.connect(close_old_connections)
            request_finished.connect(close_old_connections)


APP = InProcessApp()
schema = schemathesis.openapi.from_wsgi(
    "/api/schema/?format=json",
    APP,
    config=schemathesis.Config.from_dict(
        {
            "generation": {"max-examples": MAX_EXAMPLES, "deterministic": True},
            "phases": {"coverage": {"enabled": DEEP}, "stateful": {"enabled": False}},
        }
    ),
)


# --- the world -------------------------------------------------------------------------------


@dataclass
class World:
    tournament: Tournament
    director: Any
    token: str
    session: str
    # Values naming real rows, by path parameter or body field (most in the fuzzed tournament).
    known: dict[str, list[Any]]


def _play_hands(match: Match, actor: Any, count: int, seed: int) -> None:
    sim = simulate_match(Ruleset.from_json(match.tournament.ruleset), match.n_players, seed)
    match_start(match_id=match.pk, actor=actor, lot_winner=sim.lot_winner)
    for number, record in enumerate(sim.records[:count], start=1):
        hand_record(
            match_id=match.pk, actor=actor, expected_number=number, payload=record.to_dict()
        )


def build_world() -> World:
    tournament = TournamentFactory()
    director = director_of(tournament)
    referee = referee_of(tournament)
    players = Player.objects.bulk_create(
        [Player(name=f"Fuzz {i}", club=f"Club {i % 3}", rating=2000 - i) for i in range(8)]
    )
    entries = Entry.objects.bulk_create(
        [Entry(tournament=tournament, player=p, checked_in=True) for p in players]
    )
    stage = stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind=Stage.Kind.QUALIFYING,
        swiss_rounds=3,
        cut_size=4,
        rng_seed=7,
        auto_advance=True,
    )
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    playing, waiting = Match.objects.filter(
        pk__in=RoundMatch.objects.filter(round=rnd).values("match_id")
    ).order_by("pk")[:2]
    for match in (playing, waiting):
        match_assign_referee(match_id=match.pk, actor=director, referee=referee)
    _play_hands(playing, referee, 2, seed=11)
    finished = scheduled_match(tournament, n_players=3, referee=referee)
    match_start(match_id=finished.pk, actor=director)
    match_result_override(match_id=finished.pk, actor=director, scores=[6, 2, 0], reason="fuzz")
    key = referee_token_issue(tournament=tournament, actor=director, user=referee, label="a").key
    revoked = referee_token_issue(tournament=tournament, actor=director, user=referee)
    referee_token_revoke(token=revoked, actor=director)
    withdrawn = EntryFactory(tournament=tournament, status=Entry.Status.WITHDRAWN)
    spare = EntryFactory(tournament=tournament, checked_in=True)

    other = TournamentFactory()
    other_director = director_of(other)
    other_referee = referee_of(other)
    other_match = scheduled_match(other, n_players=2, table=TableFactory(tournament=other))
    other_token = referee_token_issue(tournament=other, actor=other_director, user=other_referee)
    draft = TournamentFactory(status=Tournament.Status.DRAFT)
    EntryFactory(tournament=draft)

    ours = [entries[0].pk, entries[5].pk, withdrawn.pk, spare.pk]
    other_entry = other_match.seats.values_list("entry_id", flat=True).first()
    client = Client()
    client.force_login(director)
    known: dict[str, list[Any]] = {
        # path parameters
        "slug": [tournament.slug] * 4 + [other.slug, draft.slug],
        "match_id": [playing.pk, playing.pk, waiting.pk, finished.pk, other_match.pk],
        "entry_id": [*ours, other_entry],
        "player_id": [players[0].pk, players[1].pk, PlayerFactory().pk],
        "role_id": [
            *TournamentRole.objects.filter(tournament=tournament, user=referee).values_list(
                "pk", flat=True
            ),
            *TournamentRole.objects.filter(tournament=other).values_list("pk", flat=True),
        ],
        "token_id": [
            *RefereeToken.objects.filter(role__tournament=tournament).values_list("pk", flat=True),
            other_token.pk,
        ],
        "stage_id": [stage.pk],
        "round_id": [rnd.pk],
        # body fields
        "player": [players[2].pk, PlayerFactory().pk],
        "user": [referee.pk, UserFactory().pk, other_referee.pk, director.pk],
        "referee": [referee.pk, other_referee.pk],
        "table": [*Table.objects.filter(tournament=tournament).values_list("pk", flat=True)],
        "entry": ours,
        "number": [1, 2, 3],
    }
    for name in ("in_entry_id", "out_entry_id", "leaving_entry_id"):
        known[name] = known["entry_id"]
    # A partnership (T9) of another tournament: here it answers 404, never a 500.
    known["pair_id"] = [Partnership.objects.create(tournament=other, number=1).pk]
    return World(
        tournament=tournament,
        director=director,
        token=key,
        session=client.cookies[django_settings.SESSION_COOKIE_NAME].value,
        known=known,
    )


KNOWN: dict[str, list[Any]] = {}  # the current test's world.known, read while drawing


@pytest.fixture
def world(db: Any) -> Iterator[World]:
    built = build_world()
    KNOWN.clear()
    KNOWN.update(built.known)
    yield built
    KNOWN.clear()


@pytest.fixture
def app(settings: Any) -> Iterator[InProcessApp]:
    """The application for one test, with its own cache namespace (the live documents and the
    per-address counter of wrong referee tokens start empty), quiet about expected 4xx."""
    caches = json.loads(json.dumps(settings.CACHES))
    caches["default"]["KEY_PREFIX"] = f"ct-fuzz-{uuid.uuid4().hex}"
    settings.CACHES = caches
    request_log = logging.getLogger("django.request")
    level = request_log.level
    request_log.setLevel(logging.ERROR)  # 4xx are warnings; 5xx stay in the report
    try:
        yield from APP.attached()
    finally:
        request_log.setLevel(level)


# --- steering ids towards the world's rows -------------------------------------------------------


def _known(name: str, generated: Any) -> st.SearchStrategy[Any]:
    """Two times in three one of the world's values for ``name``, else ``generated``."""
    pick = st.integers(0, 11).map(lambda i: _pick(name, i, generated))
    return st.one_of(pick, pick, st.just(generated))


def _pick(name: str, index: int, generated: Any) -> Any:
    values = KNOWN.get(name)
    return values[index % len(values)] if values else generated


def _entry_list(generated: Any) -> st.SearchStrategy[Any]:
    entries = st.lists(st.integers(0, 11), min_size=2, max_size=4, unique=True).map(
        lambda indexes: [_pick("entry", i, None) for i in indexes]
    )
    return st.one_of(entries, entries, st.just(generated))


@schema.hook("flatmap_path_parameters")
def steer_path(context: Any, path_parameters: dict[str, Any]) -> st.SearchStrategy[Any]:
    if not isinstance(path_parameters, dict) or not path_parameters:
        return st.just(path_parameters)
    return st.fixed_dictionaries({k: _known(k, v) for k, v in path_parameters.items()})


@schema.hook("flatmap_body")
def steer_body(context: Any, body: Any) -> st.SearchStrategy[Any]:
    if not isinstance(body, dict):
        return st.just(body)
    steered: dict[Any, st.SearchStrategy[Any]] = {}
    for key, value in body.items():
        if key in ("entries", "order"):
            steered[key] = _entry_list(value)
        elif key in KNOWN or key in ("player", "user", "referee", "table", "number"):
            steered[key] = _known(key, value)
        else:
            steered[key] = st.just(value)
    return st.fixed_dictionaries(steered)


# --- checks ----------------------------------------------------------------------------------


def error_shape(ctx: Any, response: Any, case: Any) -> bool | None:
    """Every 4xx with a body is ``{"error": {"code", "message", "fields", "rule"?}}``."""
    if not 400 <= response.status_code < 500 or not response.content:
        return None
    content_type = (response.headers.get("content-type") or [""])[0]
    assert content_type.startswith("application/json"), (
        f"{response.status_code} answered {content_type!r}, not the JSON error shape"
    )
    body = json.loads(response.content)
    assert isinstance(body, dict), f"error body is not an object: {body!r}"
    assert set(body) == {"error"}, f"error body is not {{'error': ...}}: {body!r}"
    error = body["error"]
    assert isinstance(error, dict), f"error is not an object: {error!r}"
    missing = {"code", "message", "fields"} - set(error)
    assert not missing, f"error lacks {sorted(missing)}: {error!r}"
    for key in ("code", "message"):
        assert isinstance(error[key], str), error
        assert error[key], error
    assert isinstance(error["fields"], dict), error
    for name, messages in error["fields"].items():
        assert isinstance(messages, list), (name, messages)
        assert all(isinstance(m, str) and m for m in messages), (name, messages)
    assert isinstance(error.get("rule", ""), str), error
    return True


CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance, error_shape]


# --- the callers -----------------------------------------------------------------------------


def credentials(role: str, world: World, case: Any) -> tuple[dict[str, str], dict[str, str]]:
    """Headers and cookies of ``role``; a signed-in caller drops the made-up credentials."""
    if role == "anonymous":
        return {}, {}
    for generated in (case.headers, case.cookies):
        if generated:
            generated.pop("Authorization", None)
            generated.pop(django_settings.SESSION_COOKIE_NAME, None)
    if role == "referee":
        return {"Authorization": f"Token {world.token}"}, {}
    cookies = {
        django_settings.SESSION_COOKIE_NAME: world.session,
        django_settings.CSRF_COOKIE_NAME: CSRF_SECRET,
    }
    return {"X-CSRFToken": CSRF_SECRET}, cookies


@pytest.mark.parametrize("role", ROLES)
@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)
def test_api_fuzz(case: Any, role: str, world: World, app: InProcessApp) -> None:
    headers, cookies = credentials(role, world, case)
    app.tracebacks.clear()
    try:
        case.call_and_validate(headers=headers, cookies=cookies, checks=CHECKS)
    except BaseException as exc:
        if app.tracebacks:
            exc.add_note("Server traceback:\n" + app.tracebacks[-1])
        raise
