"""A director's interventions on one match: forfeit (T7), result override, and replacing a
no-show (T7). Each page asks for a reason, shows what will happen and asks to confirm before
it calls the service; a refusal names its rule.

``rounds/<round_id>/matches/<match_id>/<action>/`` with ``action`` one of ``forfeit``,
``override``, ``replace``. The match must belong to that round of this tournament (404).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from brackets.engine import BracketError
from brackets.forms import name_the_rules
from brackets.models import Round, RoundMatch
from brackets.selectors.replacements import ReplacementCandidate, replacement_candidates
from brackets.services import round_seat_replace
from brackets.views.base import DirectorTournamentMixin, error_text
from core.choice_labels import choice_label, choice_phrase
from core.exceptions import ApplicationError, ConflictError, NotFoundError, PermissionDeniedError
from core.form_words import reason_field
from core.result_readers import results_built_on
from scoring.engine import Ruleset
from scoring.models import Match, Seat
from scoring.presenters.match import SEAT_LETTERS, ruleset_of
from scoring.presenters.partnership import SideView, partnership_sides
from scoring.services import (
    match_forfeit,
    match_result_override,
    override_placings,
    override_ruleset,
)
from tournament.context import STATUS_GATES, Action, require_status
from tournament.models import Tournament

# The rule each action answers to, named in any refusal that does not name its own.
ACTION_RULES = {"forfeit": "T7", "override": "T4", "replace": "T7"}
TITLES = {
    "forfeit": gettext_lazy("Record a forfeit"),
    "override": gettext_lazy("Override the result"),
    "replace": gettext_lazy("Replace a no-show"),
}
OPEN = (Match.Status.SCHEDULED, Match.Status.IN_PROGRESS)
#: A placing at the table as the pages write it (T4: "placing at the table (1st…4th)").
PLACINGS = {
    1: gettext_lazy("1st"),
    2: gettext_lazy("2nd"),
    3: gettext_lazy("3rd"),
    4: gettext_lazy("4th"),
}
#: The lifecycle gate each action's service applies (tournament.context): forfeit and override
#: decide a match (``_director_match``), a replacement manages the round.
ACTION_GATES = {
    "forfeit": Action.DECIDE_MATCH,
    "override": Action.DECIDE_MATCH,
    "replace": Action.MANAGE,
}


def finished_note(match: Match, seats: list[Seat]) -> str:
    """What an override replaces: "This match is already finished (played to the end): A 6,
    B 2, C 0, D 0; places A 1, B 2, C 3, D 4. An override replaces this result." Empty while
    open."""
    if match.status != Match.Status.FINISHED:
        return ""
    if match.end_reason == Match.EndReason.NORMAL:
        how = _("played to the end")  # the choice's label, "Normal", reads oddly here
    elif match.end_reason:
        how = choice_phrase(Match.EndReason, match.end_reason)
    else:
        how = choice_label(Match.Status, match.status).lower()
    scores = ", ".join(f"{SEAT_LETTERS[s.seat]} {s.points}" for s in seats)
    places = ", ".join(
        f"{SEAT_LETTERS[s.seat]} {'—' if s.placing is None else s.placing}" for s in seats
    )
    return _(
        "This match is already finished (%(how)s): %(scores)s; places %(places)s. An "
        "override replaces this result."
    ) % {"how": how, "scores": scores, "places": places}


def _seat_choices(seats: list[Seat]) -> list[tuple[int, str]]:
    return [(s.seat, f"{SEAT_LETTERS[s.seat]} · {s.entry.player.name}") for s in seats]


def match_sides(match: Match, seats: list[Seat]) -> tuple[SideView, ...]:
    """The two partnerships of a partnership match (R42: AC against BD), ``()`` otherwise."""
    ordered = sorted(seats, key=lambda s: s.seat)
    return partnership_sides(
        match,
        ruleset_of(match),
        [s.entry.player.name for s in ordered],
        [s.points for s in ordered],
    )


class ForfeitForm(forms.Form):
    seat = forms.TypedChoiceField(
        coerce=int,
        label=gettext_lazy("Who forfeits"),
        help_text=gettext_lazy(
            "Placed last with 0 points and a six-love received; the others play on (T7)."
        ),
    )
    reason = reason_field()

    def __init__(
        self, *args: Any, seats: list[Seat], sides: tuple[SideView, ...] = (), **kwargs: Any
    ) -> None:
        """``sides``: the partnerships of a partnership match (R42); a player's forfeit is
        then the partnership's, and the other partnership wins the match (T7, T10)."""
        super().__init__(*args, **kwargs)
        self.sides = sides
        field = self.fields["seat"]
        field.choices = _seat_choices(seats)  # type: ignore[attr-defined]
        if sides:
            field.choices = [  # type: ignore[attr-defined]
                (
                    s.seat,
                    _("%(seat)s · %(name)s, of %(side)s")
                    % {
                        "seat": SEAT_LETTERS[s.seat],
                        "name": s.entry.player.name,
                        "side": sides[s.seat % 2].label,
                    },
                )
                for s in seats
            ]
            field.help_text = _(
                "The player's partnership loses the match 0–6 and the other partnership wins "
                "it (T7, T10)."
            )
        name_the_rules(self, {"seat": "T7", "reason": "T7"})

    def _forfeit(self, seats: list[Seat]) -> str:
        seat = self.cleaned_data["seat"]
        name = next(s.entry.player.name for s in seats if s.seat == seat)
        if self.sides:
            # R42: the seat plays for its partnership, AC (seats A, C) or BD (B, D).
            return _(
                "%(name)s (seat %(letter)s) forfeits for %(side)s: the partnership loses "
                "the match 0–6 (T7) and %(winner)s win it (T10)."
            ) % {
                "name": name,
                "letter": SEAT_LETTERS[seat],
                "side": self.sides[seat % 2].label,
                "winner": self.sides[1 - seat % 2].label,
            }
        return _("%(name)s (seat %(letter)s) forfeits: a 0–6 loss (T7).") % {
            "name": name,
            "letter": SEAT_LETTERS[seat],
        }

    def outcome(self, seats: list[Seat], played_on: bool) -> str:
        """What happened, once confirmed: the others play on, or must be reseated (T7); at a
        partnership table the other partnership has won (T10)."""
        forfeit = self._forfeit(seats)
        if self.sides:
            return forfeit
        if played_on:
            return " ".join(
                [forfeit, _("The others play on at this table in a new match, from love (T7).")]
            )
        if len(seats) == 2:
            return forfeit
        return " ".join(
            [forfeit, _("The others cannot play on one player short: reseat them (T7).")]
        )

    def summary(self, seats: list[Seat]) -> str:
        forfeit = self._forfeit(seats)
        if len(seats) == 2 or self.sides:
            return forfeit
        # T7 "the table plays on": in a new match (README, Forfeit), which a director must
        # know before confirming: the hands played so far end with this match.
        return " ".join(
            [
                forfeit,
                _(
                    "Where the ruleset allows one player fewer, the others start a new match "
                    "at this table from love; the hands played so far are not carried over "
                    "(T7). Otherwise reseat them."
                ),
            ]
        )


