"""Referee names: the name a director types, and the user name it is stored under.

A referee is a tournament-scoped identity (docs/security.md, "Referees"): a user row, only so
that ``Match.referee`` and ``Hand.recorded_by`` stay foreign keys to users. Its user name is
``ref:<tournament id>:<name>``, never the bare name, for two reasons:

* **No username oracle.** Before, the name was checked against every site login, so a
  director (anyone can become one through an invitation) learnt whether an account named X
  existed by trying to create a referee named X. Now the check is within the tournament's own
  referees, whose names its directors see anyway.
* **Names per tournament.** Two events may each have a referee "Ana" or "Mesa-1".

The separator ``:`` is one that Django's ``UnicodeUsernameValidator`` (``^[\\w.@+-]+\\Z``)
refuses, and every way to make a site account (the invitation sign-up, the admin,
``createsuperuser``) runs that validator: no account can ever hold a referee's user name, nor
a referee an account's.

Everything that shows a person goes through :func:`person_name` (or :func:`shown_username`),
which shows the typed name, never the prefix. Pure string functions: no query here.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from django.utils.translation import gettext_lazy

#: The namespace's first part and its separator (refused by the username validator).
REFEREE_USERNAME_PREFIX = "ref"
SEPARATOR = ":"

#: The longest name a director may type: the user column holds 150 characters, and
#: ``ref:`` + a tournament id (at most 19 digits, a bigint) + ``:`` take up to 24 of them.
REFEREE_NAME_MAX_LENGTH = 100

#: What a referee name may hold, on the page and in the API alike: ASCII letters, digits, ``-``
#: and ``_`` (the page's input ``pattern`` and Django's ``SlugField``). The name is a short
#: handle the director types and reads back in lists; the display name holds the person's
#: full name, with spaces and accents. The ``-`` is escaped: browsers compile an input's
#: ``pattern`` with the ``v`` flag, where a bare ``-`` in a class is a syntax error.
REFEREE_NAME_PATTERN = r"[A-Za-z0-9_\-]+"
_REFEREE_NAME = re.compile(rf"{REFEREE_NAME_PATTERN}\Z")

#: The rule a name breaks, naming the field: the API's and the page's refusal, and the page
#: input's ``title`` (which the browser adds to its "Please match the requested format.").
REFEREE_NAME_ALLOWED = gettext_lazy(
    "Referee name: only letters, digits, - and _ (no spaces or accents)."
)

_REFEREE_USERNAME = re.compile(
    rf"{re.escape(REFEREE_USERNAME_PREFIX + SEPARATOR)}(\d+){re.escape(SEPARATOR)}(.+)\Z", re.S
)


def referee_username_prefix(tournament_id: int) -> str:
    """``ref:<tournament id>:``: every referee user name of that tournament starts with it
    (the trailing separator keeps tournament 5's apart from tournament 50's)."""
    return f"{REFEREE_USERNAME_PREFIX}{SEPARATOR}{int(tournament_id)}{SEPARATOR}"


def referee_username(*, tournament_id: int, name: str) -> str:
    """The user name a referee named ``name`` has in tournament ``tournament_id``."""
    return referee_username_prefix(tournament_id) + name


def referee_name_of(username: str) -> str:
    """The name a director typed, from a referee's user name; any other user name (a site
    account, a referee identity made before names were per tournament) unchanged."""
    found = _REFEREE_USERNAME.match(username)
    return found.group(2) if found else username


def referee_name_normalized(name: str) -> str:
    """A typed name as it is stored: NFKC (as Django normalizes user names), no outer
    spaces."""
    return unicodedata.normalize("NFKC", name).strip()


def referee_name_allowed(name: str) -> bool:
    """Whether a typed (normalized) name holds only what :data:`REFEREE_NAME_PATTERN`
    allows."""
    return _REFEREE_NAME.match(name) is not None


def referee_name_key(name: str) -> str:
    """What makes two names the same referee name in one tournament: case does not count
    ("Ana" and "ana" are one name to a director)."""
    return referee_name_normalized(name).casefold()


def shown_username(user: Any) -> str:
    """A user's name as pages and the API show it: a referee's typed name, else the user
    name."""
    if user is None:
        return ""
    return referee_name_of(str(user.get_username()))


def person_name(user: Any) -> str:
    """How a person is named on a page: the full name (a referee's display name), else
    :func:`shown_username`."""
    if user is None:
        return ""
    full_name = getattr(user, "get_full_name", None)
    return str((full_name() if full_name else "") or shown_username(user))
