"""The ruleset's OpenAPI schema, generated from the rules engine (RULES.md section 1, issue 20).

Nothing here is hand-copied from RULES.md: the options, their types, their allowed values and the
presets come from :mod:`dominoes.options` and :mod:`dominoes.ruleset` (the ``Ruleset`` dataclass,
its enums and its key tables), and the rule numbers from each enum's docstring ("R31", "R2"...).
Only the lower bounds of the integer options are stated here (the engine checks them in code, not in
data); ``tests/core/test_api_contract_schema.py`` checks each bound against the engine.

* :data:`RULESET_SERIALIZER` — the effective ruleset (every key), one component ``Ruleset``
  whose enum options are components of their own (``RulesetScoringEnum``...);
* :data:`RULESET_OVERRIDES_SERIALIZER` — the same keys, all optional (``RulesetOverrides``);
* :data:`PRESET_NAMES` — the presets, documented as an enum.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import fields
from typing import Any, Final

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from dominoes.options import _BOOL_KEYS, _ENUM_KEYS, _NULLABLE_KEYS
from dominoes.ruleset import PRESETS, Ruleset

PRESET_NAMES: Final = tuple(PRESETS)
# Lower bounds the engine enforces in code (dominoes.options module docstring).
INT_MINIMUMS: Final = {"target": 1, "playoff_value": 1, "tie_value_cap": 1, "boneyard_reserve": 0}
_RULE = re.compile(r"\bR\d+[a-z]?\b")
_INT_RULES: Final = {"target": "R41", "playoff_value": "R31d", "tie_value_cap": "R26"}
_BOOL_RULES: Final = {"sporting_allowed": "R11", "draw_when_playable": "R16"}


def _option_field(name: str, *, partial: bool) -> serializers.Field[Any, Any, Any, Any]:
    nullable = name in _NULLABLE_KEYS
    common: dict[str, Any] = {"allow_null": nullable}
    if partial:
        common["required"] = False
    if name in _ENUM_KEYS:
        enum_cls = _ENUM_KEYS[name]
        doc = inspect.cleandoc(enum_cls.__doc__ or "")
        help_text = doc if _RULE.search(doc) else f"{doc} (RULES.md §1)"
        if nullable:
            help_text += " null: per R2."
        return serializers.ChoiceField(
            choices=[m.value for m in enum_cls], help_text=help_text, **common
        )
    if name in _BOOL_KEYS:
        return serializers.BooleanField(
            help_text=f"{name.replace('_', ' ')} ({_BOOL_RULES.get(name, '§1')}; RULES.md §1)",
            **common,
        )
    help_text = f"{name.replace('_', ' ')} ({_INT_RULES.get(name, '§1')}; RULES.md §1)"
    if nullable:
        help_text += " null: the default for the scoring."
    return serializers.IntegerField(
        min_value=INT_MINIMUMS[name], max_value=2**31 - 1, help_text=help_text, **common
    )


def _serializer(name: str, *, partial: bool) -> type[serializers.Serializer[Any]]:
    attrs: dict[str, Any] = {}
    if not partial:
        attrs["preset"] = serializers.ChoiceField(
            choices=list(PRESET_NAMES), help_text="The preset this ruleset derives from (§1)"
        )
    for f in fields(Ruleset):
        if f.name != "preset":
            attrs[f.name] = _option_field(f.name, partial=partial)
    doc = (
        "Single ruleset keys changed from the preset (RULES.md §1); unknown keys are a 400."
        if partial
        else "The effective ruleset: every option of RULES.md §1, as the engine plays it."
    )
    attrs["__doc__"] = doc
    return type(name, (serializers.Serializer,), attrs)


RULESET_SERIALIZER: Final = _serializer("Ruleset", partial=False)
RULESET_OVERRIDES_SERIALIZER: Final = _serializer("RulesetOverrides", partial=True)


@extend_schema_field(RULESET_SERIALIZER)
class RulesetField(serializers.DictField):
    """A ruleset as JSON, documented as :data:`RULESET_SERIALIZER`."""


@extend_schema_field(RULESET_OVERRIDES_SERIALIZER)
class RulesetOverridesField(serializers.DictField):
    """Ruleset overrides as JSON; the engine validates each (a 400 naming the key, §1)."""


@extend_schema_field(serializers.ChoiceField(choices=list(PRESET_NAMES)))
class PresetField(serializers.CharField):
    """A preset name, documented as an enum; the engine rejects an unknown one (400, §1)."""


@extend_schema_field(
    {
        "oneOf": [
            {"$ref": "#/components/schemas/Ruleset"},
            {"type": "object", "maxProperties": 0, "description": "Not started yet"},
        ]
    }
)
class FrozenRulesetField(serializers.DictField):
    """A match's ruleset: frozen when the match starts, ``{}`` until then."""
