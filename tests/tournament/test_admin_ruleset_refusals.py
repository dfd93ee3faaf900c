"""The Django admin's tournament form names every refused ruleset key at once (§1), as the
director's form and the API do (:func:`tournament.rulesets.tournament_ruleset_refusals`).

Bug: the admin showed the engine's first refusal only (a target of -3), so a second bad key (a
boneyard the standard deal cannot have, R2) came up only after the first was fixed.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from tests.tournament.test_tournament_slug_entry_points import _admin_form
from tournament.models import Tournament

pytestmark = pytest.mark.django_db

BAD = {"target": -3, "deal": "standard", "boneyard": "draw"}


def _errors(response: Any) -> list[str]:
    form = response.context["adminform"].form
    return [str(e) for e in form.errors.get("ruleset_overrides", [])]


def test_the_admin_names_both_refused_ruleset_keys(admin_client: Client) -> None:
    r = admin_client.post(
        "/admin/tournament/tournament/add/",
        _admin_form(ruleset_overrides=json.dumps(BAD)),
    )
    assert r.status_code == 200  # the form again, not a redirect
    errors = _errors(r)
    assert len(errors) == 2, errors
    assert errors[0].startswith("target: ")
    assert errors[1].startswith("boneyard: ")
    assert all(e.endswith(")") and "(" in e for e in errors)  # each with its rule
    assert not Tournament.objects.filter(slug="admin-cup").exists()


def test_the_admin_keeps_a_valid_ruleset(admin_client: Client) -> None:
    r = admin_client.post(
        "/admin/tournament/tournament/add/",
        _admin_form(ruleset_overrides=json.dumps({"target": 100})),
    )
    assert r.status_code == 302
    t = Tournament.objects.get(slug="admin-cup")
    assert t.ruleset["target"] == 100
