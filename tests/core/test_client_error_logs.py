"""A refused request is logged once, as one WARNING line without a traceback.

Bug (testers, `make demo`): a referee whose link belongs to another match opened its page and
got its 403 (correctly), but the server log showed the traceback of the ``PermissionDenied``
twice: once from Django's own console handler (left on the ``django`` logger under DEBUG) and
once from the project's console handler. A 403 is the client's mistake, not an error worth a
traceback; Django logs its other 4xx answers as one WARNING line (core.log_hygiene,
config/settings/base.py LOGGING).
"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator

import pytest
from django.test import Client

from core.log_hygiene import ClientErrorFilter, RedactSecretsFilter
from scoring.models import Match
from tests.factories import TournamentFactory, director_of, match_in_progress, referee_of
from tests.security.conftest import open_link, token_client
from tournament.models import RefereeToken
from tournament.services import referee_token_issue

pytestmark = pytest.mark.django_db

HAND = {"number": 1, "poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1}


@pytest.fixture
def console() -> Iterator[io.StringIO]:
    """What the project's console handler (settings.LOGGING) writes."""
    handler = next(
        h
        for h in logging.getLogger().handlers
        if any(isinstance(f, RedactSecretsFilter) for f in h.filters)
    )
    assert isinstance(handler, logging.StreamHandler)
    stream = io.StringIO()
    old = handler.setStream(stream)
    try:
        yield stream
    finally:
        handler.setStream(old)


def _referee_of_another_match() -> tuple[Match, RefereeToken]:
    """A referee's credential, and a match of the same tournament they do not referee."""
    tournament = TournamentFactory()
    director = director_of(tournament)
    referee = referee_of(tournament)
    match_in_progress(tournament, referee=referee)
    other = match_in_progress(tournament)
    return other, referee_token_issue(tournament=tournament, actor=director, user=referee)


def _refusals(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("page", ["", "panel/"])
def test_a_referee_page_of_another_match_logs_one_warning_without_traceback(
    page: str, caplog: pytest.LogCaptureFixture, console: io.StringIO
) -> None:
    other, token = _referee_of_another_match()
    client = Client()
    open_link(client, token.key)
    caplog.clear()
    caplog.set_level(logging.INFO)
    assert client.get(f"/matches/{other.pk}/{page}").status_code == 403
    (record,) = _refusals(caplog)
    assert (record.name, record.levelname, record.getMessage()) == (
        "django.request",
        "WARNING",
        f"Forbidden (Permission denied): /matches/{other.pk}/{page}",
    )
    assert record.exc_info is None
    assert record.exc_text is None
    logged = console.getvalue()
    assert logged.count("Forbidden") == 1
    assert "Traceback" not in logged


def test_a_hand_sent_to_another_match_logs_one_warning_without_traceback(
    caplog: pytest.LogCaptureFixture, console: io.StringIO
) -> None:
    other, token = _referee_of_another_match()
    caplog.set_level(logging.INFO)
    answer = token_client(token).post(f"/api/matches/{other.pk}/hands/", HAND, format="json")
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "not_match_referee"
    (record,) = _refusals(caplog)
    assert (record.name, record.levelname, record.exc_info) == ("django.request", "WARNING", None)
    assert console.getvalue().count("Forbidden") == 1
    # The same through the session a link opens (what the phone sends).
    client = Client()
    open_link(client, token.key)
    caplog.clear()
    answer = client.post(
        f"/api/matches/{other.pk}/hands/",
        data=json.dumps(HAND),
        content_type="application/json",
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )
    assert answer.status_code == 403
    (record,) = _refusals(caplog)
    assert (record.levelname, record.exc_info) == ("WARNING", None)


def _handlers_emitting(record: logging.LogRecord) -> list[logging.Handler]:
    """The handlers that write ``record``, walking up from its logger as logging does
    (pytest's own capture handlers left out)."""
    found: list[logging.Handler] = []
    logger: logging.Logger | None = logging.getLogger(record.name)
    while logger is not None:
        found += [
            h
            for h in logger.handlers
            if not type(h).__module__.startswith("_pytest")
            and record.levelno >= h.level
            and h.filter(record)
        ]
        logger = logger.parent if logger.propagate else None
    return found


def test_under_debug_django_logs_through_one_handler(settings: object) -> None:
    """`make demo` runs with DEBUG: Django's default console handler (require_debug_true)
    wrote every django.* record a second time, tracebacks included."""
    settings.DEBUG = True  # type: ignore[attr-defined]
    for name in ("django.request", "django.channels.server", "django.security.csrf"):
        record = logging.LogRecord(name, logging.WARNING, __file__, 1, "Forbidden: /x/", (), None)
        assert len(_handlers_emitting(record)) == 1, name


def test_a_server_error_keeps_its_traceback() -> None:
    """Only 4xx answers lose the traceback: a 500 is a bug and is logged with it."""
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        import sys

        exc_info = sys.exc_info()
    record = logging.LogRecord("django.request", logging.ERROR, __file__, 1, "x", (), exc_info)
    record.status_code = 500
    assert ClientErrorFilter().filter(record)
    assert record.exc_info == exc_info
    record.status_code = 403
    assert ClientErrorFilter().filter(record)
    assert record.exc_info is None
