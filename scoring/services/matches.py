"""The match lifecycle before hands: create, assign a referee, start."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.choice_labels import choice_label
from core.exceptions import ApplicationError
from scoring.engine import RuleViolation
from scoring.engine.match import match_start as engine_match_start
from scoring.models import Match, Seat
from scoring.services.common import (
    _SNAPSHOT_FIELDS,
    Actor,
    _engine_error,
    _freeze_ruleset,
    _lock_match,
    _require_director,
    _require_match_director,
    _require_referee_or_director,
    _snapshot,
    match_version_bump,
)
from scoring.services.notify import _notify_after_commit
from tournament.context import (
    Action,
)
from tournament.models import Entry, Table, Tournament, TournamentRole
from tournament.selectors import referee_unknown
from tournament.services import (
    action_log_record,
    tournament_version_bump,
)

# -- match lifecycle ----------------------------------------------------------------------------


@transaction.atomic
def match_create(
    *,
    tournament: Tournament,
    actor: Actor,
    entries: Sequence[Entry],
    table: Table | None = None,
    referee: Actor | None = None,
    label: str = "",
    lot_winner: int = 0,
) -> Match:
    """A stand-alone match of 2-4 entries seated in the given play order (director only)."""
    _require_director(actor, tournament, Action.MANAGE)
    n = len(entries)
    if not 2 <= n <= 4:
        raise ApplicationError(
            _("A table seats 2, 3 or 4 players, not %(n)s (R2).") % {"n": n},
            code="bad_player_count",
            rule="R2",
            fields={"entries": [_("Give 2 to 4 entries in play order.")]},
        )
    seen: set[int] = set()
    for i, entry in enumerate(entries):
        if entry.tournament_id != tournament.pk:
            raise ApplicationError(
                _("That entry belongs to another tournament."),
                code="entry_not_in_tournament",
                fields={f"entries[{i}]": [_("Not an entry of this tournament.")]},
            )
        if entry.status != Entry.Status.ACTIVE:
            status = choice_label(Entry.Status, entry.status).lower()
            raise ApplicationError(
                _("%(player)s is %(status)s.") % {"player": entry.player, "status": status},
                code="entry_not_active",
                fields={f"entries[{i}]": [_("Entry is %(status)s.") % {"status": status}]},
            )
        if entry.pk in seen:
            raise ApplicationError(
                _("A player cannot sit twice at one table."),
                code="duplicate_entry",
                fields={f"entries[{i}]": [_("Duplicate.")]},
            )
        seen.add(entry.pk)
    if table is not None and table.tournament_id != tournament.pk:
        raise ApplicationError(
            _("That table belongs to another tournament."),
            code="table_not_in_tournament",
            fields={"table": [_("Not a table of this tournament.")]},
        )
    _check_referee(tournament, referee)
    if not 0 <= lot_winner < n:
        raise ApplicationError(
            _("lot_winner must be a seat 0..%(last)s (R6).") % {"last": n - 1},
            code="unknown_seat",
            rule="R6",
            fields={"lot_winner": [_("Not a seat.")]},
        )
    match = Match.objects.create(
        tournament=tournament,
        table=table,
        referee=referee,
        label=label,
        n_players=n,
        lot_winner=lot_winner,
        scores=[0] * n,
    )
    Seat.objects.bulk_create(
        [Seat(match=match, seat=i, entry=entry) for i, entry in enumerate(entries)]
    )
    version = tournament_version_bump(tournament_id=tournament.pk)
    _notify_after_commit(match, version)
    return match


def _check_referee(tournament: Tournament, referee: Actor | None) -> None:
    if referee is None:
        return
    if not TournamentRole.objects.filter(
        tournament=tournament, user=referee, role=TournamentRole.Role.REFEREE
    ).exists():
        raise referee_unknown(field="referee")  # names no one (user ids are sequential)


@transaction.atomic
def match_assign_referee(*, match_id: int, actor: Actor, referee: Actor | None) -> Match:
    """Assign (or clear) the referee of a match (director only; logged).

    The same referee again changes nothing: no write, no log entry, no push (a second press
    of the round page's Set, or a retry, logged "Referee changed" for no change)."""
    match = _lock_match(match_id)
    _require_match_director(actor, match, Action.DECIDE_MATCH)
    _check_referee(match.tournament, referee)
    before = match.referee_id
    if before == (referee.pk if referee is not None else None):
        return match
    match.referee = referee
    # A new referee changes no score: the snapshot stays current, so the new referee's
    # phone can follow the match offline from the start.
    match.save(update_fields=["referee", *match_version_bump(match)])
    action_log_record(
        tournament=match.tournament,
        actor=actor,
        verb="match.assign_referee",
        target=match,
        data={"before": before, "after": referee.pk if referee is not None else None},
    )
    version = tournament_version_bump(tournament_id=match.tournament_id)
    _notify_after_commit(match, version)
    return match


@transaction.atomic
def match_start(*, match_id: int, actor: Actor, lot_winner: int | None = None) -> Match:
    """Start a scheduled match: freeze the tournament's ruleset on it (RULES.md §1), check it
    suits the player count (R2) and store the engine's opening state (R6).

    The assigned referee or a director may start it.
    """
    match = _lock_match(match_id)
    _require_referee_or_director(actor, match, Action.RECORD_HAND)
    if match.status != Match.Status.SCHEDULED:
        raise ApplicationError(
            _("The match is %(status)s, not scheduled.")
            % {"status": choice_label(Match.Status, match.status).lower()},
            code="match_not_scheduled",
        )
    seats = Seat.objects.filter(match=match).count()
    if seats != match.n_players:
        raise ApplicationError(
            _("The match has %(seats)s seats for %(players)s players.")
            % {"seats": seats, "players": match.n_players},
            code="seats_missing",
        )
    if lot_winner is not None:
        match.lot_winner = lot_winner
    ruleset = _freeze_ruleset(match)
    try:
        state = engine_match_start(ruleset, match.n_players, lot_winner=match.lot_winner)
    except RuleViolation as exc:
        raise _engine_error(exc) from exc
    _snapshot(match, state)
    match.status = Match.Status.IN_PROGRESS
    match.started_at = timezone.now()
    match.save(
        update_fields=[
            *_SNAPSHOT_FIELDS,
            *("ruleset", "confirmation", "lot_winner", "status", "started_at"),
        ]
    )
    version = tournament_version_bump(tournament_id=match.tournament_id)
    _notify_after_commit(match, version)
    return match
