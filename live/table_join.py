"""The table QR (issue 15): ``/t/<slug>/table/<n>/``, one stable, non-secret address per
physical table for the whole event, printed on the table sheet.

Scanned by the referee whose credential (a session opened from their link, on their phone)
is assigned to the table's current match, it opens that match's referee page; scanned by
anyone else - a spectator, a player, another table's referee, a director - it opens the public
live view of the table's current match (or the live tables page when none is current). It
never issues, reveals or accepts a credential: a referee still signs in once with their own
link (docs/security.md).
"""

from __future__ import annotations

from django.db.models import Case, IntegerField, Value, When
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from live.scope import public_tournament_get
from scoring.models import Match
from tournament.context import principal_from_request
from tournament.models import Table


def table_current_match(*, tournament_id: int, number: int) -> Match | None:
    """The match at table ``number`` now: the one in progress (a match awaiting confirmation
    is still in progress), else the next scheduled one (one query)."""
    return (
        Match.objects.filter(
            tournament_id=tournament_id,
            table__number=number,
            status__in=[Match.Status.IN_PROGRESS, Match.Status.SCHEDULED],
        )
        .annotate(
            current=Case(
                When(status=Match.Status.IN_PROGRESS, then=Value(0)),
                default=Value(1),
                output_field=IntegerField(),
            )
        )
        .order_by("current", "id")
        .only("id", "referee_id", "status")
        .first()
    )


@never_cache
@require_GET
def table_join(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    tournament = public_tournament_get(slug=slug)  # drafts and unknown slugs: 404
    if not Table.objects.filter(tournament_id=tournament.id, number=number).exists():
        raise Http404("No such table.")
    match = table_current_match(tournament_id=tournament.id, number=number)
    referee = principal_from_request(request).referee
    # A finished event's QR is a public page: the short read a referee link keeps after the
    # finish (tournament.principal) is for the phone's last answer, not for scanning tables.
    if (
        match is not None
        and referee is not None
        and referee.tournament_id == tournament.id
        and match.referee_id == referee.pk
        and not referee.read_only
    ):
        return HttpResponseRedirect(reverse("scoring:match-referee", args=[match.pk]))
    if match is not None:
        return HttpResponseRedirect(reverse("live:match", args=[slug, match.pk]))
    return HttpResponseRedirect(reverse("live:tables", args=[slug]) + f"#table-{number}")
