"""Webhook deliveries survive a worker kill (issue 16: delivered once or retried, never lost).

Real Celery worker processes on a private queue share this test's database and Redis (the
pattern of tests/brackets/test_brackets_worker.py). The local receiver holds the first request
open, so the worker is killed with SIGKILL in the middle of sending: after the receiver got the
body, before the row was marked delivered. The delivery then arrives again with the same
delivery id (the receiver dedupes on it), by redelivery of the unacknowledged message, or by
the beat sweep when the broker lost the message for good. Every request's signature is checked.
"""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from django.conf import settings
from django.test import override_settings

from config.celery_app import app as celery_app
from notify.models import WebhookDelivery
from notify.tasks import webhooks_sweep
from tests.brackets.test_brackets_worker import Workers, wait_for
from tests.notify.conftest import add_endpoint, publish, seeded_stage
from tests.notify.receivers import WebhookReceiver

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

# The worker's settings for these tests: a short lease (a killed sender's row is free again
# after 4 s) and a read timeout longer than the receiver holds the request.
WORKER_ENV = {
    "WEBHOOK_LEASE_SECONDS": "4",
    "WEBHOOK_TIMEOUT_SECONDS": "60",
    "WEBHOOK_ALLOW_PRIVATE_TARGETS": "true",
}


class NotifyWorkers(Workers):
    def start(self, *, pause: float | None = None, pool: str = "solo"):  # type: ignore[no-untyped-def]
        saved = {k: os.environ.get(k) for k in [*WORKER_ENV, "NOTIFY_TASK_QUEUE"]}
        os.environ.update(WORKER_ENV, NOTIFY_TASK_QUEUE=self.queue)
        try:
            return super().start(pause=pause, pool=pool)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[NotifyWorkers]:
    w = NotifyWorkers(f"test-notify-{uuid.uuid4().hex[:8]}", tmp_path / "unused-marker")
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        with override_settings(NOTIFY_TASK_QUEUE=w.queue, WEBHOOK_LEASE_SECONDS=4):
            yield w
    finally:
        celery_app.conf.task_always_eager = eager
        w.stop_all()


def _published_with_held_receiver(receiver: WebhookReceiver, workers: NotifyWorkers):  # type: ignore[no-untyped-def]
    tournament, director, stage = seeded_stage(8)
    endpoint = add_endpoint(tournament, director, receiver, events=["round_published"])
    receiver.hold_first = True
    worker = workers.start()
    publish(stage, director)  # commits: the handler writes the row and enqueues its send
    delivery = WebhookDelivery.objects.get(endpoint=endpoint)
    assert receiver.got_request.wait(60), workers.logs()
    return worker, delivery


def _assert_delivered_after_a_kill(receiver: WebhookReceiver, delivery: WebhookDelivery) -> None:
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.DELIVERED
    assert delivery.attempts == 1  # the killed attempt never finished; the retry did
    ids = [r.delivery_id for r in receiver.requests]
    assert ids == [str(delivery.pk)] * len(ids)
    assert len(ids) == 2
    assert all(r.verified for r in receiver.requests)
    assert {r.body["id"] for r in receiver.requests} == {str(delivery.pk)}


@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_send_redelivers_with_the_same_id(
    receiver: WebhookReceiver, workers: NotifyWorkers
) -> None:
    worker, delivery = _published_with_held_receiver(receiver, workers)
    os.kill(worker.pid, signal.SIGKILL)  # the receiver has the body; the row is not marked
    worker.wait(timeout=10)
    receiver.release.set()
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.PENDING
    workers.start()  # the unacked message comes back after the visibility timeout (3 s)
    wait_for(
        lambda: WebhookDelivery.objects.filter(pk=delivery.pk, status="delivered").exists(),
        timeout=90,
        what="the redelivered send",
        workers=workers,
    )
    time.sleep(5)  # past another visibility timeout and lease: nothing is sent a third time
    _assert_delivered_after_a_kill(receiver, delivery)


@pytest.mark.django_db(transaction=True)
def test_the_sweep_sends_when_the_message_is_lost_for_good(
    receiver: WebhookReceiver, workers: NotifyWorkers
) -> None:
    worker, delivery = _published_with_held_receiver(receiver, workers)
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    receiver.release.set()
    # The broker loses the message (e.g. Redis restarted without persistence).
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    lost = [
        tag for tag, payload in client.hgetall("unacked").items() if b"webhook_deliver" in payload
    ]
    assert lost, "the killed send should be waiting in the unacked set"
    for tag in lost:
        client.hdel("unacked", tag)
        client.zrem("unacked_index", tag)
    workers.start()
    time.sleep(5)  # nothing comes back by itself
    delivery.refresh_from_db()
    assert delivery.status == WebhookDelivery.Status.PENDING
    assert len(receiver.requests) == 1
    # Beat's sweep finds the pending row once its lease has run out, and enqueues it.
    enqueued = webhooks_sweep.apply_async(queue=workers.queue).get(timeout=60)
    assert enqueued == [str(delivery.pk)]
    wait_for(
        lambda: WebhookDelivery.objects.filter(pk=delivery.pk, status="delivered").exists(),
        timeout=60,
        what="the swept send",
        workers=workers,
    )
    _assert_delivered_after_a_kill(receiver, delivery)
    assert webhooks_sweep.apply_async(queue=workers.queue).get(timeout=60) == []
