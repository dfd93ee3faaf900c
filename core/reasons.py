"""Reasons the services write into the record in fixed words, shown in the reader's language.

A director's or referee's own reason is kept as typed. Some services prefix it with what
happened ("dispute: ..." when a corrected dispute undoes a hand, "Time called (T3). ..." on the
matches a call of time ends); those stored prefixes are English data, so pages swap them for
the reader's words here rather than store words in whichever language the writer used.
"""

from __future__ import annotations

from django.utils.translation import pgettext


def _words(prefix: str) -> str:
    """A stored prefix in the active language (each one literal, for the catalogue)."""
    if prefix == "dispute: ":
        return pgettext("reason", "dispute: ")
    if prefix == "Time called (T3). ":
        return pgettext("reason", "Time called (T3). ")
    return pgettext("reason", "Time called (T3).")


# The stored prefixes, longest first.
_PREFIXES = ("dispute: ", "Time called (T3). ", "Time called (T3).")


def reason_text(stored: str) -> str:
    """``stored`` with a service's fixed prefix in the active language."""
    for prefix in _PREFIXES:
        if stored.startswith(prefix):
            return _words(prefix) + stored[len(prefix) :]
    return stored
