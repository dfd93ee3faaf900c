"""Production settings with the bench URLconf (the real site plus the floor view).

Everything else is ``config.settings.production`` unchanged, so the hand endpoint is measured
exactly as deployed. The bench sets the required environment (secret key, hosts, database,
Redis) and ``DJANGO_SECURE_SSL_REDIRECT=false`` because it talks plain HTTP on loopback.
"""

import tempfile
from pathlib import Path

from config.settings.production import *  # noqa: F403

ROOT_URLCONF = "bench.floor_app.urls"
# Request logs of thousands of bench requests would only cost time; errors still show.
LOGGING = {
    **LOGGING,  # noqa: F405
    "root": {"handlers": ["console"], "level": "WARNING"},
    # The bench sends deliberate duplicates; their 409s are expected, not news.
    "loggers": {"django.request": {"level": "ERROR"}},
}
# Production serves collected static files; the bench never asks for one.
STATIC_ROOT = Path(tempfile.gettempdir()) / "bench-hands-static"
STATIC_ROOT.mkdir(exist_ok=True)
