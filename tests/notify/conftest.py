"""Shared pieces of the notify tests: a running event with a published round, and the local
webhook receiver."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from brackets import services as brackets_services
from brackets.models import Round, Stage
from notify import services
from notify.models import WebhookEndpoint
from tests.brackets.conftest import make_tournament
from tests.notify.receivers import WebhookReceiver
from tournament.models import Tournament


@pytest.fixture(autouse=True)
def _fresh_endpoint_cache() -> Iterator[None]:
    """Ids repeat between tests (rolled back): no test sees another's cached endpoints."""
    services.endpoints_forget()
    yield
    services.endpoints_forget()


@pytest.fixture
def receiver() -> Iterator[WebhookReceiver]:
    r = WebhookReceiver()
    r.start()
    try:
        yield r
    finally:
        r.stop()


def seeded_stage(n: int = 8) -> tuple[Tournament, Any, Stage]:
    tournament, director = make_tournament(n)
    return tournament, director, seed_stage(tournament, director)


def seed_stage(tournament: Tournament, director: Any) -> Stage:
    """A qualifying stage of the tournament's checked-in entries, seeded."""
    stage = brackets_services.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=2,
        cut_size=4,
        auto_advance=True,
    )
    brackets_services.stage_seed(stage=stage, actor=director)
    return stage


def publish(stage: Stage, director: Any) -> Round:
    return brackets_services.round_publish(stage=stage, actor=director)


def add_endpoint(
    tournament: Tournament,
    director: Any,
    receiver: WebhookReceiver,
    events: list[str] | None = None,
    path: str = "/hook",
) -> WebhookEndpoint:
    endpoint, secret = services.endpoint_create(
        tournament=tournament,
        actor=director,
        url=receiver.url(path),
        events=events or ["round_published", "match_finished", "hand_recorded"],
    )
    receiver.secrets[path] = secret
    return endpoint


def emit(event: Any, **kwargs: Any) -> None:
    """Dispatch a domain event as after a commit, running the on-commit sends it schedules
    (the test's own transaction never commits)."""
    from django.test import TestCase

    from core.events import dispatch

    with TestCase.captureOnCommitCallbacks(execute=True):
        dispatch(event, **kwargs)


def commit_callbacks() -> Any:
    from django.test import TestCase

    return TestCase.captureOnCommitCallbacks(execute=True)
