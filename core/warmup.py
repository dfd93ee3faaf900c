"""Warm a freshly started worker before it takes its first request.

Django imports the URLconf, the template engines and the cache and channel-layer clients on
first use, so the first request a new gunicorn worker answered paid for all of them: 175-300 ms
on the 2-core bench VM (a ``/healthz`` or a standings page) against 1-3 ms for the second,
and a hand recorded on a new worker waited for channels-redis, kombu's Redis transport and the
cache client to be imported (bench/RESULTS.md). A deploy or a restarted worker showed it to
the first referee or spectator each worker served.

:func:`warm` does that work at boot instead. gunicorn calls it from ``post_worker_init``
(``config/gunicorn.py``): after the application is loaded and before the worker accepts a
connection, so the master's other workers keep serving meanwhile. Nothing in it talks to the
database or to Redis: a service that is down at boot is the readiness probe's business
(``/readyz``), not a reason for a worker to fail to start.
"""

from __future__ import annotations

import gc
import logging
import time

logger = logging.getLogger(__name__)


def warm() -> dict[str, float]:
    """Import and build what the first request would otherwise build; returns the ms each
    step took (a step that fails is logged and skipped: the request that needs it will
    raise the same error where it can be answered)."""
    timings: dict[str, float] = {}
    for name, step in _STEPS:
        started = time.perf_counter()
        try:
            step()
        except Exception:
            logger.exception("warm-up step %s failed; the first request will retry it", name)
            continue
        timings[name] = round((time.perf_counter() - started) * 1000, 1)
    return timings


def freeze() -> int:
    """Collect once, then move every object alive now (the modules, URLconf, templates and
    clients above: about 160,000 in a web worker) out of the collector's sight; returns how
    many were frozen.

    They live as long as the worker, yet every full collection walked them all again, with
    the GIL held: the bench's workers spent 0.4-1.2 s in 2 full collections each over a run,
    the longest pausing all of a worker's threads for 0.25-1.0 s under load; frozen, 0.14-0.28
    s in 5 (bench/RESULTS.md). Called last, from gunicorn's ``post_worker_init``.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def _urlconf() -> None:
    # Every URLconf module (and the views they name).
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 (the import is the point)


def _languages() -> None:
    # Per language: its catalogs (Django's and every app's), loaded when it is first
    # activated, and the reverse lookup table Django builds on its first {% url %} (150 ms on
    # the bench VM).
    from django.conf import settings
    from django.urls import reverse
    from django.utils import translation

    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            reverse("healthz")


def _templates() -> None:
    from django.template import engines

    for engine in engines.all():
        engine.get_template("base.html")


def _rules() -> None:
    # The rules reference (/rules/, linked from every referee's screen), rendered once a process.
    from core.rules_reference import FILES, rules_html

    for language in FILES:
        rules_html(language)


def _cache() -> None:
    # The client object (and, for Redis, its module and connection pool; no connection yet).
    from django.core.cache import caches

    for alias in caches.settings:
        client = caches[alias]
        getattr(client, "_cache", None)


def _channel_layer() -> None:
    from channels.layers import get_channel_layer

    get_channel_layer()


def _celery() -> None:
    # The broker transport's module (kombu's Redis transport), imported by the first publish.
    from config.celery_app import app

    app.connection_for_write().transport  # noqa: B018


_STEPS = (
    ("urlconf", _urlconf),
    ("templates", _templates),
    ("languages", _languages),
    ("rules", _rules),
    ("cache", _cache),
    ("channel_layer", _channel_layer),
    ("celery", _celery),
)
