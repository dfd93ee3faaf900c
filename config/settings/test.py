"""Test settings: always PostgreSQL and Redis (DATABASE_URL / REDIS_URL, loopback defaults).

The suite never falls back to SQLite: ``tests/conftest.py`` stops at once with a message saying
how to start the services when they are unreachable.
"""

import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test")
os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/1")
# Services and views run their Celery tasks in-process unless a test asks for the real worker
# (tests/core/test_infrastructure.py sends through the real broker to a real worker process).
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")

from config.settings.base import *  # noqa: F403
from config.settings.base import CACHES

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
# events of its action; tests/core/test_infrastructure.py covers the production linger.
LIVE_BROADCAST_LINGER_MS = 0