class OverrideForm(forms.Form):
    reason = reason_field()
    # The match version the form was drawn from: a form drawn before the match changed (an
    # older tab, another director's override) is refused instead of replacing the newer
    # result unseen.
    version = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)
    acknowledge_advanced = forms.BooleanField(
        required=False,
        label=gettext_lazy(
            "I know the next round was paired on the current result: it stands and is not "
            "re-paired."
        ),
    )

    def __init__(
        self,
        *args: Any,
        seats: list[Seat],
        partners: bool = False,
        ruleset: Ruleset | None = None,
        version: int | None = None,
        built_on: tuple[str, ...] = (),
        **kwargs: Any,
    ) -> None:
        """``version`` the match's, carried by the form; ``built_on`` what the bracket already
        built on the match's result (``core.result_readers``): the director must acknowledge
        it before the confirmation step."""
        super().__init__(*args, **kwargs)
        self.fields["version"].initial = version
        self.built_on = built_on
        if not built_on:
            del self.fields["acknowledge_advanced"]
        self.seats = seats
        self.partners = partners  # R42: partners share one score
        # R33 (its target: only one player or partnership can reach it), R31/R32/R34: which
        # scores a match can end with.
        self.ruleset = ruleset
        n = len(seats)
        # When placings are needed is said once above the fields; each placing's label says
        # whose it is and its range (user test: "Place of A (only when the top scores tie)"
        # confused a director).
        if partners:
            self.placings_note = _(
                "Placings: leave them all empty to place by the scores, or give every one; "
                "they are needed when the two partnerships' scores tie (T3, T4). Partners hold "
                "their partnership's placing: %(example)s (R42)."
            ) % {"example": ", ".join(str(PLACINGS[p]) for p in (1, 2, 1, 2))}
        else:
            self.placings_note = _(
                "Placings: leave them all empty to place by the scores, or give every one; "
                "they are needed when the top scores tie (T3, T4). Players level share a "
                "placing and skip the ones it covers: %(example)s."
            ) % {"example": ", ".join(str(PLACINGS[p]) for p in (1, 1, 3, 4)[:n])}
        for s in seats:
            words = {"letter": SEAT_LETTERS[s.seat], "name": s.entry.player.name}
            self.fields[f"score_{s.seat}"] = forms.IntegerField(
                min_value=0,
                max_value=10_000,
                label=_("Score of %(letter)s · %(name)s") % words,
                initial=s.points,
            )
            self.fields[f"placing_{s.seat}"] = forms.IntegerField(
                min_value=1,
                max_value=n,
                required=False,
                label=_("Placing of %(letter)s · %(name)s (%(range)s; a placing may be shared, T3)")
                % {**words, "range": f"{PLACINGS[1]}\u2013{PLACINGS[n]}"},
            )
        self.order_fields([*(f for s in seats for f in (f"score_{s.seat}", f"placing_{s.seat}"))])
        name_the_rules(self, dict.fromkeys(self.fields, "T4"))

    def clean_acknowledge_advanced(self) -> bool:
        if not self.cleaned_data.get("acknowledge_advanced"):
            raise forms.ValidationError(
                _("Tick this to override: the next round was already paired on this result.")
            )
        return True

    def scores(self) -> list[int]:
        return [self.cleaned_data[f"score_{s.seat}"] for s in self.seats]

    def placings(self) -> list[int] | None:
        got = [self.cleaned_data.get(f"placing_{s.seat}") for s in self.seats]
        if all(p is None for p in got):
            return None
        if any(p is None for p in got):
            raise forms.ValidationError(_("Places: give every place, or none (T4)."))
        return [int(p) for p in got if p is not None]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not self.errors:
            try:
                # The service's own checks (a top-score tie needs places, T3/T4; partners
                # share a score, R42; scores a match can end with, R31-R34), before the
                # confirmation step rather than after it.
                override_placings(
                    self.scores(),
                    self.placings(),
                    n=len(self.seats),
                    partners=self.partners,
                    ruleset=self.ruleset,
                )
            except forms.ValidationError as exc:
                self.add_error(None, exc)
            except ApplicationError as exc:
                # The message alone (with its rule): its field details say it again.
                message = exc.message
                if exc.rule and exc.rule not in message:
                    message = _("%(message)s [rule %(rule)s]") % {
                        "message": message,
                        "rule": exc.rule,
                    }
                self.add_error(None, message)
        return data

    def summary(self, seats: list[Seat]) -> str:
        line = ", ".join(
            f"{SEAT_LETTERS[s.seat]} {self.cleaned_data[f'score_{s.seat}']}" for s in seats
        )
        places = self.placings()
        if places is None:
            text = _("The match ends by director decision with the scores %(line)s.") % {
                "line": line
            }
        else:
            place_line = ", ".join(
                f"{SEAT_LETTERS[s.seat]} {p}" for s, p in zip(seats, places, strict=True)
            )
            text = _(
                "The match ends by director decision with the scores %(line)s and the places "
                "%(places)s."
            ) % {"line": line, "places": place_line}
        return " ".join([text, *self.built_on])


