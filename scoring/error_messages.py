"""The referee's words for the errors the API answers, by error code, in the page's language.

The engine's messages are English and name seats by letter or number (``Seat 1 (B)``); they
stay as they are for the API, logs and tests. A page shows instead the message of this table
for the error's ``code``, with its parameters filled in by the page from what it already knows
(the seat a field names, the designated poser, the heaviest count), so a seat always reads
"A · Ana" and Spanish pages read Spanish. Codes missing here fall back to the API's message.

Parameters: ``%(seat)s`` the seat the error's field names (``counts[2]`` → the seat at index
2; ``poser`` → the seat that must pose), ``%(max)s`` the heaviest possible count,
``%(tile)s`` the forced pose tile.
"""

from __future__ import annotations

import json

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

ERROR_MESSAGES: dict[str, Promise] = {
    # Section 9: the hand record (engine codes).
    "wrong_poser": _("%(seat)s must pose this hand."),
    "wrong_pose_tile": _("This hand is a forced pose: the poser must lead %(tile)s."),
    "tile_not_in_set": _("That tile is not in play in this deal."),
    "invalid_tile": _("Choose the tile that was posed."),
    "unknown_seat": _("Choose a player at this table."),
    "winner_required": _("Tap who dominoed."),
    "winner_count_not_zero": _("%(seat)s dominoed, so their count must be 0."),
    "counts_required": _("Enter every player's count."),
    "count_out_of_range": _("%(seat)s: a count is a number from 0 to %(max)s."),
    "negative_count": _("%(seat)s: a count is a number from 0 to %(max)s."),
    "wrong_count_length": _("Enter one count for each player."),
    "llave_not_allowed": _("This ruleset has no llave."),
    "llave_on_block": _("A blocked win is never a llave; only a domino can be."),
    "block_names_winner": _("A blocked hand names no winner: the lowest count decides."),
    "sporting_not_allowed": _("Sporting is not allowed in this event."),
    "sporting_on_free_pose": _("Sporting only applies to a forced 6-6 pose."),
    "match_over": _("The match is over; no further hands are accepted."),
    "malformed": _("Something in the form is not valid; check every field."),
    "unknown_field": _("The form sent a field the server does not know; reload the page."),
    "log_mismatch": _("The outcome does not match the play log."),
    # The recording service.
    "stale_hand_number": _(
        "The match changed on another device. The page now shows the current state; check it "
        "and record again if needed."
    ),
    "conflict": _(
        "The match changed on another device. The page now shows the current state; check it "
        "and record again if needed."
    ),
    "match_not_in_progress": _("The match is not in progress: no hand can be recorded now."),
    "match_closed": _("The match is closed: ask the director."),
    "match_void": _("The match is void."),
    "tournament_finished": _("The tournament is finished."),
    "not_authenticated": _("You are signed out. Open your referee link again."),
    "not_match_referee": _("You do not referee this match."),
    "not_director": _("Only a director of this tournament may do this."),
    "reason_required": _("Say why the hand is undone."),
    "no_hand": _("There is no hand to undo."),
    "idempotency_key_reused": _(
        "This submission was already sent with other values. Tap Clear and record the hand again."
    ),
    "bad_idempotency_key": _("The page sent a bad submission key; reload the page."),
    "throttled": _("Too many requests: wait a moment and try again."),
}


def error_messages_json() -> str:
    """The table in the active language, as JSON for the page (``data-error-messages``)."""
    return json.dumps({code: str(message) for code, message in ERROR_MESSAGES.items()})
