"""The automatic path: match_finished -> round_check task -> round_advance, its idempotency
under concurrency, the locks it takes, and the reconciliation task (PITFALLS.md)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import DatabaseError, connections, transaction

from brackets import services
from brackets.models import Round, Stage
from brackets.services._common import stage_lock
from brackets.tasks import round_check, rounds_reconcile
from core.events import match_finished
from scoring.models import Match
from scoring.services import match_result_override
from tests.brackets.conftest import make_tournament, open_matches, play_round
from tests.factories import scheduled_match


def _stage(n: int = 8, **kw: Any) -> tuple[Any, Any, Stage, Round]:
    t, d = make_tournament(n)
    kw.setdefault("swiss_rounds", 2)
    kw.setdefault("auto_advance", True)  # the automatic path these tests are about
    stage = services.stage_create(tournament=t, actor=d, name="Qualifying", kind="qualifying", **kw)
    services.stage_seed(stage=stage, actor=d)
    return t, d, stage, services.round_publish(stage=stage, actor=d)


@pytest.mark.django_db
def test_the_last_match_finishing_enqueues_the_round_check_after_commit(
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, d, stage, r1 = _stage()
    first, last = open_matches(r1)
    with django_capture_on_commit_callbacks(execute=True):
        match_result_override(match_id=first.pk, actor=d, scores=[6, 0, 0, 0], reason="sheet")
    assert not Round.objects.filter(stage=stage, number=2).exists()  # round still in play
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        match_result_override(match_id=last.pk, actor=d, scores=[6, 0, 0, 0], reason="sheet")
    assert callbacks  # scoring's notify, then our round check (eager in tests)
    r1.refresh_from_db()
    assert r1.status == "closed"
    assert r1.advanced_at is not None
    assert Round.objects.filter(stage=stage, number=2).count() == 1


@pytest.mark.django_db
def test_a_match_outside_any_round_is_ignored(django_capture_on_commit_callbacks: Any) -> None:
    t, _ = make_tournament(4)
    m = scheduled_match(t)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        match_finished.send(sender=Match, match_id=m.pk, tournament_id=t.pk, end_reason="normal")
    # Brackets enqueues no round check (other apps, such as ratings, may react to the signal).
    assert [cb for cb in callbacks if "brackets." in repr(cb)] == []
    assert len(callbacks) == 1  # the ratings update only


@pytest.mark.django_db
def test_round_check_task_reports_what_it_did() -> None:
    _, d, _, r1 = _stage()
    assert round_check.apply(args=(r1.pk,)).get()["outcome"] == "in_play"
    for m in open_matches(r1):
        match_result_override(match_id=m.pk, actor=d, scores=[6, 0, 0, 0], reason="sheet")
    first = round_check.apply(args=(r1.pk,)).get()
    second = round_check.apply(args=(r1.pk,)).get()
    assert (first["outcome"], second["outcome"]) == ("published", "already_done")
    assert round_check.apply(args=(10**9,)).get()["outcome"] == "missing"


@pytest.mark.django_db
def test_reconciliation_advances_finished_rounds_that_were_not_advanced() -> None:
    _, d, stage, r1 = _stage()
    for m in open_matches(r1):  # no task runs: on_commit callbacks are not executed here
        match_result_override(match_id=m.pk, actor=d, scores=[6, 0, 0, 0], reason="sheet")
    assert Round.objects.filter(stage=stage).count() == 1
    results = rounds_reconcile.apply().get()
    assert [(r["round_id"], r["outcome"]) for r in results] == [(r1.pk, "published")]
    assert rounds_reconcile.apply().get() == []
    assert Round.objects.filter(stage=stage, number=2).count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_advances_publish_the_next_round_once() -> None:
    _, d, stage, r1 = _stage(16)
    assert match_finished.disconnect(dispatch_uid="brackets.round_check")
    try:
        play_round(r1, d, seed=5)
    finally:
        from brackets.receivers import on_match_finished

        match_finished.connect(on_match_finished, dispatch_uid="brackets.round_check")
    barrier = threading.Barrier(6)
    outcomes: list[str] = []
    errors: list[BaseException] = []

    def advance() -> None:
        try:
            barrier.wait()
            outcomes.append(services.round_advance(round_id=r1.pk).outcome)
        except BaseException as exc:  # collected and re-raised in the main thread
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=advance) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=60)
    assert errors == []
    assert sorted(outcomes) == ["already_done"] * 5 + ["published"]
    assert Round.objects.filter(stage=stage, number=2).count() == 1
    assert Match.objects.filter(round_link__round__stage=stage).count() == 8


@pytest.mark.django_db(transaction=True)
def test_advance_holds_the_stage_row_lock() -> None:
    _, _, stage, _ = _stage()
    with transaction.atomic():
        stage_lock(stage.pk)
        other = connections.create_connection("default")
        try:
            with other.cursor() as cursor, pytest.raises(DatabaseError):
                cursor.execute(
                    f'SELECT id FROM "{Stage._meta.db_table}" WHERE id = %s FOR UPDATE NOWAIT',
                    [stage.pk],
                )
        finally:
            other.close()


@pytest.mark.django_db
def test_round_publish_emits_round_published_after_commit(
    django_capture_on_commit_callbacks: Any,
) -> None:
    from core.events import round_published

    seen: list[dict[str, Any]] = []

    def on_published(sender: Any, **kw: Any) -> None:
        seen.append(kw)

    round_published.connect(on_published)
    try:
        with django_capture_on_commit_callbacks(execute=False) as callbacks:
            t, _, stage, r1 = _stage()
        assert seen == []  # nothing before commit
        for callback in callbacks:
            callback()
    finally:
        round_published.disconnect(on_published)
    assert [(e["round_id"], e["stage_id"], e["tournament_id"]) for e in seen] == [
        (r1.pk, stage.pk, t.pk)
    ]
