"""Local development and ``make demo``: the embedded default unless DATABASE_URL / REDIS_URL."""

from config.settings.base import *  # noqa: F403
from config.settings.base import DATABASES, INSTALLED_APPS, env

# `manage.py runserver` serves websockets through daphne, a development-only dependency
# (requirements/dev.in): it is not in the production image.
try:
    import daphne  # noqa: F401
except ImportError:  # pragma: no cover - a production image running local settings
    pass
else:
    INSTALLED_APPS = ["daphne", *INSTALLED_APPS]

DEBUG = env.bool("DJANGO_DEBUG", default=True)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "0.0.0.0"])  # noqa: S104

WHITENOISE_AUTOREFRESH = DEBUG
WHITENOISE_USE_FINDERS = DEBUG

# The embedded demo runs on SQLite, which cannot defer unique constraints; PostgreSQL (tests,
# production) enforces them. Nothing else is silenced.
SILENCED_SYSTEM_CHECKS = ["models.W038"]

# `runserver` serves every request through daphne (ASGI) on a thread of its own, so a
# persistent connection (CONN_MAX_AGE) is never reused and each one stayed open: a demo on
# PostgreSQL held 50+ idle connections after a few minutes of play (PostgreSQL allows 100).
# Production bounds them with a pool (config/settings/production.py); here each request
# closes its connection unless DATABASE_CONN_MAX_AGE says otherwise.
if DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=0)
