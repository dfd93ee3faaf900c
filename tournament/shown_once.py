"""A key a director's page shows once, across a POST-redirect-GET.

The pages that issue a secret (the Referees page's credential, the Directors page's
invitation, the table sheets' referee links) answer their POST with a redirect, so that a
reload of the page that shows the key is a GET: it never offers to send the form again, which
issued another credential (or, on the sheets with "retire earlier links", revoked the links
just handed out). The key waits in the director's server-side session (never in a URL, nor in
a message, which may travel in a cookie) for the one page view that shows it, which takes it
out; a reload shows the page without it. A key left there (the redirect never followed) is not
shown after :data:`MAX_AGE` seconds: it would read as just issued.
"""

from __future__ import annotations

import time
from typing import Any, Final

from django.http import HttpRequest

SESSION_PREFIX: Final = "shown_once:"
MAX_AGE: Final = 600  # seconds between the POST and the page view that shows the key


def shown_once_keep(request: HttpRequest, slot: str, value: dict[str, Any]) -> None:
    """Keep ``value`` (JSON: ids and the key) for the next :func:`shown_once_take` of
    ``slot`` in this session; a later keep of the same slot replaces it."""
    request.session[SESSION_PREFIX + slot] = {"at": time.time(), "value": value}


def shown_once_take(request: HttpRequest, slot: str) -> dict[str, Any] | None:
    """What :func:`shown_once_keep` kept in ``slot``, removed from the session (a second call
    answers ``None``); ``None`` too when nothing was kept or it is older than :data:`MAX_AGE`."""
    kept = request.session.pop(SESSION_PREFIX + slot, None)
    if not isinstance(kept, dict):
        return None
    at, value = kept.get("at"), kept.get("value")
    if not isinstance(at, (int, float)) or not isinstance(value, dict):
        return None
    if not 0 <= time.time() - at <= MAX_AGE:
        return None
    return value
