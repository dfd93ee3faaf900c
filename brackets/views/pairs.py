"""``pairs/``: the director's page of a pairs event (T9, T11).

Make the event a pairs event (under a partnership ruleset), register a partnership (two
players, new or already registered), import partnerships from a CSV (the players file plus a
``pair`` column), see every partnership with its players, and substitute a player (T11).
Every POST calls one service; the page shows its error naming the rule. The substitute form is
offered only on the rows the service would take it for
(:func:`brackets.presenters.pair_substitutes.partnership_rows`); the others say why not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from brackets.csv_import import MAX_LENGTHS, player_key
from brackets.forms import CheckInForm
from brackets.pairs_csv import parse_pairs_csv
from brackets.presenters.pair_substitutes import partnership_rows
from brackets.services.pairs import pairs_import_csv, partnership_substitute
from brackets.views.base import DirectorTournamentMixin, error_text
from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from tournament.models import Entry, Partnership, Player
from tournament.partnerships import (
    is_partnership_ruleset,
    partnership_check_in,
    partnership_register,
    tournament_entry_format_set,
)
from tournament.services import player_create

# The players' limits are tournament.Player's (brackets.csv_import.MAX_LENGTHS).
NAME_MAX, CLUB_MAX = MAX_LENGTHS["name"], MAX_LENGTHS["club"]
PARTNERSHIP_NAME_MAX = Partnership._meta.get_field("name").max_length


class PairRegisterForm(forms.Form):
    name = forms.CharField(
        label=gettext_lazy("Partnership name (optional)"),
        max_length=PARTNERSHIP_NAME_MAX,
        required=False,
    )
    player_a = forms.CharField(label=gettext_lazy("First player"), max_length=NAME_MAX)
    club_a = forms.CharField(label=gettext_lazy("Club"), max_length=CLUB_MAX, required=False)
    player_b = forms.CharField(label=gettext_lazy("Second player"), max_length=NAME_MAX)
    club_b = forms.CharField(label=gettext_lazy("Club"), max_length=CLUB_MAX, required=False)
    check_in = forms.BooleanField(label=gettext_lazy("Check both in"), required=False, initial=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Beside the CSV form on one page: its own element ids, the same field names.
        kwargs.setdefault("auto_id", "id_pair_%s")
        super().__init__(*args, **kwargs)


class PairSubstituteForm(forms.Form):
    leaving = forms.IntegerField(label=gettext_lazy("Player leaving"))
    player = forms.CharField(label=gettext_lazy("Substitute"), max_length=NAME_MAX)
    club = forms.CharField(label=gettext_lazy("Club"), max_length=CLUB_MAX, required=False)
    reason = forms.CharField(label=gettext_lazy("Reason (T11)"), max_length=500)


class PairsCsvForm(forms.Form):
    csv_text = forms.CharField(
        label=gettext_lazy("CSV: the players columns plus a 'pair' column"),
        widget=forms.Textarea(attrs={"rows": 6}),
        max_length=2 * 1024 * 1024,
    )
    check_in = forms.BooleanField(label=gettext_lazy("Check everyone in"), required=False)


def _player(actor: Any, tournament_id: int, name: str, club: str) -> Player:
    """The player entered here with that name and club, else a known player, else a new one."""
    key = player_key(name, club)
    for entry in Entry.objects.filter(tournament_id=tournament_id).select_related("player"):
        if player_key(entry.player.name, entry.player.club) == key:
            return entry.player
    known = [
        p
        for p in Player.objects.filter(name__iexact=name.strip())
        if player_key(p.name, p.club) == key
    ]
    if len(known) == 1:
        return known[0]
    return player_create(actor=actor, name=name.strip(), club=club.strip())


@dataclass(frozen=True, slots=True)
class SubstituteProblem:
    """A refused substitution, shown on its partnership's row with what was typed (T11)."""

    pair_id: int
    message: str
    data: dict[str, str]


class PairsPage(DirectorTournamentMixin):
    """The partnerships page's context, for its own view and the forms posted elsewhere."""

    nav = "pairs"

    def context(self, **extra: Any) -> dict[str, Any]:
        return self.base_context(
            rows=partnership_rows(tournament=self.tournament),
            is_pairs=self.tournament.entry_format == "pairs",
            partnership_ruleset=is_partnership_ruleset(self.tournament.ruleset),
            register_form=extra.pop("register_form", None) or PairRegisterForm(),
            csv_form=extra.pop("csv_form", None) or PairsCsvForm(),
            name_max=NAME_MAX,
            club_max=CLUB_MAX,
            **extra,
        )


