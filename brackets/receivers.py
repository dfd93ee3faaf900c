"""Handlers of scoring's domain events (``core.events``): a finished match checks its round.

``match_finished`` is dispatched after the recording transaction commits, possibly more than
once; the round check it enqueues is idempotent, and ``rounds_reconcile`` (beat) advances a
round whose event was lost. A standalone match (no round) is ignored.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from brackets import services
from brackets.selectors import round_id_for_match


def on_match_finished(sender: Any, *, match_id: int, **kwargs: Any) -> None:
    round_id = round_id_for_match(match_id=match_id)
    if round_id is None:
        return
    from brackets.tasks import round_check

    transaction.on_commit(partial(round_check.delay, round_id), robust=True)


def on_match_reopened(sender: Any, *, match_id: int, **kwargs: Any) -> None:
    services.round_reopen_for_match(match_id=match_id)
