"""gunicorn settings shared by the web and websocket processes (``-c python:config.gunicorn``).

The access log is one JSON object per request and never holds a secret: no query string, no
Referer, no Authorization or cookie header, and the referee link's key (``/ref/<key>/``) is
replaced by ``[redacted]`` in the path (deploy/README.md). The bind address, workers and
threads come from the start scripts' command line.
"""

from __future__ import annotations

import json
import os
from typing import Any

from gunicorn.glogging import Logger

from core.observability import loggable_path


class SafeAccessLogger(Logger):  # type: ignore[misc]
    def access(self, resp: Any, req: Any, environ: dict[str, Any], request_time: Any) -> None:
        if not (self.cfg.accesslog or self.cfg.logconfig or self.cfg.syslog):
            return
        headers = {name.lower(): value for name, value in req.headers}
        line = {
            "logger": "gunicorn.access",
            "remote": environ.get("REMOTE_ADDR", "-"),
            "method": environ.get("REQUEST_METHOD", "-"),
            "path": loggable_path(environ.get("PATH_INFO", "") or ""),
            "status": getattr(resp, "status_code", None) or str(resp.status).split(" ", 1)[0],
            "bytes": getattr(resp, "sent", None),
            "duration_ms": round(request_time.total_seconds() * 1000, 1),
            "request_id": headers.get("x-request-id", "-"),
            "user_agent": headers.get("user-agent", "-")[:200],
        }
        try:
            self.access_log.info(json.dumps(line, default=str))
        except Exception:
            self.exception("access log line could not be written")


logger_class = SafeAccessLogger
accesslog = "-"
errorlog = "-"
# The proxy in front is the only client that reaches gunicorn (deploy/README.md): trust its
# X-Forwarded-* headers. Set FORWARDED_ALLOW_IPS to the proxy's address to narrow it.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "*")
graceful_timeout = 30
# gunicorn 27's control socket is one path per user: replicas on one host would share it.
control_socket_disable = True


def child_exit(server: Any, worker: Any) -> None:
    """Multiprocess metrics: a dead worker's live gauges stop counting (core/observability.py)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def post_worker_init(worker: Any) -> None:
    """Warm the new worker before it accepts a connection (core/warmup.py): the URLconf,
    templates and service clients the first request would otherwise build; then freeze what
    is alive so full garbage collections stop walking it."""
    from core.warmup import freeze, warm

    timings = warm()
    frozen = freeze()  # last: what the warm-up built is frozen with the rest
    worker.log.debug(
        "worker %s warmed in %s ms: %s; %s objects frozen",
        worker.pid,
        round(sum(timings.values()), 1),
        timings,
        frozen,
    )
