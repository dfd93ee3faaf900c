"""Infrastructure tasks: a ping used by readiness checks and the broker round-trip test."""

from __future__ import annotations

import os
import socket

from celery import shared_task


@shared_task(name="core.ping")
def ping(token: str) -> dict[str, object]:
    """Echo ``token`` with the worker's host and process id, proving who ran it."""
    return {"token": token, "pid": os.getpid(), "host": socket.gethostname()}
