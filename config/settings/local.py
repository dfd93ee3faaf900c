"""Local development and ``make demo``: the embedded default unless DATABASE_URL / REDIS_URL."""

from config.settings.base import *  # noqa: F403
from config.settings.base import INSTALLED_APPS, env

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
