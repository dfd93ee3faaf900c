"""Forms of the director pages. They check shapes (numbers, choices, required fields); the
services check the rules (RULES.md §11) and the page shows their errors on the fields."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from django import forms
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.utils.translation import gettext_lazy as _

from brackets.csv_import import MAX_BYTES, MAX_LENGTHS
from brackets.models import (
    CUT_SIZE_MAX,
    RNG_SEED_MAX,
    SWISS_ROUNDS_MAX,
    TIME_LIMIT_MAX,
    Stage,
)
from brackets.selectors.players import SameNamePlayer
from core.choice_labels import choice_label, form_choices
from core.form_words import reason_field
from dominoes.digits import parse_int

FINAL = "final"  # a knockout stage whose field is the final table itself (T6)
KIND_CHOICES = [
    (Stage.Kind.QUALIFYING.value, _("Qualifying (Swiss-style rounds, then a cut)")),
    (Stage.Kind.KNOCKOUT.value, _("Knockout (top k of every table, down to the final table)")),
    (FINAL, _("Final table only (the previous stage's cut is the final table)")),
]


def name_the_rules(form: forms.Form, rules: dict[str, str]) -> None:
    """Every shape error of ``form``'s fields names the field and its rule (RULES.md), in one
    message: "Rounds: at least 1 (T2)." instead of "Ensure this value is greater than or
    equal to 1." (user test). ``rules``: field name -> rule number; others keep Django's."""
    for name, rule in rules.items():
        field = form.fields.get(name)
        if field is None:
            continue
        label = str(field.label or name).replace("%", "%%")
        words = {"label": label, "rule": rule}
        messages = {
            "required": _("%(label)s: required (%(rule)s).") % words,
            "invalid": _("%(label)s: enter a whole number (%(rule)s).") % words,
            "invalid_choice": _("%(label)s: choose one of the listed values (%(rule)s).") % words,
            # Django fills %(limit_value)s in when it raises these.
            "min_value": _("%(label)s: at least %(limit)s (%(rule)s).")
            % {**words, "limit": "%(limit_value)s"},
            "max_value": _("%(label)s: at most %(limit)s (%(rule)s).")
            % {**words, "limit": "%(limit_value)s"},
            "max_length": _("%(label)s: at most %(limit)s characters (%(rule)s).")
            % {**words, "limit": "%(limit_value)d"},
        }
        field.error_messages.update(messages)


# The rule each stage setting answers to (RULES.md §11).
STAGE_FIELD_RULES = {
    "name": "§11",
    "kind": "T6",
    "swiss_rounds": "T2",
    "cut_size": "T6",
    "advance_per_table": "T6",
    "final_table_size": "T6",
    "allow_three": "T1",
    "bye_policy": "T1",
    "seat_order": "T8",
    "seeding": "T8",
    "rng_seed": "T8",
    "auto_advance": "T6",
    "round_time_limit": "T2",
}

# Settings the stage services let change before the stage starts, and at any time.
FORMAT_FIELDS = (
    "swiss_rounds",
    "cut_size",
    "advance_per_table",
    "final_table_size",
    "allow_three",
    "bye_policy",
    "seat_order",
)
ANYTIME_FIELDS = ("name", "auto_advance", "round_time_limit")


