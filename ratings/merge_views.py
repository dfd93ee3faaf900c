"""Staff page of likely duplicate players, with a merge form (``ratings.merge``)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import permission_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from core.exceptions import ApplicationError
from dominoes.digits import parse_int
from ratings.merge import duplicate_groups, namesake_groups, players_merge
from tournament.models import Player


@staff_member_required
@permission_required("tournament.view_player", raise_exception=True)
@require_http_methods(["GET", "POST"])
def duplicates_page(request: HttpRequest) -> HttpResponse:
    """Staff who may view every player (drafts' too, as in the admin); merging asks for more
    (``ratings.merge.merge_allowed``). The staff flag alone opens nothing here."""
    if request.method == "POST":
        keep_id, other_id = request.POST.get("keep", ""), request.POST.get("other", "")
        keep_pk, other_pk = parse_int(keep_id), parse_int(other_id)
        keep = Player.objects.filter(pk=keep_pk).first() if keep_pk is not None else None
        other = Player.objects.filter(pk=other_pk).first() if other_pk is not None else None
        if keep is None or other is None:
            messages.error(request, _("Choose two existing players."))
        else:
            try:
                players_merge(
                    actor=request.user,
                    keep=keep,
                    other=other,
                    reason=request.POST.get("reason", "")[:500],
                )
            except ApplicationError as exc:
                messages.error(request, exc.message)
            else:
                messages.success(
                    request,
                    _("Merged player %(other)s into %(keep)s.")
                    % {"other": other_id, "keep": keep.name},
                )
        return redirect("ratings:player-duplicates")
    return render(
        request,
        "ratings/duplicates.html",
        {"groups": duplicate_groups(), "namesakes": namesake_groups()},
    )
