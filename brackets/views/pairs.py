"""``pairs/``: the director's page of a pairs event (T9, T11).

Make the event a pairs event (under a partnership ruleset), register a partnership (two
players, new or already registered), import partnerships from a CSV (the players file plus a
``pair`` column), see every partnership with its players, and substitute a player (T11).
Every POST calls one service; the page shows its error naming the rule. The substitute form is
offered only on the rows the service would take it for
(:func:`brackets.presenters.pair_substitutes.partnership_rows`); the others say why not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from brackets.csv_import import MAX_BYTES, MAX_LENGTHS, PlayerRow, check_player, player_key
from brackets.forms import CheckInForm, CsvUploadForm, SameNameAnswerForm, SameNameWarning
from brackets.pairs_csv import parse_pairs_csv
from brackets.presenters.pair_substitutes import partnership_rows
from brackets.services.pairs import pairs_import_csv, partnership_substitute
from brackets.services.registration import (
    SameNameUnconfirmedError,
    TypedPlayer,
    partnership_register_typed,
)
from brackets.views.base import DirectorTournamentMixin, error_text, namesakes_notice
from core.exceptions import ApplicationError, NotFoundError, PermissionDeniedError
from core.form_words import reason_field
from tournament.models import Entry, Partnership
from tournament.partnerships import (
    is_partnership_ruleset,
    partnership_check_in,
    tournament_entry_format_set,
)

# The players' limits are tournament.Player's (brackets.csv_import.MAX_LENGTHS).
NAME_MAX, CLUB_MAX = MAX_LENGTHS["name"], MAX_LENGTHS["club"]
PARTNERSHIP_NAME_MAX = Partnership._meta.get_field("name").max_length


class PairRegisterForm(SameNameAnswerForm):
    name_fields: ClassVar[Mapping[str, str]] = {"player_a": "_a", "player_b": "_b"}
    entered_ok: ClassVar[bool] = True  # a player registered on the Players page may be paired

    name = forms.CharField(
        label=gettext_lazy("Partnership name (optional)"),
        max_length=PARTNERSHIP_NAME_MAX,
        required=False,
    )
    player_a = forms.CharField(label=gettext_lazy("First player"), max_length=NAME_MAX)
    club_a = forms.CharField(label=gettext_lazy("Club"), max_length=CLUB_MAX, required=False)
    # The entered rating, as on the Players page and in the CSV (checked by check_player).
    rating_a = forms.CharField(
        label=gettext_lazy("Rating"),
        max_length=100,
        required=False,
        help_text=gettext_lazy("0 to 9999; optional."),
    )
    player_b = forms.CharField(label=gettext_lazy("Second player"), max_length=NAME_MAX)
    club_b = forms.CharField(label=gettext_lazy("Club"), max_length=CLUB_MAX, required=False)
    rating_b = forms.CharField(
        label=gettext_lazy("Rating"),
        max_length=100,
        required=False,
        help_text=gettext_lazy("0 to 9999; optional."),
    )
    # Off, as on every form that enters players: ticked, it says both are here (why:
    # docs/director-guide.md, section 2).
    check_in = forms.BooleanField(label=gettext_lazy("Check both in"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Beside the CSV form on one page: its own element ids, the same field names.
        kwargs.setdefault("auto_id", "id_pair_%s")
        super().__init__(*args, **kwargs)

    def partners(self) -> list[TypedPlayer] | None:
        """Both partners checked by the CSV row rules (``check_player``), with the answers to
        a same-name warning; ``None`` with every problem added under its field. Call after
        ``is_valid``."""
        d = self.cleaned_data
        partners = []
        for slot in ("a", "b"):
            row, errors = check_player(
                {
                    "name": d[f"player_{slot}"],
                    "club": d[f"club_{slot}"],
                    "rating": d[f"rating_{slot}"],
                }
            )
            for error in errors:
                target = {"name": "player", "club": "club", "rating": "rating"}[error.field]
                target = f"{target}_{slot}"
                self.add_error(target, f"{self.fields[target].label}: {error.reason}")
            answer = self.same_name_answer(f"player_{slot}")
            if row is not None and answer is not None:
                partners.append(TypedPlayer(row, same_as=answer[0], different_from=answer[1]))
        return partners if len(partners) == 2 and not self.errors else None


class PairSubstituteForm(SameNameAnswerForm):
    """A substitute typed by name (T11), with the answer to a same-name warning (the Register
    form's question: the known player, or a different person)."""

    name_fields: ClassVar[Mapping[str, str]] = {"player": ""}
    entered_ok: ClassVar[bool] = True  # as on Register: a player entered here may be named

    leaving = forms.IntegerField(label=gettext_lazy("Player leaving"))
    player = forms.CharField(label=gettext_lazy("Substitute"), max_length=NAME_MAX)
    club = forms.CharField(label=gettext_lazy("Club"), max_length=CLUB_MAX, required=False)
    reason = reason_field(label=gettext_lazy("Reason (T11)"))

    def substitute(self) -> TypedPlayer | None:
        """The substitute typed, with the answer to a same-name warning; ``None`` with an
        error under ``player`` for a bad answer. Call after ``is_valid``."""
        answer = self.same_name_answer("player")
        if answer is None:
            return None
        d = self.cleaned_data
        row = PlayerRow(0, d["player"].strip(), club=d["club"].strip())
        return TypedPlayer(row, same_as=answer[0], different_from=answer[1])


class PairsCsvForm(CsvUploadForm):
    """A pairs CSV (T9) as a file, as the players import takes it, or pasted."""

    csv_text = forms.CharField(
        label=gettext_lazy("CSV: the players columns plus a 'pair' column"),
        help_text=gettext_lazy("Or paste the file's text here."),
        widget=forms.Textarea(attrs={"rows": 6}),
        max_length=MAX_BYTES,
        required=False,
    )
    check_in = forms.BooleanField(label=gettext_lazy("Check everyone in"), required=False)
    missing = gettext_lazy("Choose a CSV file or paste its text.")


@dataclass(frozen=True, slots=True)
class SubstituteProblem:
    """A refused substitution, shown on its partnership's row with what was typed (T11), or
    the same-name question its substitute's name raised (``same_name``; no ``message``)."""

    pair_id: int
    message: str
    data: dict[str, str]
    same_name: SameNameWarning | None = None


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
            partners = form.partners() if form.is_valid() else None
            if partners is None:
                return render(
                    request, "brackets/pairs.html", self.context(register_form=form), status=400
                )
            d = form.cleaned_data
            try:
                done = self.run(
                    lambda: partnership_register_typed(
                        tournament=self.tournament,
                        actor=request.user,
                        players=partners,
                        name=d["name"],
                        check_in=d["check_in"],
                    ),
                    success=lambda p: _("Partnership %(n)s registered.") % {"n": p.number},
                    reraise=(SameNameUnconfirmedError,),
                    form=form,
                )
            except SameNameUnconfirmedError as exc:
                # A question, not an error: the form again, with the known players listed.
                warnings = form.same_name_warnings(exc.candidates)
                return render(
                    request,
                    "brackets/pairs.html",
                    self.context(register_form=form, same_name=warnings),
                )
            if done is None:
                return render(
                    request, "brackets/pairs.html", self.context(register_form=form), status=400
                )
            return self.back(here)
        if action == "import":
            csv_form = PairsCsvForm(request.POST, request.FILES)
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
            report = parse_pairs_csv(csv_form.cleaned_data["content"], entered=entered)
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
                success=lambda ps: _("%(n)s partnerships imported.") % {"n": len(ps.partnerships)},
            )
            if imported is None:
                return render(
                    request, "brackets/pairs.html", self.context(csv_form=csv_form), status=400
                )
            namesakes_notice(request, imported.namesakes)
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

        def answer(status: int, message: str = "", **extra: Any) -> HttpResponse:
            problem = SubstituteProblem(
                pair_id=partnership.pk, message=message, data=typed, **extra
            )
            return render(
                request,
                "brackets/pairs.html",
                self.context(substitute_problem=problem),
                status=status,
            )

        substitute = form.substitute() if form.is_valid() else None
        if substitute is None:
            # An answer's own inputs (same_as, warned) have no label: they answer "Substitute".
            fields = "; ".join(
                f"{form.fields[name].label or form.fields['player'].label}: "
                + " ".join(str(e) for e in errors)
                for name, errors in form.errors.items()
            )
            return answer(
                400,
                _("Choose the player leaving, name the substitute and give a reason (T11).")
                + f" ({fields})",
            )
        d = form.cleaned_data
        leaving = self.get_entry(d["leaving"])
        try:
            partnership_substitute(
                partnership=partnership,
                actor=request.user,
                leaving=leaving,
                player=substitute,
                reason=d["reason"],
            )
        except SameNameUnconfirmedError as exc:
            # A question, not an error (as on Register): the form again, the players listed.
            return answer(200, same_name=form.same_name_warnings(exc.candidates)["player"])
        except (NotFoundError, PermissionDeniedError):
            raise
        except ApplicationError as exc:
            return answer(exc.status_code, error_text(exc))
        messages.success(request, _("Substitute recorded; the partnership keeps its record (T11)."))
        return self.back(reverse("brackets:pairs", args=[self.tournament.slug]))
