"""Production settings with the bench URLconf (the real site plus the floor view).

Everything else is ``config.settings.production`` unchanged, so the hand endpoint is measured
exactly as deployed. The bench sets the required environment (secret key, hosts, database,
Redis) and ``DJANGO_SECURE_SSL_REDIRECT=false`` because it talks plain HTTP on loopback.
"""

from config.settings.production import *  # noqa: F403

ROOT_URLCONF = "bench.floor_app.urls"
# Request logs of thousands of bench requests would only cost time; errors still show.
LOGGING = {**LOGGING, "root": {"handlers": ["console"], "level": "WARNING"}}  # noqa: F405
