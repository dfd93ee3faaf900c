"""Advancing a round has a queue of its own that every worker consumes (config/settings/base.py).

Why: bench/bench_rounds.py measured the first advance after a worker started at 8.4 s against
0.5-1.1 s for later ones; the worker's log showed the round check waiting behind the cache
warms and e-mails of earlier rounds in the one default queue, not a cold start (the task itself
ran in 1.1 s). A round check in its own queue waits for one free worker child at most, and
since a cache warm runs in short steps (tests/live/test_cache_warm_steps.py) a child frees up
within a fraction of a second.
"""

from __future__ import annotations

from brackets.tasks import round_check, rounds_reconcile
from config.celery_app import app
from live.tasks import live_cache_warm_task


def _queue_of(task_name: str) -> str:
    return str(app.amqp.router.route({}, task_name)["queue"].name)


def test_round_checks_and_the_reconciliation_go_to_the_rounds_queue() -> None:
    assert _queue_of(round_check.name) == "rounds"
    assert _queue_of(rounds_reconcile.name) == "rounds"


def test_slow_background_work_stays_in_the_default_queue() -> None:
    assert _queue_of(live_cache_warm_task.name) == app.conf.task_default_queue != "rounds"


def test_a_worker_started_without_a_queue_list_consumes_both() -> None:
    # `celery worker` without -Q consumes every queue in task_queues (start-worker.sh).
    consumed = list(app.amqp.queues.consume_from or app.amqp.queues)
    assert "rounds" in consumed
    assert app.conf.task_default_queue in consumed