class PairsView(PairsPage):
    def get(self, request: HttpRequest, slug: str) -> HttpResponse:
        return render(request, "brackets/pairs.html", self.context())

    def post(self, request: HttpRequest, slug: str) -> HttpResponse:
        action = request.POST.get("action", "")
        here = reverse("brackets:pairs", args=[self.tournament.slug])
        if action == "format":
            self.run(
                lambda: tournament_entry_format_set(
                    tournament=self.tournament, actor=request.user, entry_format="pairs"
                ),
                success=_("This is now a pairs event (T9)."),
            )
            return self.back(here)
        if action == "register":
            form = PairRegisterForm(request.POST)
            if not form.is_valid():
                return render(
                    request, "brackets/pairs.html", self.context(register_form=form), status=400
                )
            d = form.cleaned_data

            def register() -> Partnership:
                a = _player(request.user, self.tournament.pk, d["player_a"], d["club_a"])
                b = _player(request.user, self.tournament.pk, d["player_b"], d["club_b"])
                return partnership_register(
                    tournament=self.tournament,
                    actor=request.user,
                    players=[a, b],
                    name=d["name"],
                    check_in=d["check_in"],
                )

            done = self.run(
                register, success=lambda p: _("Partnership %(n)s registered.") % {"n": p.number}
            )
            if done is None:
                return render(
                    request, "brackets/pairs.html", self.context(register_form=form), status=400
                )
            return self.back(here)
        if action == "import":
            csv_form = PairsCsvForm(request.POST)
            if not csv_form.is_valid():
                return render(
                    request, "brackets/pairs.html", self.context(csv_form=csv_form), status=400
                )
            entered = tuple(
                player_key(n, c)
                for n, c in Entry.objects.filter(tournament=self.tournament).values_list(
                    "player__name", "player__club"
                )
            )
            report = parse_pairs_csv(csv_form.cleaned_data["csv_text"], entered=entered)
            if report.all_errors:
                return render(
                    request,
                    "brackets/pairs.html",
                    self.context(csv_form=csv_form, csv_errors=report.all_errors),
                    status=400,
                )
            imported = self.run(
                lambda: pairs_import_csv(
                    tournament=self.tournament,
                    actor=request.user,
                    report=report,
                    check_in=csv_form.cleaned_data["check_in"],
                ),
                success=lambda ps: _("%(n)s partnerships imported.") % {"n": len(ps)},
            )
            if imported is None:
                return render(
                    request, "brackets/pairs.html", self.context(csv_form=csv_form), status=400
                )
            return self.back(here)
        raise Http404("Unknown action.")


class PairCheckInView(DirectorTournamentMixin):
    """POST ``pairs/<id>/check-in/``: check both players of a partnership in or out (T9)."""

    def post(self, request: HttpRequest, slug: str, pair_id: int) -> HttpResponse:
        partnership = self.get_partnership(pair_id)
        form = CheckInForm(request.POST)
        here = reverse("brackets:pairs", args=[self.tournament.slug]) + f"#pair-{partnership.pk}"
        if not form.is_valid():
            return HttpResponseRedirect(here)
        value = form.cleaned_data["checked_in"]
        self.run(
            lambda: partnership_check_in(
                partnership=partnership, actor=request.user, checked_in=value
            ),
            success=(
                _("Partnership %(n)s checked in.") if value else _("Partnership %(n)s checked out.")
            )
            % {"n": partnership.number},
        )
        return HttpResponseRedirect(here)


class PairSubstituteView(PairsPage):
    """POST ``pairs/<id>/substitute/``: replace one player of a partnership (T11). A refusal
    answers the partnerships page with its status (400, or 409 while the partnership has a
    match to play) and the reason on the partnership's row; nothing is written."""

    def post(self, request: HttpRequest, slug: str, pair_id: int) -> HttpResponse:
        partnership = self.get_partnership(pair_id)
        form = PairSubstituteForm(request.POST)
        typed = {k: str(request.POST.get(k, "")) for k in PairSubstituteForm.base_fields}

        def refused(message: str, status: int) -> HttpResponse:
            problem = SubstituteProblem(pair_id=partnership.pk, message=message, data=typed)
            return render(
                request,
                "brackets/pairs.html",
                self.context(substitute_problem=problem),
                status=status,
            )

        if not form.is_valid():
            fields = "; ".join(
                f"{form.fields[name].label}: {' '.join(str(e) for e in errors)}"
                for name, errors in form.errors.items()
            )
            return refused(
                _("Choose the player leaving, name the substitute and give a reason (T11).")
                + f" ({fields})",
                400,
            )
        d = form.cleaned_data
        leaving = self.get_entry(d["leaving"])
        try:
            # The substitute's Player row is created only if the substitution is taken.
            with transaction.atomic():
                partnership_substitute(
                    partnership=partnership,
                    actor=request.user,
                    leaving=leaving,
                    player=_player(request.user, self.tournament.pk, d["player"], d["club"]),
                    reason=d["reason"],
                )
        except (NotFoundError, PermissionDeniedError):
            raise
        except ApplicationError as exc:
            return refused(error_text(exc), exc.status_code)
        messages.success(request, _("Substitute recorded; the partnership keeps its record (T11)."))
        return self.back(reverse("brackets:pairs", args=[self.tournament.slug]))
