"""What an operator sees: request ids in every log line, Prometheus metrics, task outcomes.

* **Request id.** nginx sends ``X-Request-ID`` (its ``$request_id``; a client's own value is
  kept only if it is a short token). :class:`RequestIdMiddleware` puts it in a context variable,
  answers it back in ``X-Request-ID``, and :class:`RequestIdFilter` adds it to every log record.
  Celery tasks queued during the request carry it in their headers (``before_task_publish``)
  and the worker restores it around the task (``task_prerun``), so one id follows a hand from
  its request through the broadcast log line to the advancement task it queued.
* **Metrics.** ``/metrics`` in the Prometheus text format, only with
  ``Authorization: Bearer <METRICS_TOKEN>`` (404 without a configured token or a wrong one, so
  the endpoint does not advertise itself); nginx refuses it from outside as well. gunicorn
  runs several processes: with ``PROMETHEUS_MULTIPROC_DIR`` set (the start scripts set it),
  every process writes its samples there and a scrape sums them. The Celery worker serves its
  own on ``CELERY_METRICS_PORT`` (internal network only).
"""

from __future__ import annotations

import contextvars
import hmac
import logging
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

logger = logging.getLogger(__name__)

REQUEST_ID_HEADER = "X-Request-ID"
_REQUEST_ID_OK = re.compile(r"^[A-Za-z0-9._-]{8,64}$")
request_id_var: contextvars.ContextVar[str] = contextvars.ContextVar("request_id", default="-")

# -- metrics -----------------------------------------------------------------------------------

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
HTTP_LATENCY = Histogram(
    "cutthroat_http_request_duration_seconds",
    "HTTP request latency by route pattern (not by URL: bounded label values).",
    ["method", "route", "status"],
    buckets=LATENCY_BUCKETS,
)
HANDS_RECORDED = Counter("cutthroat_hands_recorded_total", "Hands recorded (201 answers).")
HANDS_REJECTED = Counter(
    "cutthroat_hands_rejected_total",
    "Hand submissions refused, by error code and the rule the error names (RULES.md).",
    ["code", "rule"],
)
WEBSOCKETS = Gauge(
    "cutthroat_websocket_connections",
    "Open spectator websockets (summed over processes).",
    multiprocess_mode="livesum",
)
WEBSOCKET_FRAMES = Counter(
    "cutthroat_websocket_frames_total", "Frames sent to spectator websockets."
)
BROADCAST_LATENCY = Histogram(
    "cutthroat_broadcast_seconds",
    "Fan-out latency: a live event's commit to its group send finished (core.broadcast).",
    buckets=LATENCY_BUCKETS,
)
TASKS = Counter("cutthroat_celery_tasks_total", "Celery task outcomes.", ["task", "outcome"])
TASK_LAG = Histogram(
    "cutthroat_celery_task_lag_seconds",
    "Publish to start of a task; for brackets.round_check this is the advancement lag.",
    ["task"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 120.0, 300.0),
)
TASK_DURATION = Histogram(
    "cutthroat_celery_task_duration_seconds", "Task run time.", ["task"], buckets=LATENCY_BUCKETS
)

# The hand-recording route, under /api/ and each /api/vN/ (core.api.versioning).
_HANDS_ROUTES = frozenset(
    f"api/{version}matches/<int:match_id>/hands/" for version in ("", "v1/", "v2/")
)


class QueueDepthCollector(Collector):
    """``cutthroat_celery_queue_depth``: messages waiting in the broker, read at scrape time."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        family = GaugeMetricFamily(
            "cutthroat_celery_queue_depth", "Messages waiting in a Celery queue.", labels=["queue"]
        )
        broker = str(getattr(settings, "CELERY_BROKER_URL", ""))
        if broker.startswith(("redis://", "rediss://")):
            import redis

            try:
                client = redis.Redis.from_url(broker, socket_connect_timeout=1, socket_timeout=1)
                family.add_metric(["celery"], float(client.llen("celery")))
                client.close()
            except Exception as exc:  # a scrape never fails because Redis is down
                logger.warning("queue depth unavailable: %s", exc)
        yield family


def registry() -> CollectorRegistry:
    """What a scrape reads: every process's samples in multiprocess mode, else this one's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        reg = CollectorRegistry()
        multiprocess.MultiProcessCollector(reg)  # type: ignore[no-untyped-call]
        return reg
    from prometheus_client import REGISTRY

    return REGISTRY


def _queue_registry() -> CollectorRegistry:
    reg = CollectorRegistry(auto_describe=False)
    reg.register(QueueDepthCollector())
    return reg


def metrics_view(request: HttpRequest) -> HttpResponse:
    token = str(getattr(settings, "METRICS_TOKEN", "") or "")
    given = request.headers.get("Authorization", "")
    if not token or not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
        return HttpResponse("Not found.\n", status=404, content_type="text/plain")
    body = generate_latest(registry()) + generate_latest(_queue_registry())
    return HttpResponse(body, content_type=CONTENT_TYPE_LATEST)


# -- request id and request metrics ----------------------------------------------------------


def new_request_id() -> str:
    return uuid.uuid4().hex


# A referee link's key (/ref/<key>/), or an invitation's typed into a path without its "#"
# (/invite/<key>: the real link keeps it in the fragment, which no server sees).
_SECRET_PATHS = re.compile(r"/(ref|invite)/[^/\s'\"?]+")
_REDACTED_PATH = r"/\1/[redacted]"


def loggable_path(path: str) -> str:
    """A request path fit for a log: no query string, no key (``/ref/<key>/``,
    ``/invite/<key>``)."""
    return _SECRET_PATHS.sub(_REDACTED_PATH, path.split("?", 1)[0])


