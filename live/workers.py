"""A gunicorn worker class for the process that holds the spectators' websockets.

``gunicorn config.asgi:application -k live.workers.SpectatorWorker``: uvicorn as the deploy
scripts run it, with per-message deflate off (PITFALLS.md: every broadcast frame would be
compressed once per socket; ours are small and sent to thousands) and a small maximum
incoming message, since spectator sockets are read-only.
"""

from __future__ import annotations

from typing import Any

from uvicorn_worker import UvicornWorker  # the maintained package (uvicorn.workers is deprecated)


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
