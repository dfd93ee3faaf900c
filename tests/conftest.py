"""Suite-wide fixtures. The suite runs against PostgreSQL and Redis, never SQLite by accident.

If either service is unreachable the run stops at once with a message saying how to start it.
``TEST_DATABASE=sqlite`` asks explicitly for the embedded run (config/settings/test.py): SQLite,
in-memory channel layer, local-memory cache, eager Celery. There, tests marked ``postgres`` (they
need PostgreSQL's own behaviour: row locks, prepared statements, its SQL) or ``redis`` (a real
broker, channel layer or shared cache) are skipped, and so are the browser tests except those
marked ``embedded`` (the 13-player event, tests/browser/test_full_event.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings

START_HINTS = {
    "PostgreSQL": "pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start",
    "Redis": (
        "redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save '' --appendonly no"
    ),
}


def _check_services() -> list[str]:
    import psycopg
    import redis

    problems: list[str] = []
    # Settings module sets the defaults; read them the same way.
    db_url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")
    redis_url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/1")
    if not db_url.startswith(("postgres://", "postgresql://")):
        problems.append(f"DATABASE_URL must point at PostgreSQL for tests, got {db_url!r}")
    else:
        try:
            # The server, not the named database: pytest-django creates test_<name> itself.
            psycopg.connect(
                db_url.replace("postgres://", "postgresql://", 1),
                dbname="postgres",
                connect_timeout=3,
            ).close()
        except Exception as exc:
            problems.append(
                f"PostgreSQL unreachable at {db_url} ({exc}).\n"
                f"  Start it: {START_HINTS['PostgreSQL']}"
            )
    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=3).ping()
    except Exception as exc:
        problems.append(
            f"Redis unreachable at {redis_url} ({exc}).\n  Start it: {START_HINTS['Redis']}"
        )
    return problems


def embedded() -> bool:
    """True in the explicit embedded run (``TEST_DATABASE=sqlite``)."""
    return os.environ.get("TEST_DATABASE", "postgres").lower() == "sqlite"


EMBEDDED_SKIPS = {
    "postgres": "needs PostgreSQL (skipped in the embedded SQLite run)",
    "redis": "needs Redis (skipped in the embedded run)",
    "browser": "browser tests run on PostgreSQL (skipped in the embedded run)",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not embedded():
        return
    for item in items:
        # A browser test marked ``embedded`` runs here too (its live server on the SQLite
        # file database, see config/settings/test.py): the whole-event test (issue 13).
        if item.get_closest_marker("embedded") is not None:
            continue
        for marker, reason in EMBEDDED_SKIPS.items():
            if item.get_closest_marker(marker) is not None:
                item.add_marker(pytest.mark.skip(reason=reason))
                break


def pytest_collection_finish(session: pytest.Session) -> None:
    """Stop at once, with a hint, if a selected test needs PostgreSQL/Redis and they are down.

    Pure engine tests (``tests/*/engine/``) need neither, so a run of only those skips the check.
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if embedded():
        from django.conf import settings

        assert settings.DATABASES["default"]["ENGINE"].endswith("sqlite3")
        assert settings.CHANNEL_LAYERS["default"]["BACKEND"].endswith("InMemoryChannelLayer")
        return
    needs_services = any("/engine/" not in str(item.path) for item in session.items)
    if not needs_services:
        return
    problems = _check_services()
    if problems:
        pytest.exit("Test services are not available:\n" + "\n".join(problems), returncode=3)
    from django.conf import settings

    assert settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


@pytest.fixture
def finished_events(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The match ids ``core.events.match_finished`` is dispatched for (the event still runs)."""
    from core import events

    seen: list[int] = []
    original = events.dispatch

    def record(event: Any, **kwargs: Any) -> None:
        if event is events.match_finished:
            seen.append(kwargs["match_id"])
        original(event, **kwargs)

    monkeypatch.setattr(events, "dispatch", record)
    return seen


@pytest.fixture(autouse=True)
def _fresh_live_copies() -> None:
    """Every test starts with no cached live documents of earlier tests: the process-local
    copies (``live.cache.LOCAL``, ``live.scope.RECENT``) and, when it is this process's own
    (the embedded run's local-memory cache), the cache itself. Documents are keyed by
    tournament id and version, and a rolled-back test's ids are reused on SQLite, so a
    document kept from an earlier test could otherwise answer for a new tournament with the
    same id and version. PostgreSQL's sequences never reuse an id, and the shared Redis cache
    serves parallel workers: it stays."""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    from live.cache import LOCAL
    from live.scope import RECENT

    LOCAL.clear()
    # The slug -> tournament answers this process read in the last second
    # (LIVE_VERSION_MAX_AGE): a test that makes a tournament with an earlier test's slug must
    # not be answered with that test's tournament (a browser test's live server runs in this
    # process; tests/browser/test_page_widths.py's two languages were 404 within the second).
    RECENT.clear()
    backend = caches["default"]
    if isinstance(backend, LocMemCache):
        backend.clear()


@pytest.fixture(autouse=True)
def _site_language() -> Iterator[None]:
    """Every test starts in the site's language and leaves it so: a request in Spanish
    (``LocaleMiddleware``) or ``translation.activate`` leaves the thread's language switched,
    which made later tests that read English messages depend on the order they ran in."""
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)
