"""Advancement survives a worker killed in the middle of it (PITFALLS.md, Celery section).

Real Celery worker processes on a private queue, sharing this test's database: the advance is
paused by a test-only hook after the round was closed and the next round stored but before
commit, the worker is killed with SIGKILL there, and the next round is still published exactly
once: by redelivery (``acks_late`` + ``reject_on_worker_lost``, visibility timeout) or by the
reconciliation task when the message is lost for good.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.db import connection

from brackets import services
from brackets.models import Round, RoundMatch, Stage
from brackets.tasks import round_check, rounds_reconcile
from config.celery_app import app as celery_app
from core.events import match_finished
from scoring.models import Match
from tests.brackets.conftest import make_tournament, open_matches
from tournament.models import ActionLog

# Real PostgreSQL/Redis behaviour: skipped in the embedded run (TEST_DATABASE=sqlite).
pytestmark = [pytest.mark.postgres, pytest.mark.redis]

ROOT = Path(__file__).resolve().parents[2]

# Starts a worker whose broker redelivers unacknowledged messages after 3 s and sweeps for
# them every second (production: 300 s / 5 s x 10; PITFALLS.md), so the test is quick.
WORKER_BOOT = """
import sys
from config.celery_app import app
app.conf.broker_transport_options = {
    **app.conf.broker_transport_options,
    "visibility_timeout": 3,
    "unacked_restore_interval": 1,
    "unacked_restore_throttle": 1,
}
app.worker_main(sys.argv[1:])
"""


def _test_database_url() -> str:
    s = connection.settings_dict
    return f"postgres://{s['USER']}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"


class Workers:
    """Start and kill worker processes consuming one private queue."""

    def __init__(self, queue: str, marker: Path) -> None:
        self.queue = queue
        self.marker = marker
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self, *, pause: float | None = None, pool: str = "solo") -> subprocess.Popen[bytes]:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.test",
            "DATABASE_URL": _test_database_url(),
            "CELERY_TASK_ALWAYS_EAGER": "false",
        }
        env.pop("BRACKETS_TEST_ADVANCE_PAUSE", None)
        if pause is not None:
            env["BRACKETS_TEST_ADVANCE_PAUSE"] = str(pause)
            env["BRACKETS_TEST_ADVANCE_MARKER"] = str(self.marker)
        proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                WORKER_BOOT,
                "worker",
                f"--pool={pool}",
                "--concurrency=1",
                "-Q",
                self.queue,
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=WARNING",
                f"--hostname={self.queue}-{len(self.procs)}@%h",
            ],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=(self.marker.parent / f"worker-{len(self.procs)}.log").open("wb"),
        )
        self.procs.append(proc)
        return proc

    def logs(self) -> str:
        return "\n".join(
            p.read_text(errors="replace")[-3000:]
            for p in sorted(self.marker.parent.glob("worker-*.log"))
        )

    def stop_all(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=5)


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[Workers]:
    w = Workers(f"test-brackets-{uuid.uuid4().hex[:8]}", tmp_path / "advance-paused")
    eager = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield w
    finally:
        celery_app.conf.task_always_eager = eager
        w.stop_all()


def wait_for(condition: Callable[[], Any], *, timeout: float, what: str, workers: Workers) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}:\n{workers.logs()}")


def finished_first_round(n: int = 8) -> tuple[Stage, Round, Any]:
    """Round 1 of a two-round qualifying stage, every match finished, round NOT advanced:
    the round-check receiver is disconnected meanwhile, as if its task had not run yet."""
    tournament, director = make_tournament(n)
    stage = services.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=2,
        cut_size=4,
        auto_advance=True,
    )
    services.stage_seed(stage=stage, actor=director)
    rnd = services.round_publish(stage=stage, actor=director)
    assert match_finished.disconnect(dispatch_uid="brackets.round_check")
    try:
        for m in open_matches(rnd):
            from scoring.services import match_result_override

            match_result_override(
                match_id=m.pk,
                actor=director,
                scores=[6, 0, 0, 0][: m.n_players],
                reason="result from the score sheet",
            )
    finally:
        from brackets.receivers import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="brackets.round_check")
    rnd.refresh_from_db()
    assert rnd.status == Round.Status.PUBLISHED
    assert rnd.advanced_at is None
    return stage, rnd, director


def assert_published_once(stage: Stage, first: Round, tables: int) -> None:
    first.refresh_from_db()
    assert first.status == Round.Status.CLOSED
    assert first.advanced_at is not None
    assert Round.objects.filter(stage=stage, number=2).count() == 1
    second = Round.objects.get(stage=stage, number=2)
    assert RoundMatch.objects.filter(round=second).count() == tables
    # No orphan matches from a half-done run: every match of the tournament is in a round.
    assert Match.objects.filter(tournament_id=stage.tournament_id).count() == 2 * tables
    assert ActionLog.objects.filter(verb="round.publish", target_id=str(second.pk)).count() == 1


def _paused_pid(marker: Path) -> int:
    return int(marker.read_text())


@pytest.mark.django_db(transaction=True)
def test_worker_killed_mid_advance_redelivers_and_publishes_once(workers: Workers) -> None:
    stage, first, _ = finished_first_round()
    worker = workers.start(pause=120)
    round_check.apply_async((first.pk,), queue=workers.queue)
    wait_for(
        workers.marker.exists, timeout=60, what="the advance to reach the pause", workers=workers
    )
    # Inside the paused transaction the next round exists, but nothing is committed.
    assert _paused_pid(workers.marker) == worker.pid  # solo pool: the worker itself
    assert not Round.objects.filter(stage=stage, number=2).exists()

    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    first.refresh_from_db()
    assert first.status == Round.Status.PUBLISHED  # rolled back with the dead connection
    assert first.advanced_at is None

    workers.start()  # a fresh worker: the unacked message comes back after the timeout
    wait_for(
        lambda: Round.objects.filter(stage=stage, number=2).exists(),
        timeout=90,
        what="the redelivered task to publish round 2",
        workers=workers,
    )
    time.sleep(4)  # past another visibility timeout: nothing runs a second publish
    assert_published_once(stage, first, tables=2)


@pytest.mark.django_db(transaction=True)
def test_worker_child_killed_mid_advance_is_rejected_and_rerun(workers: Workers) -> None:
    stage, first, _ = finished_first_round()
    worker = workers.start(pause=120, pool="prefork")
    round_check.apply_async((first.pk,), queue=workers.queue)
    wait_for(
        workers.marker.exists, timeout=60, what="the advance to reach the pause", workers=workers
    )
    child = _paused_pid(workers.marker)
    assert child != worker.pid  # prefork: the pool child runs the task
    os.kill(child, signal.SIGKILL)  # reject_on_worker_lost: the parent requeues at once
    wait_for(
        lambda: Round.objects.filter(stage=stage, number=2).exists(),
        timeout=60,
        what="the rejected task to run again and publish round 2",
        workers=workers,
    )
    time.sleep(4)
    assert_published_once(stage, first, tables=2)


@pytest.mark.django_db(transaction=True)
def test_reconciliation_publishes_when_the_task_is_lost(workers: Workers) -> None:
    stage, first, _ = finished_first_round()
    worker = workers.start(pause=120)
    result = round_check.apply_async((first.pk,), queue=workers.queue)
    wait_for(
        workers.marker.exists, timeout=60, what="the advance to reach the pause", workers=workers
    )
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    # The broker loses the message for good (e.g. Redis restarted without persistence).
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    lost = [
        tag for tag, payload in client.hgetall("unacked").items() if result.id.encode() in payload
    ]
    assert lost, "the killed task should be waiting in the unacked set"
    for tag in lost:
        client.hdel("unacked", tag)
        client.zrem("unacked_index", tag)

    workers.start()
    time.sleep(5)  # nothing is redelivered
    assert not Round.objects.filter(stage=stage, number=2).exists()

    # Beat's reconciliation finds the finished round that was not advanced.
    outcome = rounds_reconcile.apply_async(queue=workers.queue).get(timeout=60)
    assert [(r["round_id"], r["outcome"]) for r in outcome] == [(first.pk, "published")]
    assert_published_once(stage, first, tables=2)
    # Running it again changes nothing.
    again = rounds_reconcile.apply_async(queue=workers.queue).get(timeout=60)
    assert again == []
    assert_published_once(stage, first, tables=2)
