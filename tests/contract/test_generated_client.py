"""Contract test (issue 20): a client generated from the served schema runs a whole event.

``openapi-python-client`` generates a Python package from ``/api/schema/`` as served (no
generated line is edited), every generated module is imported, and then one scenario runs
through the generated operations only, as an integrator would: no test client, no
factories, no URL written here.

A director signs in through the session endpoint (its CSRF rule as the schema describes it),
creates a tournament, players, entries, a referee and that referee's credential, opens the
tournament and creates a match; the referee (``Authorization: Token <credential>``) records
a Six Love match to its end with idempotency keys, replays one key, recovers from a stale
hand number with the 409 body's ``error.match``, and the standings are read through the
live API with ETag revalidation (304).

The generated client talks to the Django WSGI application in process through httpx's WSGI
transport: same thread and database connection as the test (its transaction is rolled back).
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client as DjangoClient

pytestmark = pytest.mark.django_db

PACKAGE = "contract_api_client"
BASE_URL = "http://testserver"
GENERATOR_NOTES = (
    "Generating ",
    "Warning(s) encountered while generating",
    "Skipping Integration",
    "ruff is not in PATH",
    "If you believe this was a mistake",
)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory, django_db_blocker: Any) -> Iterator[str]:
    """Generate the client from the served schema; yield its package name (importable)."""
    with django_db_blocker.unblock():
        r = DjangoClient().get("/api/schema/?format=json")
    assert r.status_code == 200
    root = tmp_path_factory.mktemp("generated")
    schema = root / "openapi.json"
    schema.write_text(json.dumps(json.loads(r.content)))
    generator = shutil.which("openapi-python-client") or str(
        Path(sys.executable).with_name("openapi-python-client")
    )
    out = str(root / PACKAGE)
    result = subprocess.run(
        [generator, "generate", "--path", str(schema), "--meta", "none", "--output-path", out],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # The generator reports every schema construct it cannot express: there must be none.
    # (Its only other notes: the optional post-generation formatter is not on PATH.)
    unexpected = [
        line
        for line in (result.stdout + result.stderr).splitlines()
        if line.strip() and not any(note in line for note in GENERATOR_NOTES)
    ]
    assert unexpected == []
    sys.path.insert(0, str(root))
    try:
        yield PACKAGE
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _module(package: str, name: str) -> ModuleType:
    return importlib.import_module(f"{package}.{name}")


def test_every_generated_module_imports(generated: str) -> None:
    package = importlib.import_module(generated)
    names = [m.name for m in pkgutil.walk_packages(package.__path__, f"{generated}.")]
    failures = {}
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:
            failures[name] = repr(exc)
    assert len(names) > 100
    assert failures == {}


def test_bodies_are_sent_once_as_json(generated: str) -> None:
    """Issue 20: one content type per body, so a generated client sends each body once."""
    api = _module(generated, "api.matches.tournaments_matches_create")
    models = _module(generated, "models")
    kwargs = api._get_kwargs("s", body=models.MatchCreateInputRequest(entries=[1, 2, 3, 4]))
    assert kwargs["json"]["entries"] == [1, 2, 3, 4]
    assert "data" not in kwargs
    assert "files" not in kwargs


def _set(cookie: Any) -> bool:
    return bool(cookie.domain)  # set by the server (its domain) after the ones we sent


class Event:
    """The generated package's operations, called with a client; each answer's status checked."""

    def __init__(self, package: str) -> None:
        self.package = package
        self.transport = httpx.WSGITransport(app=WSGIHandler())
        self.m = _module(package, "models")
        self.client_module = _module(package, "client")

    def op(self, name: str) -> Any:
        tag, _, operation = name.partition(".")
        return _module(self.package, f"api.{tag}.{operation}")

    def anonymous(self, **kwargs: Any) -> Any:
        return self.client_module.Client(
            base_url=BASE_URL, httpx_args={"transport": self.transport}, **kwargs
        )

    def referee(self, key: str) -> Any:
        return self.client_module.AuthenticatedClient(
            base_url=BASE_URL, token=key, prefix="Token", httpx_args={"transport": self.transport}
        )

    def director(self, username: str, password: str) -> Any:
        """Session login as the schema describes it: GET sets ``csrftoken``; POST with it in
        ``X-CSRFToken``; later writes send the (rotated) token the same way."""
        client = self.anonymous()
        r = self.op("auth.auth_login_retrieve").sync_detailed(client=client)
        assert r.status_code == 204, r.content
        jar = client.get_httpx_client().cookies
        client = self.anonymous(cookies=dict(jar), headers={"X-CSRFToken": jar["csrftoken"]})
        r = self.op("auth.auth_login_create").sync_detailed(
            client=client,
            body=self.m.SessionLoginInputRequest(username=username, password=password),
        )
        assert r.status_code == 200, r.content
        # The cookies this answer set win over the ones sent (login rotates the CSRF token).
        jar = {c.name: c.value for c in sorted(client.get_httpx_client().cookies.jar, key=_set)}
        return self.anonymous(cookies=jar, headers={"X-CSRFToken": jar["csrftoken"]})


@pytest.fixture
def in_process() -> Iterator[None]:
    """Keep the test's database connection open across in-process requests (as Django's test
    client does): the handler would close it at the end of each request."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _ok(response: Any, status: int) -> Any:
    assert response.status_code == status, (response.status_code, response.content[:500])
    return response.parsed


