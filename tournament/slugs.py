"""A tournament's slug, the short name in its links (``/live/<slug>/``): the one rule.

New slugs are lowercase (what is typed is lowercased: ``UPPER-Case`` becomes ``upper-case``),
hold only ASCII letters, digits and hyphens, are unique whatever their case, and are not one
of the words the site's own paths use (``/director/new/`` sits beside
``/director/tournaments/<slug>/``). Slugs stored before this rule are left as they are.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

from core.exceptions import ApplicationError

#: Words of the site's URL space (its literal path segments) and verbs a page may use one day.
RESERVED_SLUGS = frozenset(
    {
        *("new", "add", "create", "edit", "delete", "admin", "api", "static", "media"),
        *("live", "director", "tournaments", "circuits", "players", "schema", "docs", "me"),
        *("ref", "referee", "invite", "accounts", "auth", "i18n", "log", "t"),
    }
)

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")


def tournament_slug_normalized(slug: str) -> str:
    """A typed slug as it is stored: no outer spaces, lowercase."""
    return slug.strip().lower()


def tournament_slug_check(slug: str) -> str:
    """``slug`` normalized, or :class:`ApplicationError` naming the field ``slug``: only
    lowercase letters, digits and single hyphens between them; not a reserved word. Whether
    it is taken is the caller's check (:func:`tournament_slug_taken_error`)."""
    value = tournament_slug_normalized(slug)
    if not _SLUG.match(value):
        message = _(
            "Short name in links: only letters, digits and hyphens (no spaces, underscores "
            "or accents; a hyphen between two of them)."
        )
        raise ApplicationError(message, code="invalid_slug", fields={"slug": [message]})
    if value in RESERVED_SLUGS:
        message = _(
            "Short name in links: %(slug)s is a word the site's own links use; choose another."
        ) % {"slug": repr(value)}
        raise ApplicationError(message, code="reserved_slug", fields={"slug": [message]})
    return value


def tournament_slug_taken_error(slug: str) -> ApplicationError:
    """The refusal of a slug another tournament holds (whatever its case): the service's, and
    the create form's before it calls the service."""
    return ApplicationError(
        _("Short name in links: %(slug)r is another tournament's; choose another.")
        % {"slug": slug},
        code="slug_taken",
        fields={"slug": [_("Taken.")]},
    )


__all__ = [
    "RESERVED_SLUGS",
    "tournament_slug_check",
    "tournament_slug_normalized",
    "tournament_slug_taken_error",
]
