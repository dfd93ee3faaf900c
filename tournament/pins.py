"""Player PINs for confirming results at the table (issue 15; docs/security.md).

A director may issue a player a 4-digit PIN at check-in (``entry_check_in``): shown once,
stored with Django's password hasher (``Entry.pin_hash``). A seat whose player has a PIN is
confirmed (or disputed) on the referee's phone only with that PIN; a PIN is checked against
its own seat's player only. Wrong PINs are counted per player (an atomic cache counter):
``PIN_MAX_FAILURES`` in ``PIN_FAILURE_WINDOW`` lock that player's PIN (429) until the window
passes or the director issues a new one. Four digits are a tap-guard between people at one
table, not a secret against an attacker with the database.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth.hashers import check_password, make_password
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from core.exceptions import ApplicationError, PermissionDeniedError
from dominoes.digits import parse_int
from tournament.models import Entry
from tournament.services import action_log_record, require_director, tournament_version_bump

PIN_LENGTH = 4
PIN_MAX_FAILURES = 5
PIN_FAILURE_WINDOW = 900  # seconds
RULE = "confirmation"


def _failures_key(entry_id: int) -> str:
    return f"pin-failures:{entry_id}"


@transaction.atomic
def entry_check_in(*, entry: Entry, actor: Any, issue_pin: bool) -> tuple[Entry, str | None]:
    """Check a player in; with ``issue_pin`` give them a new PIN (returned once, replacing
    any previous one, logged without the PIN)."""
    require_director(actor=actor, tournament=entry.tournament)
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    pin = None
    fields = ["checked_in", "checked_in_at", "updated_at"]
    if not entry.checked_in:
        entry.checked_in, entry.checked_in_at = True, timezone.now()
        action_log_record(
            tournament=entry.tournament,
            actor=actor,
            verb="entry.check_in",
            target=entry,  # names the player
        )
    if issue_pin:
        pin = f"{secrets.randbelow(10**PIN_LENGTH):0{PIN_LENGTH}d}"
        entry.pin_hash = make_password(pin)
        fields.append("pin_hash")
        cache.delete(_failures_key(entry.pk))
        action_log_record(
            tournament=entry.tournament, actor=actor, verb="entry.pin_issue", target=entry
        )
    entry.save(update_fields=fields)
    tournament_version_bump(tournament_id=entry.tournament_id)
    return entry, pin


def pin_check(entry: Entry, pin: str | None, seat: int, *, dispute: bool = False) -> bool:
    """True when the seat's player has a PIN and ``pin`` is it; False when they have none.
    Raises 403 when the PIN is needed and missing or wrong, 429 when it is locked. With
    ``dispute`` the missing-PIN message speaks of disputing (the code stays ``pin_required``)."""
    if not entry.pin_hash:
        return False
    field = {"pin": [_("Seat %(seat)s's player has a PIN: type it.") % {"seat": seat}]}
    key = _failures_key(entry.pk)
    if int(cache.get(key, 0) or 0) >= PIN_MAX_FAILURES:
        raise ApplicationError(
            _("Too many wrong PINs for this player: ask the director."),
            code="pin_locked",
            rule=RULE,
            status=429,
            fields=field,
        )
    if not pin:
        message = (
            _("This player needs their PIN to dispute.")
            if dispute
            else _("This player confirms with their PIN.")
        )
        raise PermissionDeniedError(message, code="pin_required", fields=field)
    if not (parse_int(pin) is not None and len(pin) == PIN_LENGTH) or not (
        check_password(pin, entry.pin_hash)
    ):
        if not cache.add(key, 1, PIN_FAILURE_WINDOW):
            try:
                cache.incr(key)
            except ValueError:  # expired in between
                cache.add(key, 1, PIN_FAILURE_WINDOW)
        raise PermissionDeniedError(_("Wrong PIN."), code="bad_pin", fields=field)
    cache.delete(key)
    return True
