"""Test settings: PostgreSQL and Redis (DATABASE_URL / REDIS_URL, loopback defaults), or the
embedded default when ``TEST_DATABASE=sqlite``.

The default run never falls back to SQLite: ``tests/conftest.py`` stops at once with a message
saying how to start the services when they are unreachable. The embedded run is asked for
explicitly (``TEST_DATABASE=sqlite``, ``make test`` runs it over the page, API and flow tests):
SQLite, the in-memory channel layer, the local-memory cache and eager Celery, exactly what
``make demo`` runs on; tests that need real PostgreSQL or Redis behaviour are marked
``postgres`` / ``redis`` and skipped there.
"""

import os

EMBEDDED = os.environ.get("TEST_DATABASE", "postgres").lower() == "sqlite"

if EMBEDDED:
    # pytest-django runs SQLite test databases in memory (shared cache across threads).
    os.environ["DATABASE_URL"] = "sqlite:///test-embedded.sqlite3"
    os.environ.pop("REDIS_URL", None)
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ.pop("CELERY_RESULT_BACKEND", None)
else:
    # An empty value counts as unset (``DATABASE_URL= make test``).
    if not os.environ.get("DATABASE_URL"):
        os.environ["DATABASE_URL"] = "postgres://postgres@127.0.0.1:5432/test"
    if not os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = "redis://127.0.0.1:6379/1"
    # Under pytest-xdist (``make pytest`` runs two workers) each worker has its own test
    # database (pytest-django suffixes its name) and here its own Redis database: the channel
    # layer's groups, the shared cache and the real Celery broker of one worker never meet the
    # other's (tournament ids repeat across the two databases). Children a test starts (ASGI
    # servers, Celery workers) inherit it through the environment.
    # ``CT_TEST_REDIS_WORKER`` says it is done, so a child (which inherits both variables)
    # does not move it again.
    _worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if (
        _worker.startswith("gw")
        and _worker[2:].isdigit()
        and os.environ.get("CT_TEST_REDIS_WORKER") != _worker
    ):
        _base, _, _db = os.environ["REDIS_URL"].rpartition("/")
        _db = _db.split("?", 1)[0]
        if _base.startswith("redis") and _db.isdigit():
            os.environ["REDIS_URL"] = f"{_base}/{(int(_db) + int(_worker[2:])) % 16}"
        os.environ["CT_TEST_REDIS_WORKER"] = _worker
# Services and views run their Celery tasks in-process unless a test asks for the real worker
# (tests/core/test_infrastructure.py sends through the real broker to a real worker process).
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")

from config.settings.base import *  # noqa: E402, F403
from config.settings.base import CACHES  # noqa: E402

DEBUG = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CACHES["default"]["KEY_PREFIX"] = f"ct-test-{os.getpid()}"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Serve static files from the finders, no collectstatic needed.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True

# Live pushes leave at once, so a test that acts and then reads a socket sees exactly the
# events of its action; tests/core/test_infrastructure.py covers the production window.
LIVE_BROADCAST_LINGER_MS = 0

# The webhook tests' receiver runs on loopback (notify/transport.py refuses it otherwise);
# tests/notify asserts the refusal with this set back to False.
WEBHOOK_ALLOW_PRIVATE_TARGETS = True

# The embedded demo runs on SQLite, which cannot defer unique constraints (as local.py).
SILENCED_SYSTEM_CHECKS = ["models.W038"] if EMBEDDED else []

if EMBEDDED:
    # A file, not pytest-django's shared in-memory database: the live server of the embedded
    # browser test (tests/browser/test_full_event.py) answers several phones at once from its
    # own threads, each with its own connection, as `make demo` does; the database options
    # are the demo's own (config.settings.base.embedded_sqlite).
    import tempfile

    from config.settings.base import DATABASES

    DATABASES["default"].setdefault("TEST", {})["NAME"] = os.path.join(
        tempfile.gettempdir(), f"ct-test-embedded-{os.getpid()}.sqlite3"
    )
