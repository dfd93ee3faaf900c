"""Confirmation at the table (issue 15): the hooks of the recording path.

The hand-recording, start and undo services call these on the locked match row: they read and
write its columns only (no query), so the recording path pays nothing for confirmation. The
services players and directors call (confirm, dispute, resolve) are
:mod:`scoring.services.confirmations`; the model is described there.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from core.exceptions import ApplicationError
from scoring.models import Match
from tournament.models import Tournament

Actor = Any

OFF = Tournament.Confirmation.OFF.value
MATCH_END = Tournament.Confirmation.MATCH_END.value
EVERY_HAND = Tournament.Confirmation.EVERY_HAND.value

HOLD_NONE = ""
HOLD_HAND = "hand"
HOLD_RESULT = "result"
HOLD_DISPUTED = "disputed"

RULE = "confirmation"  # the rule name in error bodies (docs/director-guide.md)


def confirmation_freeze(match: Match, tournament: Tournament) -> list[str]:
    """Freeze the tournament's confirmation setting on a match as it starts (like its
    ruleset, RULES.md section 1); the match columns changed."""
    match.confirmation = "" if tournament.confirmation == OFF else tournament.confirmation
    return ["confirmation"]


def confirmation_gate_record(match: Match) -> None:
    """Refuse a new hand while the match waits: a dispute freezes it; under ``every_hand``
    the last hand must be confirmed first. 409 naming the rule; no query."""
    hold = match.confirmation_hold
    if hold == HOLD_DISPUTED:
        raise ApplicationError(
            _(
                "A player disputed the last result: the match is frozen until a director "
                "resolves the dispute."
            ),
            code="result_disputed",
            rule=RULE,
            status=409,
            fields={"number": [_("The match is frozen by a dispute.")]},
        )
    if hold == HOLD_HAND:
        raise ApplicationError(
            _(
                "Hand %(number)s awaits every player's confirmation before the next hand is "
                "recorded."
            )
            % {"number": match.hands_count},
            code="confirmation_pending",
            rule=RULE,
            status=409,
            fields={
                "number": [
                    _("Hand %(number)s is not confirmed yet.") % {"number": match.hands_count}
                ]
            },
        )


def confirmation_after_hand(match: Match, *, over: bool) -> tuple[bool, list[str]]:
    """After a hand is applied to the locked match: whether the match finishes now, and the
    match columns changed. Under confirmation the hand waits (``hand``), and the hand that
    ends the match makes the result wait (``result``) instead of finishing it."""
    mode = match.confirmation
    if mode not in (MATCH_END, EVERY_HAND):
        return over, []
    if over:
        match.confirmation_hold = HOLD_RESULT
    elif mode == EVERY_HAND:
        match.confirmation_hold = HOLD_HAND
    else:
        return False, []
    return False, ["confirmation_hold"]


def confirmation_gate_undo(match: Match) -> None:
    """A disputed result is frozen: nobody undoes it outside the dispute queue (409)."""
    if match.confirmation_hold == HOLD_DISPUTED:
        raise ApplicationError(
            _("The last result is disputed: resolve the dispute in the dispute queue."),
            code="result_disputed",
            rule=RULE,
            status=409,
        )


def confirmation_reset(match: Match) -> list[str]:
    """An undone hand takes its pending confirmation with it; the match columns changed."""
    if not match.confirmation_hold:
        return []
    match.confirmation_hold = HOLD_NONE
    return ["confirmation_hold"]
