"""Domain events: the named, after-commit facts one app tells the apps above it.

Why: a lower layer (scoring, brackets) must not import the apps that react to it (ratings,
brackets, live), and reactions must not hide in ``post_save`` receivers or trampoline tasks.
A service *emits* an event with :func:`emit_on_commit`; the app that cares *registers* a
handler in its ``AppConfig.ready`` (``event.connect(handler, dispatch_uid=...)``).

Events (keyword arguments in brackets):

``hand_recorded`` (match_id, tournament_id, hand_number, hand_id)
    Emitted by ``scoring.services.hand_record`` for every newly recorded hand (not for an
    idempotent replay, which wrote nothing). Handler: notify (webhook outbox rows). The live
    broadcast of the write itself goes through
    ``core.broadcast`` (``scoring.services.notify``), not through this event.
``match_finished`` (match_id, tournament_id, end_reason)
    Emitted by ``scoring.services`` when a match becomes finished (last hand, forfeit,
    override). Handlers: brackets (enqueue the round check), ratings (enqueue the update),
    notify (webhook outbox rows).
``match_reopened`` (match_id, tournament_id)
    Emitted by ``scoring.services`` when voiding the last hand reopens a finished match.
    Handlers: brackets (reopen the round), ratings (enqueue the update).
``player_rating_typed`` (player_id)
    Emitted by ``tournament.services.player_update`` when a player's typed rating changed
    (where their ratings start, ``ratings.model.starting_skill``). Handler: ratings (enqueue a
    rebuild from the player's first rated match; nothing if they have none).
``round_published`` (round_id, stage_id, tournament_id)
    Emitted by ``brackets.services`` when a round is published. Handler: live (enqueue the
    cache warm, PITFALLS.md: never release a round to a hall of phones with a cold cache);
    notify (webhook outbox rows, the players' table e-mails).

Guarantees: an event is dispatched only after the emitting transaction commits (never for a
rolled-back write), in the emitting process. Every handler is called even if another one
raises: a failure is logged (``core.events``) and swallowed, so one app's outage never breaks
another app's reaction nor the write itself. Handlers must be idempotent and cheap: they read
what they need by id and enqueue a Celery task (which carries its own retries) rather than
doing slow work inline. An event can be delivered more than once (a reconcile job may repeat
one) and, if the process dies between commit and dispatch or the broker refuses the task, it
can be lost: the beat-driven sweeps recover that (``brackets.rounds_reconcile`` advances
finished rounds, ``ratings.ratings_reconcile`` rates finished matches, the cache warm is also
done lazily by the first reader).
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from django.db import transaction
from django.dispatch import Signal

logger = logging.getLogger(__name__)

hand_recorded = Signal()
match_finished = Signal()
match_reopened = Signal()
player_rating_typed = Signal()
round_published = Signal()


def dispatch(event: Signal, **kwargs: Any) -> None:
    """Call every handler of ``event`` now; log (and swallow) each handler's failure."""
    for handler, result in event.send_robust(sender=None, **kwargs):
        if isinstance(result, BaseException):
            logger.error(
                "event handler failed",
                exc_info=(type(result), result, result.__traceback__),
                extra={"handler": getattr(handler, "__qualname__", repr(handler))},
            )


def emit_on_commit(event: Signal, **kwargs: Any) -> None:
    """Dispatch ``event`` with ``kwargs`` after the current transaction commits (at once when
    there is none)."""
    transaction.on_commit(partial(dispatch, event, **kwargs), robust=True)