@pytest.mark.usefixtures("in_process")
def test_a_whole_event_through_the_generated_client(generated: str) -> None:
    td = get_user_model().objects.create_user("td", password="a long director password")
    td.user_permissions.add(Permission.objects.get(codename="add_tournament"))  # may create
    ev = Event(generated)
    m = ev.m
    director = ev.director("td", "a long director password")

    slug = f"contract-{uuid.uuid4().hex[:8]}"
    tournament = _ok(
        ev.op("tournaments.tournaments_create").sync_detailed(
            client=director,
            body=m.TournamentCreateInputRequest(
                name="Contract Open", slug=slug, ruleset_preset=m.RulesetPresetEnum.WSOD
            ),
        ),
        201,
    )
    assert tournament.ruleset.scoring.value == "six_love"  # a typed ruleset, not a dict

    entries = []
    for name in ("Ana", "Beto", "Carla", "Dario"):
        player = _ok(
            ev.op("players.players_create").sync_detailed(
                client=director, body=m.PlayerInputRequest(name=name)
            ),
            201,
        )
        entry = _ok(
            ev.op("entries.tournaments_entries_create").sync_detailed(
                slug, client=director, body=m.EntryCreateInputRequest(player=player.id)
            ),
            201,
        )
        entries.append(entry.id)

    role = _ok(
        ev.op("referees.tournaments_referees_create").sync_detailed(
            slug, client=director, body=m.RefereeCreateInputRequest(username=f"ref-{slug}")
        ),
        201,
    )
    credential = _ok(
        ev.op("referees.tournaments_referee_tokens_create").sync_detailed(
            slug, client=director, body=m.RefereeTokenIssueInputRequest(user=role.user)
        ),
        201,
    )
    for status in ("registration", "running"):
        _ok(
            ev.op("tournaments.tournaments_status_create").sync_detailed(
                slug,
                client=director,
                body=m.StatusChangeInputRequest(status=m.TournamentStatusEnum(status)),
            ),
            200,
        )
    match = _ok(
        ev.op("matches.tournaments_matches_create").sync_detailed(
            slug,
            client=director,
            body=m.MatchCreateInputRequest(entries=entries, referee=role.user),
        ),
        201,
    )
    assert len(match.seats) == 4

    referee = ev.referee(credential.key)
    start = ev.op("matches.matches_start_create").sync_detailed(
        match.id, client=referee, body=m.MatchStartInputRequest()
    )
    assert start.status_code == 200, start.content

    record = ev.op("hands.matches_hands_create")

    def hand(number: int, poser: int, tile: str) -> Any:
        # Seat 0 wins every hand (R7: the winner poses next): six to love.
        return m.HandRecordInputRequest(
            number=number,
            poser=poser,
            pose_tile=tile,
            end=m.HandRecordEndEnum.DOMINO,
            winner=0,
        )

    key = str(uuid.uuid4())
    first = record.sync_detailed(
        match.id, client=referee, body=hand(1, 3, "6-6"), idempotency_key=key
    )
    state = _ok(first, 201).match
    # The same key again: the original answer, marked as a replay, nothing recorded twice.
    replay = record.sync_detailed(
        match.id, client=referee, body=hand(1, 3, "6-6"), idempotency_key=key
    )
    assert _ok(replay, 201).match.hands_count == 1
    assert replay.headers["Idempotent-Replayed"] == "true"

    # A stale number (another device already recorded hand 1): recover from the 409 body.
    stale = record.sync_detailed(
        match.id, client=referee, body=hand(1, 0, "5-4"), idempotency_key=str(uuid.uuid4())
    )
    conflict = _ok(stale, 409)
    assert isinstance(conflict, m.StaleHandError)
    number = conflict.error.match.hands_count + 1
    assert number == 2

    while state.status.value != "finished":
        answer = record.sync_detailed(
            match.id,
            client=referee,
            body=hand(number, 0, "5-4"),
            idempotency_key=str(uuid.uuid4()),
        )
        state = _ok(answer, 201).match
        number = state.hands_count + 1
        assert number <= 7
    assert state.scores == [6, 0, 0, 0]
    assert state.winner_seat == 0

    # Live standings, revalidated with the ETag.
    standings = ev.op("live.live_standings_retrieve")
    viewer = ev.anonymous()
    first_read = standings.sync_detailed(slug, client=viewer)
    assert first_read.status_code == 200, first_read.content
    etag = first_read.headers["ETag"]
    again = standings.sync_detailed(slug, client=viewer, if_none_match=etag)
    assert again.status_code == 304
    missing = standings.sync_detailed("no-such-tournament", client=viewer)
    assert missing.status_code == 404
    assert isinstance(missing.parsed, m.ErrorOutput)
