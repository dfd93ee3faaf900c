"""The tournament create/edit form: name, dates, venue, a preset and EVERY ruleset override.

The override fields are generated from the rules engine (``scoring.engine.rules``), so a key
the engine gains appears here with its type: a choice for an enum, an integer for a number, a
yes/no choice for a flag. Every override starts at "the preset's value" (no override); only
what the director sets is stored in ``ruleset_overrides``. The whole ruleset is validated by
the engine (``Ruleset.from_preset``), the same validation the admin form and the services use
(:func:`ruleset_form_errors`): an invalid combination is refused on the field the engine names,
with its rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from core.exceptions import ApplicationError
from core.visible_text import name_problem
from dominoes.ruleset import MAX_POINTS
from scoring.engine import InvalidRuleset
from scoring.engine import rules as engine_rules
from tournament.partnerships import INDIVIDUAL, PAIRS, is_partnership_ruleset
from tournament.rulesets import (
    NOT_IN_TOURNAMENT_PLAY,
    tournament_ruleset,
    tournament_ruleset_refusals,
)
from tournament.selectors import tournament_slug_free, tournament_slug_taken
from tournament.slugs import tournament_slug_check, tournament_slug_taken_error

PRESET = ""  # the value of "no override" in every override field
NULL = "null"  # the value of an explicit null in a choice field
YES, NO = "true", "false"
NULL_SUFFIX = "__null"

# Each key's label on the form; keys the engine gains later show their key, capitalised.
LABELS: Mapping[str, Any] = {  # lazy translated strings
    "scoring": _("Scoring"),
    "target": _("Target"),
    "reset_rule": _("Reset rule"),
    "all_ones": _("All ones"),
    "playoff_value": _("Play-off value"),
    "tie_value": _("Tie value"),
    "tie_value_cap": _("Tie value cap"),
    "tie_opener": _("Tie opener"),
    "replay_leader_loss": _("Replay leader loss"),
    "after_reset_opener": _("After a reset, who opens"),
    "llave": _("Llave"),
    "opening": _("Opening"),
    "deal": _("Deal"),
    "boneyard": _("Boneyard"),
    "draw_when_playable": _("Draw when a tile is playable"),
    "boneyard_reserve": _("Boneyard reserve"),
    "teams": _("Teams"),
    "partner_credit": _("Partner credit"),
}

# What each key means, with its rule (RULES.md). Keys the engine gains later fall back to §1.
HELP: Mapping[str, Any] = {  # lazy translated strings
    "scoring": _("How a match is scored: six_love (R31, R32), straight_six (R30), pips (R40)."),
    "target": _("The winning score (R30-R32); under pips 100 for 2 players, 61 for 3 or 4 (R41)."),
    "reset_rule": _("When a six-love match resets: all_scored (R31) or any_challenger (R32)."),
    "all_ones": _("What all-ones scores cause: a reset or a play-off hand (R31d)."),
    "playoff_value": _("Value of a play-off hand and of its replays (R26)."),
    "tie_value": _("Value of a replay after tied hands: escalate, flat2 or none (R26, R27)."),
    "tie_value_cap": _("Highest value a replay can reach; empty: no cap (R26)."),
    "tie_opener": _("Who poses a replay after a tied hand (R10)."),
    "replay_leader_loss": _("What happens when a unique leader loses a replay (R31a)."),
    "after_reset_opener": _("Who poses after a reset (R8)."),
    "llave": _("Bonus for a llave win (R24); pips scoring needs off."),
    "opening": _("Who poses the first and later hands: forced 6-6 or lot then rotate (R6)."),
    "deal": _("Tiles dealt per player: standard, seven or block sizes (R2)."),
    "boneyard": _("The tiles not dealt: none, sleeping or draw (R2, R15, R16)."),
    "draw_when_playable": _("May a player draw while holding a playable tile (R16)."),
    "boneyard_reserve": _("Tiles that stay in a draw boneyard and are never drawn (R16)."),
    "teams": _("Partnerships: none, or partners across the table scoring together (§12)."),
    "partner_credit": _("How a partnership's hand is credited: net or opponents (R45)."),
}


# What a null (no value) means for the keys that may be null, in the rules' words: a director
# never sees "null" (user test: "— preset: null —", "Target: null (the default)").
NULL_MEANING: Mapping[str, Any] = {  # lazy translated strings
    "target": _("the scoring's default: 100 for 2 players, 61 for 3 or 4 under pips (R41)"),
    "boneyard": _("as the deal says (R2)"),
    "tie_value_cap": _("no cap (R26)"),
}


# Each choice's name on the form, shown with its RULES.md §1 value ("Six-love (six_love)"), so
# the director reads what it does and can still find it in the rules and the help text.
VALUE_LABELS: Mapping[str, Mapping[str, Any]] = {  # lazy translated strings
    "scoring": {
        "six_love": _("Six-love, with resets"),
        "straight_six": _("Straight to the target"),
        "pips": _("Pip count"),
    },
    "reset_rule": {
        "all_scored": _("Reset once everyone has scored"),
        "any_challenger": _("Reset when a challenger has points"),
    },
    "all_ones": {"reset": _("Reset"), "playoff": _("Play-off hand")},
    "tie_value": {
        "escalate": _("One more per tie"),
        "flat2": _("Worth 2 after a tie"),
        "none": _("No change"),
    },
    "tie_opener": {
        "leader": _("The leader"),
        "six_six_holder": _("The 6-6 holder"),
        "previous_opener": _("The same poser"),
    },
    "replay_leader_loss": {"reset": _("Scores reset"), "award": _("The winner scores")},
    "after_reset_opener": {
        "six_six_holder": _("The 6-6 holder"),
        "hand_winner": _("The hand's winner"),
    },
    "llave": {"off": _("Off"), "plus_one": _("Value + 1"), "flat_two": _("At least 2")},
    "opening": {"forced_six_six": _("Forced 6-6"), "lot_then_rotate": _("Lot, then rotate")},
    "deal": {"standard": _("Standard"), "seven": _("Seven tiles each"), "block": _("Block sizes")},
    "boneyard": {
        "none": _("None"),
        "sleeping": _("Sleeping"),
        "draw": pgettext_lazy("boneyard", "Draw"),
    },
    "teams": {"none": _("Individual play"), "partners": _("Partners across the table")},
    "partner_credit": {"net": _("Net"), "opponents": _("Opponents' pips")},
}


# Each preset's name on the form, with its §1 key ("World Series: six-love (wsod)").
PRESET_LABELS: Mapping[str, Any] = {  # lazy translated strings
    "wsod": _("World Series: six-love, forced 6-6"),
    "wsod_playoff": _("World Series with a play-off when all have one"),
    "straight_six": _("Straight six: first to 6, no resets"),
    "jamaican": _("Jamaican: six-love with llave"),
    "block": _("Block: pip count to 100 or 61"),
    "wsod_partners": _("World Series partnerships (§12)"),
    "partnership_block": _("Block partnerships to 100 (§12)"),
}


def value_label(key: str, value: str) -> str:
    """An enum value as the form shows it: its name and its §1 value ("Forced 6-6
    (forced_six_six)"); a value without a name shows as itself."""
    name = VALUE_LABELS.get(key, {}).get(value)
    return f"{name} ({value})" if name is not None else value


# The rules engine's refusals of a ruleset (dominoes.ruleset, English, for the API and logs)
# as the form words them, by (code, field); %(max)s is MAX_POINTS. Others show the engine's.
ENGINE_MESSAGES: Mapping[tuple[str, str], Any] = {  # lazy translated strings
    ("out_of_range", "target"): _("A whole number from 1 to %(max)s (R30-R32)."),
    ("out_of_range", "playoff_value"): _("A whole number from 1 to %(max)s (R26)."),
    ("out_of_range", "tie_value_cap"): _("Empty (no cap) or a whole number from 1 to %(max)s."),
    ("out_of_range", "boneyard_reserve"): _("A whole number from 0 to 28 (R16)."),
    ("nonsense_combination", "llave"): _(
        "Pip scoring has no hand value for a llave to adjust (R24, R40): choose Off."
    ),
    ("nonsense_combination", "boneyard"): _(
        "The standard deal deals every tile, so no boneyard is left (R2): keep the deal's "
        "default or choose the seven or block deal."
    ),
    ("nonsense_combination", "boneyard_left_over"): _(
        "This deal leaves tiles over (R2): choose sleeping or draw."
    ),
}


def option_keys() -> tuple[str, ...]:
    """Every ruleset key a tournament may override, in the engine's order (RULES.md §1): not
    the keys tournament play fixes (sporting, R11; :mod:`tournament.rulesets`)."""
    return tuple(k for k in engine_rules._OPTION_KEYS if k not in NOT_IN_TOURNAMENT_PLAY)


def _kind(key: str) -> str:
    if key in engine_rules._ENUM_KEYS:
        return "enum"
    if key in engine_rules._BOOL_KEYS:
        return "bool"
    return "int"


def _nullable(key: str) -> bool:
    return key in engine_rules._NULLABLE_KEYS


def _show(value: object, key: str = "") -> str:
    if value is None:
        return str(NULL_MEANING.get(key, _("the rule's default")))
    if isinstance(value, bool):
        return str(_("yes") if value else _("no"))
    return str(value)


def _preset_value(key: str, value: object) -> str:
    """A preset's value in an option's help: an enum value by its translated name
    ("Forced 6-6"), anything else as the form shows it."""
    name = VALUE_LABELS.get(key, {}).get(value) if isinstance(value, str) else None
    return str(name) if name is not None else _show(value, key)


def preset_labels() -> dict[str, object]:
    """What the page shows beside each override for the chosen preset ("preset: 6",
    "preset: no cap (R26)"), translated; read by static/js/tournament_form.js."""
    return {
        "prefix": str(_("preset")),
        "values": {
            name: {
                key: NO_EFFECT_MARK
                if no_effect(values, key)
                else value_label(key, value)
                if isinstance(value, str) and key in engine_rules._ENUM_KEYS
                else _show(value, key)
                for key, value in values.items()
            }
            for name, values in preset_values().items()
        },
    }


#: How a form shows a key with no effect under a preset's scoring: RULES.md §1's en dash.
NO_EFFECT_MARK = "\u2013"

#: A rule reference in a message: "(R20", "(§1", "(T3".
_NAMES_A_RULE = re.compile(r"\((?:R\d|§\d|T\d)")


def no_effect(values: Mapping[str, object], key: str) -> bool:
    """Whether ``key`` changes nothing under the scoring of a preset's ``values`` (a dash
    in §1's table)."""
    scoring = values.get("scoring")
    return isinstance(scoring, str) and key in engine_rules.NO_EFFECT.get(
        engine_rules.Scoring(scoring), frozenset()
    )


def preset_values() -> dict[str, dict[str, object]]:
    """Every preset's full ruleset as JSON (the page shows the chosen preset's values)."""
    return {name: r.to_json() for name, r in engine_rules.PRESETS.items()}


def ruleset_form_errors(
    preset: str, overrides: Mapping[str, object]
) -> tuple[dict[str, object] | None, InvalidRuleset | None]:
    """The effective ruleset, or the refusal (the one validation, §1: the engine's, less what
    tournament play forbids, :mod:`tournament.rulesets`)."""
    try:
        return tournament_ruleset(preset, overrides).to_json(), None
    except InvalidRuleset as exc:
        return None, exc


def _entry_choices() -> list[tuple[str, Any]]:
    return [(INDIVIDUAL, _("Individual players")), (PAIRS, _("Pairs (partnerships)"))]


class TournamentForm(forms.Form):
    """Create or edit a tournament. Status changes live on their own page (lifecycle)."""

    name = forms.CharField(max_length=160, label=_("Name"))
    # A CharField, not a SlugField: the one slug rule (tournament.slugs) words every refusal;
    # Django's SlugField said underscores were allowed, then the service refused them.
    slug = forms.CharField(
        max_length=80,
        required=False,
        label=_("Short name in links"),
        help_text=_(
            "Letters, digits and hyphens; used in every link (/live/<slug>/). Left empty, it "
            "is made from the name."
        ),
    )
    venue = forms.CharField(max_length=160, required=False, label=_("Venue"))
    starts_on = forms.DateField(
        required=False, label=_("Starts on"), widget=forms.DateInput(attrs={"type": "date"})
    )
    ends_on = forms.DateField(
        required=False, label=_("Ends on"), widget=forms.DateInput(attrs={"type": "date"})
    )
    confirmation = forms.ChoiceField(
        required=False,
        label=_("Confirmation at the table"),
        choices=[
            ("off", _("Off")),
            ("match_end", _("At match end")),
            ("every_hand", _("Every hand")),
        ],
        help_text=_(
            "Off: the referee's record is final. At match end: every player confirms the "
            "result. Every hand: every player confirms each hand. Players tap their name on "
            "the referee's phone (PIN if issued); a disputed result waits in the dispute "
            "queue. Applies to matches started after saving."
        ),
    )
    entry_format = forms.ChoiceField(
        required=False,
        label=_("Entry format"),
        choices=_entry_choices,
        help_text=_(
            "Pairs: every entry is a partnership of two players, registered on the "
            "Partnerships page; needs a partnership ruleset (teams = partners, R42, T9). "
            "Cannot change once matches have been played."
        ),
    )
    ruleset_preset = forms.ChoiceField(
        label=_("Ruleset preset"),
        help_text=_(
            "A complete ruleset (the rules, §1: every preset's values); override single keys below."
        ),
    )

    def __init__(self, *args: Any, editing: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # "Name: Required.", as the service words it (core.visible_text), not Django's
        # "This field is required.".
        self.fields["name"].error_messages["required"] = self._name_refusal(gettext("Required."))
        presets = preset_values()
        field = self.fields["ruleset_preset"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [
            (name, f"{PRESET_LABELS[name]} ({name})" if name in PRESET_LABELS else name)
            for name in presets
        ]
        if editing:
            del self.fields["slug"]  # links already printed keep working
        else:
            # A new event follows its ruleset unless the director says otherwise: a
            # partnership preset (R42) makes a pairs event without a second step (T9).
            entry = self.fields["entry_format"]
            assert isinstance(entry, forms.ChoiceField)
            entry.choices = [
                ("", _("From the ruleset: pairs under a partnership ruleset (R42)")),
                *_entry_choices(),
            ]
        for key in option_keys():
            self._add_override(key, presets)

    def _add_override(self, key: str, presets: Mapping[str, Mapping[str, object]]) -> None:
        # Words outside the f-string: makemessages cannot read a call inside one.
        presets_word = _("Presets")
        help_first = HELP.get(key, _("A ruleset option (§1)."))
        per_preset = ", ".join(
            f"{n}: {NO_EFFECT_MARK if no_effect(v, key) else _preset_value(key, v[key])}"
            for n, v in presets.items()
        )
        help_text = f"{help_first} {presets_word}: {per_preset}."
        if any(no_effect(v, key) for v in presets.values()):
            help_text += " " + str(
                _("%(dash)s: no effect under that preset's scoring (§1).")
                % {"dash": NO_EFFECT_MARK}
            )
        label = LABELS.get(key) or key.replace("_", " ").capitalize()
        kind = _kind(key)
        name = f"rule_{key}"
        if kind == "enum":
            values = [m.value for m in engine_rules._ENUM_KEYS[key]]
            choices: list[tuple[str, Any]] = [(PRESET, _("— the preset's value —"))]
            if _nullable(key):
                choices.append(
                    (NULL, _("the rule's default: %(meaning)s") % {"meaning": NULL_MEANING[key]})
                )
            choices += [(v, value_label(key, v)) for v in values]
            self.fields[name] = forms.ChoiceField(
                choices=choices, required=False, label=label, help_text=help_text
            )
        elif kind == "bool":
            self.fields[name] = forms.ChoiceField(
                choices=[(PRESET, _("— the preset's value —")), (YES, _("yes")), (NO, _("no"))],
                required=False,
                label=label,
                help_text=help_text,
            )
        else:
            self.fields[name] = forms.IntegerField(
                required=False,
                label=label,
                help_text=help_text,
                widget=forms.NumberInput(attrs={"placeholder": _("preset")}),
            )
            if _nullable(key):
                self.fields[name + NULL_SUFFIX] = forms.BooleanField(
                    required=False,
                    label=_("%(key)s: the rule's default (%(meaning)s)")
                    % {"key": label, "meaning": NULL_MEANING[key]},
                )
        self.fields[name].rule_key = key  # type: ignore[attr-defined]

    # -- reading and writing ------------------------------------------------------------------

    def override_fields(self) -> list[forms.BoundField]:
        """Every override in the engine's order, each key's "the rule's default" box right
        after its field (not at the end of the form, away from it)."""
        out = []
        for key in option_keys():
            out.append(self[f"rule_{key}"])
            null = self.null_field(key)
            if null is not None:
                out.append(null)
        return out

    def refused_fields(self) -> list[forms.BoundField]:
        """Every field refused by this submission, in the page's order: the page lists them
        above the form (the ruleset's overrides are far below the name)."""
        if not self.is_bound:
            return []
        rules = {f.name for f in self.override_fields()}
        first = [self[name] for name in self.fields if name not in rules]
        return [f for f in (*first, *self.override_fields()) if f.errors]

    def null_field(self, key: str) -> forms.BoundField | None:
        name = f"rule_{key}{NULL_SUFFIX}"
        return self[name] if name in self.fields else None

    @staticmethod
    def initial_overrides(overrides: Mapping[str, object]) -> dict[str, object]:
        """Form initial values for stored overrides."""
        out: dict[str, object] = {}
        for key, value in overrides.items():
            kind = _kind(key) if key in option_keys() else ""
            name = f"rule_{key}"
            if kind == "enum":
                out[name] = NULL if value is None else value
            elif kind == "bool":
                out[name] = YES if value else NO
            elif kind == "int":
                if value is None:
                    out[name + NULL_SUFFIX] = True
                else:
                    out[name] = value
        return out

    def overrides(self) -> dict[str, object]:
        """The overrides the director set (cleaned data)."""
        d = self.cleaned_data
        out: dict[str, object] = {}
        for key in option_keys():
            kind = _kind(key)
            raw = d.get(f"rule_{key}")
            if kind == "enum":
                if raw == NULL:
                    out[key] = None
                elif raw:
                    out[key] = raw
            elif kind == "bool":
                if raw in (YES, NO):
                    out[key] = raw == YES
            elif d.get(f"rule_{key}{NULL_SUFFIX}"):
                out[key] = None
            elif raw is not None:
                out[key] = raw
        return out

    # -- the service's field checks, run here so that one submission names every mistake ------
    # (user test: a bad slug, a taken slug and an invisible name were refused by the service
    # one per submission, and only once every other field was valid; the service checks them
    # again, tournament_create_check).

    def _name_refusal(self, problem: str) -> str:
        return f"{self.fields['name'].label}: {problem}"

    def clean_name(self) -> str:
        """A name a reader sees, without text-direction controls (core.visible_text)."""
        name = str(self.cleaned_data.get("name", ""))
        problem = name_problem(name, required=True)
        if problem is not None:
            raise forms.ValidationError(self._name_refusal(problem), code="invalid_name")
        return name

    def clean_slug(self) -> str:
        """A typed slug by the one rule (tournament.slugs), lowercased, and free; empty: made
        from the name in :meth:`clean`."""
        typed = str(self.cleaned_data.get("slug", ""))
        if not typed:
            return ""
        try:
            slug = tournament_slug_check(typed)
        except ApplicationError as exc:
            raise forms.ValidationError(exc.fields["slug"], code=exc.code) from None
        if tournament_slug_taken(slug=slug):
            # The whole message, naming the slug (a bare "Taken." said neither which one).
            refusal = tournament_slug_taken_error(slug)
            raise forms.ValidationError(refusal.message, code=refusal.code)
        return slug

    def slug_taken_only(self) -> bool:
        """Whether the only refusal is a typed slug that is taken: the view then looks for the
        tournament this very form created a moment ago (a double submission)."""
        return set(self.errors) == {"slug"} and self.has_error("slug", code="slug_taken")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        # The dates are checked even when another field is refused: every mistake of one
        # submission is shown at once (the ruleset check needs every rule field valid).
        starts, ends = data.get("starts_on"), data.get("ends_on")
        if starts and ends and ends < starts:
            self.add_error("ends_on", _("The tournament cannot end before it starts."))
        if "slug" in self.fields and data.get("slug") == "" and data.get("name"):
            data["slug"] = tournament_slug_free(name=data["name"])
            if not data["slug"]:
                self.add_error(
                    "slug", _("The name has no letters or digits to make a link from: give one.")
                )
        # The ruleset check reads every rule field, so it waits only for those (and the
        # preset): an empty name or a bad date does not hide a refused ruleset.
        if self._rule_field_refused():
            return data
        ruleset = self._check_ruleset(data.get("ruleset_preset", ""), self.overrides())
        data["ruleset"] = ruleset
        # T9, the rule tournament.partnerships applies: a pairs event plays a partnership
        # ruleset. Checked here against the ruleset being saved (the service checks it again).
        entry_format = data.get("entry_format") or self.initial.get("entry_format")
        if entry_format == PAIRS and ruleset and not is_partnership_ruleset(ruleset):
            self.add_error(
                "entry_format",
                _("A pairs event needs a partnership ruleset (teams = partners, R42, T9)."),
            )
        return data

    def _rule_field_refused(self) -> bool:
        """Whether the preset or a rule field (``rule_*``) failed its own validation: the
        ruleset cannot be read then (a refused field has no cleaned value)."""
        return any(name == "ruleset_preset" or name.startswith("rule_") for name in self.errors)

    def _check_ruleset(
        self, preset: str, overrides: Mapping[str, object]
    ) -> dict[str, object] | None:
        """The engine's effective ruleset (§1), or None with EVERY refusal on its field (the
        one walk of :func:`tournament.rulesets.tournament_ruleset_refusals`, the API's too)."""
        ruleset, _error = ruleset_form_errors(preset, overrides)
        for error, remaining in tournament_ruleset_refusals(preset, overrides):
            deal = remaining.get("deal", preset_values().get(preset, {}).get("deal"))
            self.add_engine_error(error, deal)
        return ruleset

    def add_engine_error(self, error: InvalidRuleset, deal: object = None) -> None:
        """Put the engine's refusal on the field it names, with its rule: in the page's
        language where :data:`ENGINE_MESSAGES` words it, else the engine's own message."""
        field = "ruleset_preset" if error.field == "preset" else f"rule_{error.field}"
        if field not in self.fields:
            field = None  # type: ignore[assignment]
        worded = ENGINE_MESSAGES.get((error.code, error.field or ""))
        if error.code == "nonsense_combination" and error.field == "boneyard":
            worded = ENGINE_MESSAGES.get(
                (error.code, "boneyard" if deal == "standard" else "boneyard_left_over")
            )
        message = str(worded) % {"max": MAX_POINTS} if worded is not None else error.message
        # The engine's rule, unless the words already name one ("(R30-R32)", not
        # "(R30-R32). (§1)").
        if error.rule and error.rule not in message and not _NAMES_A_RULE.search(message):
            message = f"{message} ({error.rule})"
        self.add_error(field, message)
