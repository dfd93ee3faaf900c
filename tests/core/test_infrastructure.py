"""The suite really talks to Redis: a Celery task through the real broker to a real worker
process, and a round trip through the Redis channel layer (Foundation issue)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

from config.celery_app import app as celery_app
from core.tasks import ping

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def real_worker() -> Iterator[str]:
    """A Celery worker in its own process, consuming a queue private to this test."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "CELERY_TASK_ALWAYS_EAGER": "false",
    }
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config.celery_app",
            "worker",
            "--pool=solo",
            "--concurrency=1",
            "-Q",
            queue,
            "--without-gossip",
            "--without-mingle",
            "--loglevel=WARNING",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield queue
    finally:
        celery_app.conf.task_always_eager = eager
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_celery_task_runs_in_a_real_worker_through_redis(real_worker: str) -> None:
    assert settings.CELERY_BROKER_URL.startswith("redis://")
    token = uuid.uuid4().hex
    result = ping.apply_async(args=(token,), queue=real_worker).get(timeout=60)
    assert result["token"] == token
    assert result["pid"] != os.getpid()  # it ran in the worker process, not here


def test_channel_layer_round_trip_through_redis() -> None:
    layer = get_channel_layer()
    assert type(layer).__module__.startswith("channels_redis")

    async def round_trip() -> dict[str, object]:
        channel = await layer.new_channel()
        group = f"test-{uuid.uuid4().hex[:8]}"
        await layer.group_add(group, channel)
        await layer.group_send(group, {"type": "hand.recorded", "version": 7})
        message: dict[str, object] = await layer.receive(channel)
        await layer.group_discard(group, channel)
        return message

    assert async_to_sync(round_trip)() == {"type": "hand.recorded", "version": 7}