def _redact(value: object) -> object:
    if isinstance(value, str) and ("/ref/" in value or "/invite/" in value):
        return _SECRET_PATHS.sub(_REDACTED_PATH, value)
    return value


class RequestIdFilter(logging.Filter):
    """Adds the request id to every record, and keeps secrets out of the line: Django's
    ``django.request`` records carry the request (its repr has the query string) and the path
    as an argument, so the request becomes method + redacted path and arguments are redacted."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id_var.get()
        request = getattr(record, "request", None)
        if request is not None and hasattr(request, "path"):
            record.request = f"{getattr(request, 'method', '')} {loggable_path(request.path)}"
        if isinstance(record.args, tuple):
            record.args = tuple(_redact(a) for a in record.args)
        if isinstance(record.msg, str):
            record.msg = str(_redact(record.msg))
        return True


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get(REQUEST_ID_HEADER, "")
        rid = given if _REQUEST_ID_OK.match(given) else new_request_id()
        token = request_id_var.set(rid)
        try:
            response = self.get_response(request)
        finally:
            request_id_var.reset(token)
        response[REQUEST_ID_HEADER] = rid
        return response


def _rule_of(response: HttpResponse) -> tuple[str, str]:
    import json

    try:
        error = json.loads(response.content)["error"]
        return str(error.get("code") or "unknown"), str(error.get("rule") or "none")
    except Exception:
        return "unknown", "none"


class MetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = match.route if match is not None else "unmatched"
        HTTP_LATENCY.labels(request.method or "", route, str(response.status_code)).observe(
            time.perf_counter() - started
        )
        if route in _HANDS_ROUTES and request.method == "POST":
            if response.status_code == 201:
                HANDS_RECORDED.inc()
            elif 400 <= response.status_code < 500 and not getattr(response, "streaming", False):
                HANDS_REJECTED.labels(*_rule_of(response)).inc()
        return response


# -- websockets ---------------------------------------------------------------------------------


def websocket_metrics(app: Any) -> Any:
    """ASGI wrapper counting open sockets and frames sent (config/asgi.py).

    The wrapped ``send`` keeps the server's own as ``__wrapped__``: the spectator hub writes
    prebuilt frames straight to the server's transport (live/consumers.py finds it there), and
    counts those frames itself (:func:`count_websocket_frames`), once per event.
    """

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        accepted = False

        async def counting_send(message: dict[str, Any]) -> None:
            nonlocal accepted
            kind = message.get("type")
            if kind == "websocket.accept" and not accepted:
                accepted = True
                WEBSOCKETS.inc()
            elif kind == "websocket.send":
                WEBSOCKET_FRAMES.inc()
            await send(message)

        counting_send.__wrapped__ = send  # type: ignore[attr-defined]
        try:
            await app(scope, receive, counting_send)
        finally:
            if accepted:
                WEBSOCKETS.dec()

    return wrapped


def count_websocket_frames(n: int) -> None:
    """Add ``n`` frames written without the ASGI ``send`` (the hub's direct writes)."""
    if n:
        WEBSOCKET_FRAMES.inc(n)


# -- Celery -------------------------------------------------------------------------------------


def _task_name(sender: Any) -> str:
    return str(getattr(sender, "name", sender) or "unknown")


def on_before_task_publish(headers: dict[str, Any] | None = None, **_: Any) -> None:
    if headers is not None:
        headers.setdefault("request_id", request_id_var.get())
        headers.setdefault("published_at", time.time())


_task_tokens: dict[str, tuple[contextvars.Token[str], float]] = {}


def on_task_prerun(task_id: str = "", task: Any = None, **_: Any) -> None:
    req = getattr(task, "request", None)
    rid = getattr(req, "request_id", None) or (getattr(req, "headers", None) or {}).get(
        "request_id"
    )
    published = getattr(req, "published_at", None) or (getattr(req, "headers", None) or {}).get(
        "published_at"
    )
    if published:
        TASK_LAG.labels(_task_name(task)).observe(max(0.0, time.time() - float(published)))
    _task_tokens[task_id] = (request_id_var.set(str(rid or new_request_id())), time.perf_counter())
    logger.info("task %s %s started", _task_name(task), task_id)


def on_task_postrun(
    task_id: str = "", task: Any = None, state: str | None = None, **_: Any
) -> None:
    TASKS.labels(_task_name(task), str(state or "unknown").lower()).inc()
    found = _task_tokens.pop(task_id, None)
    if found is not None:
        token, started = found
        TASK_DURATION.labels(_task_name(task)).observe(time.perf_counter() - started)
        request_id_var.reset(token)


def on_worker_ready(**_: Any) -> None:
    """The worker's own metrics endpoint (internal network only), when CELERY_METRICS_PORT."""
    port = int(os.environ.get("CELERY_METRICS_PORT", "0") or 0)
    if port:
        from prometheus_client import start_http_server

        reg = registry()
        reg.register(QueueDepthCollector())  # once: the worker's main process is ready once
        start_http_server(port, addr=os.environ.get("CELERY_METRICS_ADDR", "0.0.0.0"), registry=reg)  # noqa: S104


def on_worker_process_shutdown(pid: int | None = None, **_: Any) -> None:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(pid or os.getpid())  # type: ignore[no-untyped-call]


def beat_heartbeat_path() -> Path | None:
    path = os.environ.get("BEAT_HEARTBEAT_FILE", "")
    return Path(path) if path else None


def connect_celery_signals() -> None:
    from celery import signals

    signals.before_task_publish.connect(on_before_task_publish, weak=False)
    signals.task_prerun.connect(on_task_prerun, weak=False)
    signals.task_postrun.connect(on_task_postrun, weak=False)
    signals.worker_ready.connect(on_worker_ready, weak=False)
    signals.worker_process_shutdown.connect(on_worker_process_shutdown, weak=False)