def _candidate_label(c: ReplacementCandidate) -> str:
    """ "Ana Díaz · seed 5 in this stage", "Luis Ortiz · place 9 in Qualifying", plus "(not
    checked in)" when so."""
    parts = [c.name]
    if c.seed is not None:
        parts.append(_("seed %(seed)s in this stage") % {"seed": c.seed})
    elif c.earlier_place is not None:
        parts.append(
            _("place %(place)s in %(stage)s") % {"place": c.earlier_place, "stage": c.earlier_stage}
        )
    label = " · ".join(parts)
    if not c.checked_in:
        not_in = _("not checked in")  # outside the f-string, where makemessages finds it
        label += f" ({not_in})"
    return label


class ReplaceForm(forms.Form):
    out_seat = forms.TypedChoiceField(coerce=int, label=gettext_lazy("Who did not come"))
    in_entry = forms.TypedChoiceField(
        coerce=int,
        label=gettext_lazy("Who takes the seat"),
        help_text=gettext_lazy(
            "An active player not seated in this round; a player with a bye gives it up (T7). "
            "Listed by seed in this stage, then by place in the stage before, then by name."
        ),
    )
    reason = reason_field()

    def __init__(
        self,
        *args: Any,
        seats: list[Seat],
        candidates: list[ReplacementCandidate],
        **kwargs: Any,
    ) -> None:
        """``candidates`` in the order offered; each says its seed or earlier place, and one
        not checked in says so."""
        super().__init__(*args, **kwargs)
        self.fields["out_seat"].choices = _seat_choices(seats)  # type: ignore[attr-defined]
        self.fields["in_entry"].choices = [  # type: ignore[attr-defined]
            (c.entry_id, _candidate_label(c)) for c in candidates
        ]
        name_the_rules(self, dict.fromkeys(self.fields, "T7"))
        self.candidates = {c.entry_id: c.name for c in candidates}

    def summary(self, seats: list[Seat]) -> str:
        seat = self.cleaned_data["out_seat"]
        out = next(s.entry.player.name for s in seats if s.seat == seat)
        words = {
            "in": self.candidates.get(self.cleaned_data["in_entry"], "?"),
            "letter": SEAT_LETTERS[seat],
            "out": out,
        }
        return " ".join(
            [
                _("%(in)s takes seat %(letter)s instead of %(out)s.") % words,
                _(
                    "%(out)s is withdrawn from this stage: no further rounds of it, and no "
                    "0–6 loss (the match has not started, so nothing is forfeited; T7)."
                )
                % words,
            ]
        )


