"""The fast path of the one tournament context (``tournament.context``) for public reads: which
tournament a public page, API call or socket may see.

It applies the context's rule for the anonymous principal (``context.PUBLIC_STATUSES``: drafts
are invisible). Every live view, API endpoint and consumer resolves its tournament here
(STYLE.md §7): by slug, and only when the tournament is public. A draft is invisible to
spectators (404, or a refused socket), whatever else the URL says. The lookup reads two
columns through the unique slug index with one query, so the conditional-GET path (ETag
from ``version``) costs one small query and no rendering. It is the hottest query of the
site (every spectator's poll and re-fetch), so its SQL is built once from the model's
metadata instead of compiling a queryset per request, which profiling showed was most of a
304's cost.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache

from django.db import connection
from django.http import Http404

from tournament import context
from tournament.models import Tournament

# The anonymous principal's visibility rule of the one tournament context (a draft is seen only
# by its directors): this module is that context's fast path for public reads.
PUBLIC_STATUSES = context.PUBLIC_STATUSES


@dataclass(frozen=True, slots=True)
class PublicTournament:
    """What the live layer needs to know before it reads anything else."""

    id: int
    slug: str
    version: int


# Public tournaments this process looked up recently: slug -> (when, what). A spectator's
# conditional GET may use an answer up to ``LIVE_VERSION_MAX_AGE`` seconds old (1 s), which
# takes the database off the hottest path (a thousand phones polling) at the price of a
# second's staleness for clients that know nothing newer; live.js sends the version it has
# just been told about (``X-Live-Version``), and an older answer is never used for it.
RECENT: dict[str, tuple[float, PublicTournament]] = {}
RECENT_SIZE = 1024


@cache
def _find_sql() -> str:
    meta = Tournament._meta
    quote = connection.ops.quote_name
    column = {f.name: quote(str(f.column)) for f in meta.concrete_fields}
    statuses = ", ".join(f"'{s.value}'" for s in PUBLIC_STATUSES)  # fixed literals, not input
    return (
        f"SELECT {column['id']}, {column['version']} FROM {quote(meta.db_table)} "  # noqa: S608
        f"WHERE {column['slug']} = %s AND {column['status']} IN ({statuses})"
    )


def public_tournament_find(
    *, slug: str, max_age: float = 0.0, at_least: int | None = None
) -> PublicTournament | None:
    """The public tournament with ``slug``, or ``None`` (missing or still a draft).

    ``max_age`` > 0 accepts an answer this process read that many seconds ago or less, unless
    it is older than version ``at_least`` (the version a client has just been told about, so
    it never re-fetches into the past). See :data:`RECENT`.
    """
    if max_age > 0:
        hit = RECENT.get(slug)
        if (
            hit is not None
            and time.monotonic() - hit[0] < max_age
            and (at_least is None or hit[1].version >= at_least)
        ):
            return hit[1]
    with connection.cursor() as cursor:
        cursor.execute(_find_sql(), [slug])
        row = cursor.fetchone()
    if row is None:
        RECENT.pop(slug, None)
        return None
    found = PublicTournament(id=row[0], slug=slug, version=row[1])
    if len(RECENT) >= RECENT_SIZE:
        RECENT.clear()
    RECENT[slug] = (time.monotonic(), found)
    return found


def public_tournament_get(*, slug: str) -> PublicTournament:
    found = public_tournament_find(slug=slug)
    if found is None:
        raise Http404("No such tournament.")
    return found


def tournament_version(*, tournament_id: int) -> int:
    """The current version (bumped in every recording transaction); 0 if the row is gone."""
    version = Tournament.objects.filter(pk=tournament_id).values_list("version", flat=True).first()
    return int(version or 0)
