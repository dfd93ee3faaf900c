"""The one place that decides which tournament a public page, API call or socket may see.

Every live view, API endpoint and consumer resolves its tournament here (STYLE.md §7): by slug,
and only when the tournament is public. A draft is invisible to spectators (404, or a refused
socket), whatever else the URL says. The lookup reads three columns with one indexed query, so
the conditional-GET path (ETag from ``version``) costs one small query and no rendering.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404

from tournament.models import Tournament

PUBLIC_STATUSES = (
    Tournament.Status.REGISTRATION,
    Tournament.Status.RUNNING,
    Tournament.Status.FINISHED,
)


@dataclass(frozen=True, slots=True)
class PublicTournament:
    """What the live layer needs to know before it reads anything else."""

    id: int
    slug: str
    version: int


def public_tournament_find(*, slug: str) -> PublicTournament | None:
    """The public tournament with ``slug``, or ``None`` (missing or still a draft)."""
    row = (
        Tournament.objects.filter(slug=slug, status__in=PUBLIC_STATUSES)
        .values_list("id", "version")
        .first()
    )
    if row is None:
        return None
    return PublicTournament(id=row[0], slug=slug, version=row[1])


def public_tournament_get(*, slug: str) -> PublicTournament:
    found = public_tournament_find(slug=slug)
    if found is None:
        raise Http404("No such tournament.")
    return found


def tournament_version(*, tournament_id: int) -> int:
    """The current version (bumped in every recording transaction); 0 if the row is gone."""
    version = Tournament.objects.filter(pk=tournament_id).values_list("version", flat=True).first()
    return int(version or 0)
