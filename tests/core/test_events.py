"""Domain events (core.events): dispatched after commit only, every handler runs even when
another one fails, and a rolled-back write emits nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from django.dispatch import Signal

from core import events


def test_a_failing_handler_does_not_stop_the_others(caplog: pytest.LogCaptureFixture) -> None:
    event = Signal()
    seen: list[int] = []

    def broken(sender: Any, **kw: Any) -> None:
        raise RuntimeError("handler outage")

    def working(sender: Any, *, match_id: int, **kw: Any) -> None:
        seen.append(match_id)

    event.connect(broken, weak=False)
    event.connect(working, weak=False)
    events.dispatch(event, match_id=7)
    assert seen == [7]
    assert "event handler failed" in caplog.text


@pytest.mark.django_db(transaction=True)
def test_emitted_after_commit_and_never_for_a_rollback() -> None:
    event = Signal()
    seen: list[int] = []
    event.connect(lambda sender, **kw: seen.append(kw["n"]), weak=False)
    with transaction.atomic():
        events.emit_on_commit(event, n=1)
        assert seen == []  # not before commit
    assert seen == [1]

    def rolled_back() -> None:
        with transaction.atomic():
            events.emit_on_commit(event, n=2)
            raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        rolled_back()
    assert seen == [1]