class StageForm(forms.Form):
    """Create (or edit) a stage. ``previous`` is the stage before it, if any."""

    name = forms.CharField(max_length=80, required=False, label=_("Name"))
    kind = forms.ChoiceField(choices=KIND_CHOICES, label=_("Kind"))
    swiss_rounds = forms.IntegerField(
        min_value=1,
        max_value=SWISS_ROUNDS_MAX,
        required=False,
        label=_("Rounds"),
        help_text=_("Qualifying: how many Swiss-style rounds (T2, T8)."),
    )
    cut_size = forms.IntegerField(
        min_value=3,
        max_value=CUT_SIZE_MAX,
        required=False,
        label=_("Cut: top N go on"),
    )
    advance_per_table = forms.TypedChoiceField(
        choices=[(1, "1"), (2, "2")],
        coerce=int,
        initial=1,
        label=_("Per table: top k go on"),
        help_text=_(
            "Knockout: the top k of every table go on, plus the best others to fill the "
            "target field of the next round (T6)."
        ),
    )
    final_table_size = forms.TypedChoiceField(
        choices=[(4, "4"), (3, "3")], coerce=int, initial=4, label=_("Final table seats")
    )
    allow_three = forms.BooleanField(
        required=False, initial=True, label=_("Allow 3-player tables (T1)")
    )
    bye_policy = forms.ChoiceField(
        choices=form_choices(Stage.ByePolicy),
        initial=Stage.ByePolicy.WIN,
        label=_("A bye counts"),
    )
    seat_order = forms.ChoiceField(
        choices=form_choices(Stage.SeatOrder),
        initial=Stage.SeatOrder.BALANCED,
        label=_("Seat order"),
    )
    seeding = forms.ChoiceField(
        choices=[
            (Stage.Seeding.RATING.value, _("By rating")),
            (Stage.Seeding.MANUAL.value, _("Manual order")),
            (Stage.Seeding.RANDOM.value, _("Random (recorded seed)")),
        ],
        initial=Stage.Seeding.RATING,
        label=_("Seeding (first stage)"),
    )
    rng_seed = forms.IntegerField(
        min_value=0,
        max_value=RNG_SEED_MAX,
        required=False,
        label=_("Random seed"),
        help_text=_("Empty: one is drawn and recorded, so every seating replays (T8)."),
    )
    # Off by default (walkthrough): the director guide's flow previews every round's seating
    # before it is published (T6); a director who wants no preview ticks it.
    auto_advance = forms.BooleanField(
        required=False,
        initial=False,
        label=_("Advance automatically"),
        help_text=_(
            "Publish the next round as soon as the last match of a round ends, with no "
            "preview. Off: you see each round's seating first and publish it yourself."
        ),
    )
    round_time_limit = forms.IntegerField(
        min_value=1,
        max_value=TIME_LIMIT_MAX,
        required=False,
        label=_("Round time limit (minutes)"),
        help_text=_("Empty: no clock (T2, T3)."),
    )

    def __init__(
        self,
        *args: Any,
        previous: Stage | None = None,
        stage: Stage | None = None,
        started: bool = False,
        pairs: bool = False,
        advanced: int | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        name_the_rules(self, STAGE_FIELD_RULES)
        self.previous = previous
        # The players (partnerships) a finished previous stage sent on: the new stage's field.
        self.advanced = advanced
        self.stage = stage
        self.pairs = pairs
        self.fields["cut_size"].help_text = _(
            "Qualifying: the top N of the standings go on (T6), at most %(max)s. Empty: everyone."
        ) % {"max": CUT_SIZE_MAX}
        if pairs:
            # T9/T10: two partnerships a table, the winning one goes on, down to the final
            # between two: the individual table settings do not apply.
            for name in ("advance_per_table", "final_table_size", "allow_three"):
                del self.fields[name]
            kind = self.fields.get("kind")
            if isinstance(kind, forms.ChoiceField):
                kind.choices = [
                    (Stage.Kind.QUALIFYING.value, choice_label(Stage.Kind, Stage.Kind.QUALIFYING)),
                    (Stage.Kind.KNOCKOUT.value, _("Partnership knockout to the final")),
                    (FINAL, _("The final only (top two partnerships)")),
                ]
            cut = self.fields["cut_size"]
            assert isinstance(cut, forms.IntegerField)
            cut.min_value = 2
            cut.validators = [
                *(v for v in cut.validators if not isinstance(v, MinValueValidator)),
                MinValueValidator(2),
            ]
            cut.widget.attrs["min"] = 2
            cut.label = _("Cut: top N partnerships go on")
            cut.help_text = _(
                "Qualifying: the top N partnerships of the standings go on (T6, T10), at most "
                "%(max)s. Empty: every partnership."
            ) % {"max": CUT_SIZE_MAX}
        if previous is not None or (stage is not None and stage.number > 1):
            del self.fields["seeding"]  # later stages are seeded by advancement (T6)
        field = self.final_field()
        if stage is None and field in (3, 4) and "final_table_size" in self.fields:
            # T6: the final is a table of 4 or 3. A cut of 3 (or 4) is that final table, so
            # the seats follow it: a "Final table only" stage after it was refused with the
            # default of 4 (user test).
            self.fields["final_table_size"].initial = field
        if stage is not None:  # editing: kind and seed are fixed once created
            for name in ("kind", "rng_seed", "seeding"):
                self.fields.pop(name, None)
            if started:
                for name in FORMAT_FIELDS:
                    if name in self.fields:  # a pairs stage has no individual table settings
                        self.fields[name].disabled = True
                        self.fields[name].help_text = _("Fixed: the stage has started.")

    def final_field(self) -> int | None:
        """The players the previous stage sends on, when known: the ones a finished stage
        sent (``advanced``), else its cut; ``None`` without either (everyone goes on)."""
        if self.previous is None:
            return None
        if self.advanced is not None:
            return self.advanced
        return self.previous.cut_size

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        kind = data.get("kind") or (self.stage.kind if self.stage else None)
        if (
            kind == Stage.Kind.QUALIFYING
            and not data.get("swiss_rounds")
            and "swiss_rounds" not in self.errors  # one message per field ("Rounds: at least 1")
        ):
            self.add_error("swiss_rounds", _("A qualifying stage plays at least one round (T2)."))
        if kind == FINAL:
            prev = self.previous
            # A pairs final is one table of two partnerships (T10).
            size = 2 if self.pairs else data.get("final_table_size")
            if prev is not None and self.advanced is not None:
                # The field is known: the finished stage's advancement (T6, T10).
                message = (
                    _(
                        "The final only takes the top two partnerships: %(prev)s sent "
                        "%(n)s partnerships on (T10). Choose the partnership knockout instead."
                    )
                    if self.pairs
                    else _(
                        "A final-table stage takes exactly the final table: %(prev)s sent "
                        "%(n)s players on, the final seats %(size)s (T6). Choose a knockout "
                        "stage instead."
                    )
                )
                if not self.pairs and self.advanced != size and self.advanced in (3, 4):
                    # T6: a final table seats 4 or 3, so the seats can match the field: say
                    # that first (user test: the message sent the director to a knockout).
                    message = _(
                        "Set Final table seats to %(n)s, or choose a knockout stage: %(prev)s "
                        "sent %(n)s players on, the final seats %(size)s (T6)."
                    )
                if self.advanced != size:
                    self.add_error(
                        "kind", message % {"prev": prev.name, "n": self.advanced, "size": size}
                    )
            elif self.pairs and prev is not None and prev.cut_size != size:
                self.add_error(
                    "kind",
                    _(
                        "The final only takes the top two partnerships: the cut of %(prev)s "
                        "lets %(cut)s through (T10). Choose the partnership knockout instead."
                    )
                    % {"prev": prev.name, "cut": prev.cut_size or _("everyone")},
                )
            elif prev is not None and prev.cut_size is not None and prev.cut_size != size:
                message = (
                    # T6: the final is a table of 4 or 3, so a cut of 3 or 4 is one: the fix
                    # is the seats (user test: the message sent the director to a knockout).
                    _(
                        "Set Final table seats to %(cut)s, or choose a knockout stage: the cut "
                        "of %(prev)s lets %(cut)s through, the final seats %(size)s (T6)."
                    )
                    if prev.cut_size in (3, 4)
                    else _(
                        "A final-table stage takes exactly the final table: the cut of "
                        "%(prev)s lets %(cut)s through, the final seats %(size)s (T6). "
                        "Choose a knockout stage instead."
                    )
                )
                self.add_error(
                    "kind", message % {"prev": prev.name, "cut": prev.cut_size, "size": size}
                )
        if data.get("final_table_size") == 3 and not data.get("allow_three", True):
            self.add_error(
                "final_table_size", _("A final of 3 needs 3-player tables allowed (T1).")
            )
        return data

    def service_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``stage_create``."""
        d = self.cleaned_data
        kind = Stage.Kind.KNOCKOUT.value if d["kind"] == FINAL else d["kind"]
        kwargs: dict[str, Any] = {
            "name": d.get("name") or "",
            "kind": kind,
            # Absent from a pairs event's form (T10): the model's defaults.
            "advance_per_table": d.get("advance_per_table", 1),
            "final_table_size": d.get("final_table_size", 4),
            "allow_three": d.get("allow_three", True),
            "bye_policy": d["bye_policy"],
            "seat_order": d["seat_order"],
            "rng_seed": d.get("rng_seed"),
            "auto_advance": d["auto_advance"],
            "round_time_limit": d.get("round_time_limit"),
        }
        if kind == Stage.Kind.QUALIFYING:
            kwargs["swiss_rounds"] = d.get("swiss_rounds")
            kwargs["cut_size"] = d.get("cut_size")
        if "seeding" in d:
            kwargs["seeding"] = d["seeding"]
        return kwargs

    def changed_settings(self, stage: Stage) -> dict[str, Any]:
        """The edited settings that differ from ``stage`` (for ``stage_update``)."""
        out: dict[str, Any] = {}
        for name in (*ANYTIME_FIELDS, *FORMAT_FIELDS):
            field = self.fields.get(name)
            if field is None or field.disabled:
                continue
            if name in ("swiss_rounds", "cut_size") and stage.kind != Stage.Kind.QUALIFYING:
                continue
            value = self.cleaned_data.get(name)
            if name == "name":
                value = (value or "").strip() or stage.name
            if value != getattr(stage, name):
                out[name] = value
        return out

    @classmethod
    def initial_for(cls, stage: Stage) -> dict[str, Any]:
        return {name: getattr(stage, name) for name in (*ANYTIME_FIELDS, *FORMAT_FIELDS)}


class SeedForm(forms.Form):
    """How to seed the first stage (T8). Bad input names its field and its range ("Random
    seed: at most 2147483647 (T8).") rather than asking to choose a method."""

    method = forms.ChoiceField(
        choices=[
            (Stage.Seeding.RATING.value, _("By rating")),
            (Stage.Seeding.RANDOM.value, _("Random draw")),
            (Stage.Seeding.MANUAL.value, _("Entries' own seed numbers")),
        ],
        label=_("Seeding"),
    )
    rng_seed = forms.IntegerField(
        min_value=0, max_value=RNG_SEED_MAX, required=False, label=_("Random seed")
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        name_the_rules(self, {"method": "T8", "rng_seed": "T8"})


class ReorderForm(forms.Form):
    """The new order is the list of ``order`` values (entry ids, best first); ``move`` is a
    no-script step (``<entry id>:up|down|top|bottom``) applied to that order."""

    reason = reason_field(required=False)
    move = forms.RegexField(regex=r"^[0-9]{1,18}:(up|down|top|bottom)$", required=False)

    def __init__(self, *args: Any, units: Mapping[int, int] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.order: list[int] = []
        self.units = units or {}  # a pairs stage: entry id -> partnership id (T9)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = self.data.getlist("order") if hasattr(self.data, "getlist") else []
        parsed = [parse_int(x) for x in raw]
        order = [x for x in parsed if x is not None]
        if len(order) != len(parsed):
            raise ValidationError(_("The order must list entry ids."))
        if not order:
            raise ValidationError(_("The order is empty."))
        move = data.get("move")
        if move:
            entry, where = move.split(":")
            order = apply_move(order, int(entry), where, self.units)
        self.order = order
        return data


def apply_move(
    order: list[int], entry_id: int, where: str, units: Mapping[int, int] | None = None
) -> list[int]:
    """``order`` with ``entry_id`` moved one place up or down, or to the top or bottom.

    ``units`` (a pairs stage, T9: entry id -> partnership id): partners move together, one
    partnership's place at a time.
    """
    if entry_id not in order:
        return order
    units = units or {}
    groups: list[list[int]] = []
    index: dict[object, int] = {}
    for e in order:
        key: object = units.get(e, ("entry", e))
        if key not in index:
            index[key] = len(groups)
            groups.append([])
        groups[index[key]].append(e)
    i = index[units.get(entry_id, ("entry", entry_id))]
    moved = groups.pop(i)
    n = len(groups)
    j = {"up": max(i - 1, 0), "down": min(i + 1, n), "top": 0, "bottom": n}[where]
    groups.insert(j, moved)
    return [e for g in groups for e in g]


class CheckInForm(forms.Form):
    checked_in = forms.TypedChoiceField(
        choices=[("1", "in"), ("0", "out")], coerce=lambda v: v == "1"
    )


class CheckInManyForm(forms.Form):
    """The seeding list's "Check in everyone" (``scope=all``) and "Check in selected"
    (``scope=selected``: the ticked ``entry`` ids; the service checks they are this
    tournament's active entries)."""

    scope = forms.ChoiceField(choices=[("all", "all"), ("selected", "selected")])

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = self.data.getlist("entry") if hasattr(self.data, "getlist") else []
        ids = [parse_int(value) for value in raw]
        if any(pk is None for pk in ids):
            raise ValidationError(_("Tick the players to check in."))
        data["entry"] = [pk for pk in ids if pk is not None]
        return data

    def entry_ids(self) -> list[int] | None:
        """``None`` for everyone, else the ticked ids."""
        if self.cleaned_data["scope"] == "all":
            return None
        return list(self.cleaned_data["entry"])


class WithdrawForm(forms.Form):
    reason = reason_field()
    disqualify = forms.BooleanField(required=False, label=_("Disqualify (T7)"))


class ReasonForm(forms.Form):
    reason = reason_field(required=False)


class PublishForm(forms.Form):
    """The round number the preview showed: publishing checks it is still the next round
    (a stale preview is refused). Required: a missing or non-numeric value is a 400, never
    "no check"."""

    expected_number = forms.IntegerField(
        min_value=1, max_value=2**31 - 1, label=_("Round to publish")
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        name_the_rules(self, {"expected_number": "T2"})


class ClockForm(forms.Form):
    """Start the round clock (T2): minutes from 1 to ``TIME_LIMIT_MAX``, required (an empty
    or bad value was silently the stage's default)."""

    minutes = forms.IntegerField(min_value=1, max_value=TIME_LIMIT_MAX, label=_("Minutes"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        name_the_rules(self, {"minutes": "T2"})


class CallTimeForm(forms.Form):
    confirm = forms.BooleanField(
        label=_(
            "Yes, call time: every unfinished match not kept for a sudden-death hand ends now "
            "and is placed by score (T3)."
        )
    )
    reason = reason_field(required=False)
    sudden_death = forms.TypedMultipleChoiceField(
        coerce=int,
        required=False,
        label=_("Matches that play a sudden-death hand instead"),
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(
        self, *args: Any, open_matches: list[tuple[int, str]] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["sudden_death"]
        assert isinstance(field, forms.TypedMultipleChoiceField)
        field.choices = open_matches or []


class RefereeForm(forms.Form):
    match_id = forms.IntegerField()
    referee = forms.IntegerField(required=False)


@dataclass(frozen=True, slots=True)
class SameNameWarning:
    """What the page shows under a typed name that known players have (a warning, not an
    error): those players, and the inputs that answer it (``brackets.services.registration``).
    """

    field: str  # the name field it is about: name, player_a, player_b
    typed: str
    candidates: tuple[SameNamePlayer, ...]
    same_as_input: str  # radio: "this is the same person"
    add_anyway_input: str  # checkbox: "a different person: add anyway"
    warned_input: str  # hidden: the ids listed, which "add anyway" answers for
    chosen: str  # the radio value sent, to keep it chosen
    entered_ok: bool  # a player entered here may be chosen (a partnership pairs them)

    @property
    def warned(self) -> str:
        return ",".join(str(c.id) for c in self.candidates)


class SameNameAnswerForm(forms.Form):
    """A form with typed players that may meet a same-name warning: per name field, a radio
    (``same_as``), a checkbox (``add_anyway``) and the ids shown (``warned``), drawn by
    ``brackets/_same_name.html`` only once the service has warned."""

    #: name field -> the suffix of its answer's inputs
    name_fields: ClassVar[Mapping[str, str]] = {"name": ""}
    #: a player already entered in the tournament may be the answer
    entered_ok: ClassVar[bool] = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for suffix in self.name_fields.values():
            self.fields["same_as" + suffix] = forms.CharField(required=False, max_length=20)
            self.fields["add_anyway" + suffix] = forms.BooleanField(required=False)
            self.fields["warned" + suffix] = forms.CharField(required=False, max_length=2000)

    def same_name_answer(self, name_field: str) -> tuple[int | None, frozenset[int]] | None:
        """The answer sent for ``name_field``: the known player chosen and the players
        confirmed to be someone else; ``None`` (an error added under ``name_field``) for a
        choice that is not a player id. Call after ``is_valid``."""
        suffix = self.name_fields[name_field]
        data = self.cleaned_data
        same_as = (data.get("same_as" + suffix) or "").strip()
        chosen = parse_int(same_as)  # not isdigit(): "²" is a digit int() refuses
        if same_as and chosen is None:
            self.add_error(name_field, _("Choose one of the players listed."))
            return None
        if same_as and data.get("add_anyway" + suffix):
            self.add_error(
                name_field, _("Choose one: the same person, or a different person added anyway.")
            )
            return None
        warned = frozenset(int(i) for i in re.findall(r"\d+", data.get("warned" + suffix) or ""))
        return (
            chosen,
            warned if data.get("add_anyway" + suffix) else frozenset(),
        )

    def same_name_warnings(
        self, candidates: Mapping[str, Sequence[SameNamePlayer]]
    ) -> dict[str, SameNameWarning]:
        """The warnings to show, by name field, for a service's ``SameNameUnconfirmedError``."""
        out = {}
        for name_field, players in candidates.items():
            suffix = self.name_fields[name_field]
            out[name_field] = SameNameWarning(
                field=name_field,
                typed=str(self.data.get(name_field, "")).strip(),
                candidates=tuple(players),
                same_as_input="same_as" + suffix,
                add_anyway_input="add_anyway" + suffix,
                warned_input="warned" + suffix,
                chosen=str(self.data.get("same_as" + suffix, "")),
                entered_ok=self.entered_ok,
            )
        return out


class PlayerAddForm(SameNameAnswerForm):
    """One player typed in by hand; the rules are the CSV import's (``check_player``)."""

    # Lengths and "required" are checked by ``check_player`` (one message per field).
    name = forms.CharField(max_length=1000, required=False, label=_("Name"))
    nickname = forms.CharField(max_length=1000, required=False, label=_("Nickname"))
    club = forms.CharField(max_length=1000, required=False, label=_("Club"))
    country = forms.CharField(
        max_length=100,
        required=False,
        label=_("Country"),
        help_text=_("ISO 3166-1 two-letter code (PR, DO, US…)."),
    )
    rating = forms.CharField(
        max_length=100, required=False, label=_("Rating"), help_text=_("0 to 9999; optional.")
    )
    check_in = forms.BooleanField(required=False, label=_("Check the player in"))

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # It shares the import page with the CSV form: its own element ids (id_add_check_in,
        # not a second id_check_in), the same field names.
        kwargs.setdefault("auto_id", "id_add_%s")
        super().__init__(*args, **kwargs)
        # The browser stops at the player's real limits (check_player's); the looser server
        # bound above only keeps a pasted text reportable as "at most N characters (M)".
        for name, limit in MAX_LENGTHS.items():
            self.fields[name].widget.attrs["maxlength"] = str(limit)


class PlayerEditForm(PlayerAddForm):
    """A registered player's details (the add form's fields and rules, without check-in)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "id_%s")
        super().__init__(*args, **kwargs)
        for name in ("check_in", "same_as", "add_anyway", "warned"):
            del self.fields[name]


class CsvUploadForm(forms.Form):
    """A CSV file uploaded as ``file`` or given as text (``csv_text``): ``clean`` puts the
    file's bytes (or the text) in ``content`` and the file's name in ``source``. The players
    import and the partnerships import (T9) take their files this way."""

    file = forms.FileField(required=False, label=_("CSV file"))
    missing = _("Choose a CSV file.")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = data.get("file")
        if upload is not None:
            if upload.size > MAX_BYTES:
                raise ValidationError(
                    _("The file is larger than %(kb)s KB.") % {"kb": MAX_BYTES // 1024}
                )
            data["content"] = upload.read()
            data["source"] = upload.name
        elif data.get("csv_text"):
            data["content"] = data["csv_text"]
        else:
            raise ValidationError(self.missing)
        return data


class CsvImportForm(CsvUploadForm):
    csv_text = forms.CharField(required=False, widget=forms.HiddenInput, strip=False)
    source = forms.CharField(required=False, widget=forms.HiddenInput, max_length=200)
    check_in = forms.BooleanField(required=False, label=_("Check the imported players in"))
    import_valid = forms.BooleanField(
        required=False,
        label=_("Import the valid rows even if some rows are bad"),
        help_text=_("Otherwise nothing is imported while any row is bad."),
    )
