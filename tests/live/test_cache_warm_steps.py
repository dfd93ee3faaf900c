"""The spectator cache is warmed in steps, one task each (live.tasks.live_cache_warm_task).

Why: a whole warm of a 1,000-player event held a worker child for 1.3-3.4 s, and with both
children warming other events' rounds, a round check (its own queue) waited for one: the next
round went up 2-3 s late (bench/bench_rounds.py). Each step now queues the next, so a round
check waits for one step at most.
"""

from __future__ import annotations

from typing import Any

import pytest

from live.presenters.documents import live_cache_warm, warm_steps
from live.scope import public_tournament_get
from live.tasks import live_cache_warm_task
from tests.live.conftest import make_live_tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """The steps the task queues, instead of running them (as a worker would, later)."""
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(live_cache_warm_task, "delay", lambda *args: calls.append(args))
    return calls


def test_the_documents_come_first_then_every_page_in_every_language(settings: Any) -> None:
    steps = warm_steps()
    assert steps[0] == ("", "")
    languages = {code for code, _ in settings.LANGUAGES}
    assert {language for language, _ in steps[1:]} == languages
    assert len(steps) == 1 + len(languages) * len({page for _, page in steps[1:]})


def test_each_step_queues_the_next_and_the_last_queues_nothing(
    queued: list[tuple[Any, ...]],
) -> None:
    lt = make_live_tournament(8, slug="warm-steps")
    last = len(warm_steps()) - 1
    assert live_cache_warm_task(lt.tournament.pk) is True
    assert queued == [(lt.tournament.pk, 1)]
    queued.clear()
    assert live_cache_warm_task(lt.tournament.pk, last) is True
    assert queued == []
    assert live_cache_warm_task(lt.tournament.pk, last + 1) is False  # no such step
    assert queued == []


def test_the_steps_build_what_a_whole_warm_builds(
    queued: list[tuple[Any, ...]], django_assert_num_queries: Any
) -> None:
    lt = make_live_tournament(8, slug="warm-steps")
    step = 0
    while True:  # run the chain as a worker would, one queued step after another
        live_cache_warm_task(lt.tournament.pk, step)
        if not queued:
            break
        (_, step), *_ = queued
        queued.clear()
    assert step == len(warm_steps()) - 1
    t = public_tournament_get(slug="warm-steps")
    with django_assert_num_queries(0):  # every document and region of this version is there
        live_cache_warm(t)


def test_a_draft_or_a_missing_tournament_is_not_warmed(queued: list[tuple[Any, ...]]) -> None:
    assert live_cache_warm_task(987654) is False
    assert queued == []
