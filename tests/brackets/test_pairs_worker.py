"""A pairs event survives a worker killed in the middle of an advance (issue 17, PITFALLS.md).

Round 1 of an 8-partnership event is played through the services with the round-check
receiver disconnected, a real worker advances it and is killed with SIGKILL inside the
advance (before commit); a fresh worker gets the redelivered task and publishes round 2 once.
The rest of the event then plays to its champion.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

import pytest

from brackets import services
from brackets.models import Round, RoundMatch
from brackets.tasks import round_check
from config.celery_app import app as celery_app
from core.events import match_finished
from scoring.models import Match
from tests.brackets.conftest import play_round
from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages
from tests.brackets.test_brackets_e2e import run_tournament
from tests.brackets.test_brackets_worker import Workers, wait_for, workers  # noqa: F401
from tests.brackets.test_pairs_e2e import check_pairs_event
from tournament.models import ActionLog

pytestmark = [pytest.mark.postgres, pytest.mark.redis]


@pytest.mark.django_db(transaction=True)
def test_pairs_event_with_a_worker_killed_mid_advance(workers: Workers, settings: Any) -> None:  # noqa: F811
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    tournament, director, _ = make_pairs_tournament(8, ruleset_overrides={"target": 3})
    q, _k = pairs_stages(tournament, director, swiss_rounds=3, cut_size=4)
    services.stage_seed(stage=q, actor=director, method="rating")
    first = services.round_publish(stage=q, actor=director)
    eager = celery_app.conf.task_always_eager
    assert match_finished.disconnect(dispatch_uid="brackets.round_check")
    try:
        celery_app.conf.task_always_eager = True  # ratings and live tasks inline meanwhile
        play_round(first, director, seed=8)
    finally:
        celery_app.conf.task_always_eager = False
        from brackets.receivers import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="brackets.round_check")
    first.refresh_from_db()
    assert first.status == Round.Status.PUBLISHED
    assert first.advanced_at is None

    worker = workers.start(pause=120)
    round_check.apply_async((first.pk,), queue=workers.queue)
    wait_for(workers.marker.exists, timeout=60, what="the advance to pause", workers=workers)
    assert not Round.objects.filter(stage=q, number=2).exists()  # not committed yet
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    first.refresh_from_db()
    assert first.advanced_at is None  # rolled back with the dead connection

    workers.start()
    wait_for(
        lambda: Round.objects.filter(stage=q, number=2).exists(),
        timeout=90,
        what="the redelivered task to publish round 2",
        workers=workers,
    )
    time.sleep(4)  # past another visibility timeout: no second publish
    second = Round.objects.get(stage=q, number=2)
    assert RoundMatch.objects.filter(round=second).count() == 4  # 8 partnerships, 4 tables
    assert Match.objects.filter(tournament=tournament).count() == 8
    assert ActionLog.objects.filter(verb="round.publish", target_id=str(second.pk)).count() == 1
    workers.stop_all()

    celery_app.conf.task_always_eager = True
    try:
        run_tournament(tournament, director, max_rounds=10)
    finally:
        celery_app.conf.task_always_eager = eager
    check_pairs_event(tournament, 8, 4)