class MatchActionView(DirectorTournamentMixin):
    """GET: the form. POST: the confirmation step. POST with ``confirmed``: the service."""

    nav = "stages"

    def _load(self, round_id: int, match_id: int, action: str) -> tuple[Round, Match, list[Seat]]:
        if action not in ACTION_RULES:
            raise Http404("No such action.")
        rnd = self.get_round(round_id)
        link = (
            RoundMatch.objects.select_related("match").filter(round=rnd, match_id=match_id).first()
        )
        if link is None:
            raise Http404("No such match in this round.")
        seats = list(
            Seat.objects.filter(match_id=match_id).select_related("entry__player").order_by("seat")
        )
        for s in seats:
            s.letter = SEAT_LETTERS[s.seat]  # type: ignore[attr-defined]
        self.table_number = link.table_number
        self.sides = match_sides(link.match, seats)
        link.match.tournament = self.tournament  # the same row: no second query
        self.match = link.match
        # What the bracket built on a finished match's result (the next round paired on it).
        self.built_on: tuple[str, ...] = (
            tuple(results_built_on(match_id))
            if action == "override" and link.match.status == Match.Status.FINISHED
            else ()
        )
        return rnd, link.match, seats

    def _form(self, action: str, rnd: Round, seats: list[Seat], data: Any = None) -> forms.Form:
        if action == "forfeit":
            return ForfeitForm(data, seats=seats, sides=self.sides)
        if action == "override":
            return OverrideForm(
                data,
                seats=seats,
                partners=bool(self.sides),
                ruleset=override_ruleset(self.match),
                version=self.match.version,
                built_on=self.built_on,
            )
        return ReplaceForm(data, seats=seats, candidates=replacement_candidates(round=rnd))

    def _read_only(self, action: str) -> dict[str, Any]:
        """Why the tournament's status lets this page change nothing, said before any form
        (user test: a finished event's override page showed the whole form, and only the
        confirmation step was refused, 409 ``tournament_finished``): a finished event is
        read-only until a director reopens it on the Lifecycle page. ``{}``: the page acts."""
        gate = ACTION_GATES[action]
        if self.tournament.status in STATUS_GATES[gate]:
            return {}
        if self.tournament.status != Tournament.Status.FINISHED:
            try:
                require_status(self.tournament, gate)
            except ApplicationError as exc:
                return {"read_only": exc.message}
        context: dict[str, Any] = {
            "read_only": _(
                "%(name)s is finished: its results are read-only, so this match cannot be changed."
            )
            % {"name": self.tournament.name}
        }
        if self.tournament_context.can(Action.REOPEN):
            context["reopen_url"] = reverse("tournament:lifecycle", args=[self.tournament.slug])
        return context

    def _render(self, request: HttpRequest, status: int = 200, **extra: Any) -> HttpResponse:
        return render(
            request, "brackets/match_action.html", self.base_context(**extra), status=status
        )

    def _context(
        self, action: str, rnd: Round, match: Match, seats: list[Seat], form: forms.Form
    ) -> dict[str, Any]:
        return {
            "action": action,
            "title": TITLES[action],
            "rule": ACTION_RULES[action],
            "round": rnd,
            "stage": rnd.stage,
            "match": match,
            "seats": seats,
            "letters": SEAT_LETTERS,
            "table_number": self.table_number,
            "sides": self.sides,
            "form": form,
            "back_url": reverse("brackets:round", args=[self.tournament.slug, rnd.pk])
            + f"#match-{match.pk}",
            "is_open": match.status in OPEN,
            "finished_note": finished_note(match, seats) if action == "override" else "",
            "built_on": self.built_on,
        }

    def get(
        self, request: HttpRequest, slug: str, round_id: int, match_id: int, action: str
    ) -> HttpResponse:
        rnd, match, seats = self._load(round_id, match_id, action)
        form = self._form(action, rnd, seats)
        context = self._context(action, rnd, match, seats, form)
        if read_only := self._read_only(action):
            return self._render(request, **context, **read_only)
        if action == "replace":
            context.update(self._replace_blocked(rnd, form))
        return self._render(request, **context)

    def _replace_blocked(self, rnd: Round, form: forms.Form) -> dict[str, Any]:
        """Why no replacement can be made here, with the page where it can (no form then):
        a pairs stage substitutes a partnership's player (T11), and nobody free means a
        player must be added first (T7)."""
        slug = self.tournament.slug
        if rnd.stage.pairs:
            return {
                "blocked": True,
                "problem": _(
                    "In a pairs event a partnership's player is replaced by a substitute "
                    "before the next round is published, and the substitute plays on with the "
                    "partnership's record (T11). A no-show at this table is a forfeit (T7)."
                ),
                "problem_link": (reverse("brackets:pairs", args=[slug]), _("Partnerships")),
            }
        if not getattr(form, "candidates", True):
            return {
                "blocked": True,
                "problem": _(
                    "No player is free to take the seat: every active player is seated in "
                    "this round. Add a player first (T7)."
                ),
                "problem_link": (reverse("brackets:import", args=[slug]), _("Players")),
            }
        return {}

    def post(
        self, request: HttpRequest, slug: str, round_id: int, match_id: int, action: str
    ) -> HttpResponse:
        rnd, match, seats = self._load(round_id, match_id, action)
        form = self._form(action, rnd, seats, request.POST)
        context = self._context(action, rnd, match, seats, form)
        if read_only := self._read_only(action):
            # The service's gate answers 409 (rule lifecycle): so does the page, before any
            # form or confirmation step.
            return self._render(request, status=409, **context, **read_only)
        if action == "replace" and (blocked := self._replace_blocked(rnd, form)):
            return self._render(request, status=400, **context, **blocked)
        if not form.is_valid():
            return self._render(request, status=400, **context)
        if request.POST.get("confirmed") != "yes":
            # The confirmation step: what will happen, the same values carried as hidden fields.
            context["confirm"] = form.summary(seats)  # type: ignore[attr-defined]
            return self._render(request, **context)
        try:
            outcome = self._apply(action, rnd, match, form)
        except (NotFoundError, PermissionDeniedError):
            raise
        except ConflictError as exc:
            # Drawn from a state that is gone: the page again, as the match is now, with the
            # director's values and nothing written.
            return self._conflict(request, action, slug, round_id, match_id, exc)
        except (ApplicationError, BracketError) as exc:
            text = error_text(exc)
            if not exc.rule:
                text = _("%(message)s [rule %(rule)s]") % {
                    "message": text,
                    "rule": ACTION_RULES[action],
                }
            context["problem"] = text
            return self._render(request, status=400, **context)
        # What happened (a forfeit says whether the table plays on), else what was confirmed.
        done = outcome or form.summary(seats)  # type: ignore[attr-defined]
        messages.success(request, str(done))
        return HttpResponseRedirect(context["back_url"])

    def _conflict(
        self,
        request: HttpRequest,
        action: str,
        slug: str,
        round_id: int,
        match_id: int,
        exc: ConflictError,
    ) -> HttpResponse:
        """409: the form again, drawn from the match as it is now (its version, what follows
        it), keeping what the director typed; the problem says what changed."""
        rnd, match, seats = self._load(round_id, match_id, action)
        data = request.POST.copy()
        data.pop("confirmed", None)
        data["version"] = str(match.version)
        data.pop("acknowledge_advanced", None)
        form = self._form(action, rnd, seats, data)
        context = self._context(action, rnd, match, seats, form)
        context["problem"] = exc.message
        return self._render(request, status=409, **context)

    def _apply(self, action: str, rnd: Round, match: Match, form: forms.Form) -> str:
        d = form.cleaned_data
        user = self.request.user
        if action == "forfeit":
            assert isinstance(form, ForfeitForm)
            result = match_forfeit(
                match_id=match.pk, actor=user, seat=d["seat"], reason=d["reason"]
            )
            seats = list(Seat.objects.filter(match_id=match.pk).select_related("entry__player"))
            return form.outcome(seats, played_on=result.continuation is not None)
        if action == "override":
            assert isinstance(form, OverrideForm)
            overridden = match_result_override(
                match_id=match.pk,
                actor=user,
                scores=form.scores(),
                placings=form.placings(),
                reason=d["reason"],
                expected_version=d.get("version"),
                acknowledge_advanced=bool(d.get("acknowledge_advanced")),
            )
            if not overridden.changed:
                return _("Nothing changed: the match already has this result by override.")
        else:
            out = Seat.objects.get(match_id=match.pk, seat=d["out_seat"])
            round_seat_replace(
                round=rnd,
                actor=user,
                out_entry_id=out.entry_id,
                in_entry_id=d["in_entry"],
                reason=d["reason"],
            )
        return ""
