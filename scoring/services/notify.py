"""After-commit side effects of a scoring write: the live broadcast and the domain events."""

from __future__ import annotations

from functools import partial

from django.db import transaction

from core import events
from core.broadcast import broadcast_on_commit
from core.events import emit_on_commit, match_reopened
from scoring.events import match_update_event
from scoring.models import Match
from tournament.groups import tournament_group


def _notify_after_commit(
    match: Match, tournament_version: int, *, finished: bool = False, reopened: bool = False
) -> None:
    """Broadcast to the match and tournament groups, and announce a finished match, after
    commit (STYLE.md §4)."""
    event = match_update_event(
        match_id=match.pk,
        tournament_id=match.tournament_id,
        version=match.version,
        tournament_version=tournament_version,
    )
    # The tournament group only: match pages take their match's events from the tournament's
    # hub in each live process (live.hub.Source), so a hand costs one group message.
    broadcast_on_commit([tournament_group(match.tournament_id)], event)
    if finished:
        transaction.on_commit(partial(match_finished_announce, match_id=match.pk), robust=True)
    if reopened:
        emit_on_commit(match_reopened, match_id=match.pk, tournament_id=match.tournament_id)


def match_finished_announce(*, match_id: int) -> bool:
    """Emit ``core.events.match_finished`` for a finished match, now (idempotent: its handlers
    are; services call it after commit, and it may be called again to re-announce a match).

    Returns False (and emits nothing) when the match is not finished any more, e.g. a
    director voided the last hand in between.
    """
    row = (
        Match.objects.filter(pk=match_id, status=Match.Status.FINISHED)
        .values("tournament_id", "end_reason")
        .first()
    )
    if row is None:
        return False
    events.dispatch(
        events.match_finished,
        match_id=match_id,
        tournament_id=row["tournament_id"],
        end_reason=row["end_reason"],
    )
    return True
