"""A gunicorn worker class for the process that holds the spectators' websockets.

``gunicorn config.asgi:application -k live.workers.SpectatorWorker``: uvicorn as the deploy
scripts run it, with per-message deflate off (PITFALLS.md: every broadcast frame would be
compressed once per socket; ours are small and sent to thousands) and a small maximum
incoming message, since spectator sockets are read-only.

Before it serves, the worker pays at once what the first live event would otherwise pay
(:func:`warm_up`): bench/bench_live_fanout.py saw the first hand after a start take 0.3-0.5 s
more than the others, the table card's ``{% url %}`` importing every view module to build the
URL resolver.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from uvicorn_worker import UvicornWorker  # the maintained package (uvicorn.workers is deprecated)

logger = logging.getLogger(__name__)


def warm_up() -> None:
    """Build, before the first event, what the first event's frame would build: the URL
    resolver in every language (the whole URLconf is imported on the first ``reverse``), the
    table card's template and each language's catalogue. Idempotent; a failure only logs (the
    first event then pays it, as before)."""
    from django.conf import settings
    from django.template.loader import get_template
    from django.urls import get_resolver
    from django.utils import translation

    started = time.perf_counter()
    try:
        for code, _name in settings.LANGUAGES:
            with translation.override(code):
                get_resolver().reverse_dict  # noqa: B018 (populates this language's resolver)
        get_template("live/_table_card.html")
    except Exception:
        logger.warning("live worker warm-up failed", exc_info=True)
        return
    logger.debug("live worker warmed up in %.0f ms", (time.perf_counter() - started) * 1000)


class SpectatorWorker(UvicornWorker):  # type: ignore[misc]
    CONFIG_KWARGS: dict[str, Any] = {
        **UvicornWorker.CONFIG_KWARGS,
        "ws": "websockets-sansio",
        "ws_per_message_deflate": False,
        "ws_max_size": 64 * 1024,
        "lifespan": "off",
        # uvicorn's access line carries the query string; nginx logs these requests in its
        # secret-free format instead (deploy/nginx, config/gunicorn.py).
        "access_log": False,
    }

    def load_wsgi(self) -> None:
        super().load_wsgi()  # imports config.asgi: Django is set up
        warm_up()
