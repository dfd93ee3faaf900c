"""The tournament form never shows "null" to a director: a key the preset leaves empty reads
as what the rule does then ("no cap (R26)", "as the deal says (R2)", R41's target)."""

from __future__ import annotations

import html as htmllib
import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from brackets.tournament_forms import (
    NO_EFFECT_MARK,
    NULL_MEANING,
    no_effect,
    preset_labels,
    preset_values,
)
from tests.factories import TournamentFactory, director_of

pytestmark = pytest.mark.django_db


def _visible(html: str) -> str:
    """The page's text: no JSON data scripts (the data may say null), no tags or attributes."""
    text = re.sub(r'<script[^>]*type="application/json"[^>]*>.*?</script>', "", html, flags=re.S)
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", text))


def test_settings_form_words_null_as_the_rule_does() -> None:
    tournament = TournamentFactory()
    client = Client()
    client.force_login(director_of(tournament))
    html = client.get(reverse("brackets:settings", args=[tournament.slug])).content.decode()
    visible = _visible(html)
    assert "null" not in visible.lower()
    assert "Target: the rule's default (" in visible
    assert "the rule's default: as the deal says (R2)" in visible  # the boneyard choice
    labels = json.loads(
        html.split('id="ruleset-preset-labels" type="application/json">', 1)[1].split("</script>")[
            0
        ]
    )
    assert labels["prefix"] == "preset"
    for name, values in preset_values().items():
        for key, value in values.items():
            shown = labels["values"][name][key]
            if no_effect(values, key):
                assert shown == NO_EFFECT_MARK, (name, key)
            elif value is None:
                assert shown == str(NULL_MEANING[key]), (name, key)
            assert shown != "null"


def test_preset_labels_name_the_block_target_by_rule() -> None:
    block = preset_labels()["values"]["block"]  # type: ignore[index]
    assert "R41" in block["target"]
    assert block["tie_value_cap"] == NO_EFFECT_MARK  # §1: no effect under pip scoring
    assert preset_labels()["values"]["wsod"]["tie_value_cap"] == "no cap (R26)"  # type: ignore[index]


@pytest.mark.parametrize("preset", sorted(preset_values()))
def test_the_forms_dash_is_the_engines_no_effect(preset: str) -> None:
    """The form marks exactly the engine's NO_EFFECT keys of the preset's scoring (the
    engine's set is checked against RULES.md §1 in tests/scoring/engine/test_rules.py)."""
    from scoring.engine.rules import NO_EFFECT, Scoring

    values = preset_values()[preset]
    marked = {key for key in values if no_effect(values, key)}
    assert marked == NO_EFFECT[Scoring(str(values["scoring"]))]
    labels = preset_labels()["values"][preset]  # type: ignore[index]
    assert {key for key in values if labels[key] == NO_EFFECT_MARK} == marked


def test_the_help_of_a_key_with_no_effect_says_so_instead_of_a_value() -> None:
    """Walkthrough: the help of "tie opener" listed "block: Leader" though a pip match never
    reads it; RULES.md §1 writes a dash there."""
    tournament = TournamentFactory()
    client = Client()
    client.force_login(director_of(tournament))
    html = client.get(reverse("brackets:settings", args=[tournament.slug])).content.decode()
    visible = re.sub(r"\s+", " ", _visible(html))
    assert f"block: {NO_EFFECT_MARK}" in visible
    assert f"{NO_EFFECT_MARK}: no effect under that preset's scoring (§1)." in visible


def test_every_ruleset_choice_is_named_with_its_rules_value() -> None:
    """A choice reads as what it does, with the RULES.md §1 value beside it ("Forced 6-6
    (forced_six_six)"): the director can find it in the rules and in the help text, which
    quote the values."""
    from brackets.tournament_forms import VALUE_LABELS, value_label
    from scoring.engine import rules as engine_rules

    for key, members in engine_rules._ENUM_KEYS.items():
        for member in members:
            assert member.value in VALUE_LABELS.get(key, {}), (key, member.value)
    assert value_label("opening", "forced_six_six") == "Forced 6-6 (forced_six_six)"
    assert value_label("unknown_key", "x") == "x"  # a key the engine gains shows its value

    tournament = TournamentFactory()
    client = Client()
    client.force_login(director_of(tournament))
    html = client.get(reverse("brackets:settings", args=[tournament.slug])).content.decode()
    assert '<option value="lot_then_rotate">Lot, then rotate (lot_then_rotate)</option>' in html
    assert '<option value="pips">Pip count (pips)</option>' in html
    wsod = preset_labels()["values"]["wsod"]  # type: ignore[index]
    assert wsod["scoring"] == "Six-love, with resets (six_love)"  # "— preset: ... —"
    assert wsod["target"] == "6"

    client.cookies["django_language"] = "es"
    html_es = client.get(reverse("brackets:settings", args=[tournament.slug])).content.decode()
    assert '<option value="lot_then_rotate">Sorteo y luego rotación (lot_then_rotate)</option>' in (
        html_es
    )
