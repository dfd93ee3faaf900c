"""Sporting is never allowed in tournament play (RULES.md §1, R11; tournament.rulesets): every
way of setting a tournament's ruleset refuses ``sporting_allowed = true``, naming the key and
R11, and stores nothing; the director's form does not offer it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from core.exceptions import ApplicationError
from tests.factories import TournamentFactory, UserFactory, director_of, tournament_creator
from tournament import services
from tournament.models import Tournament
from tournament.rulesets import tournament_ruleset
from tournament.services import _ruleset_effective

pytestmark = pytest.mark.django_db

SPORTING = {"sporting_allowed": True}


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("preset", ["wsod", "straight_six", "jamaican", "block", "wsod_partners"])
def test_every_preset_refuses_sporting_and_keeps_it_off(preset: str) -> None:
    assert tournament_ruleset(preset).sporting_allowed is False
    assert tournament_ruleset(preset, {"sporting_allowed": False}).sporting_allowed is False
    with pytest.raises(ApplicationError) as exc:
        _ruleset_effective(preset, SPORTING)
    assert (exc.value.code, exc.value.rule) == ("not_in_tournament_play", "R11")
    assert "ruleset_overrides.sporting_allowed" in exc.value.fields


def test_create_and_then_update_refuse_sporting_and_store_nothing() -> None:
    staff = tournament_creator()
    with pytest.raises(ApplicationError) as exc:
        services.tournament_create(
            actor=staff, name="Casual", slug="casual", ruleset_overrides=SPORTING
        )
    assert "R11" in exc.value.message
    assert not Tournament.objects.filter(slug="casual").exists()
    # The chain: a valid tournament, then an edit that turns sporting on.
    t = services.tournament_create(actor=staff, name="Open", slug="open")
    with pytest.raises(ApplicationError) as exc:
        services.tournament_update(
            tournament=t,
            actor=staff,
            data={"ruleset_overrides": {"tie_value": "flat2", **SPORTING}},
        )
    assert exc.value.rule == "R11"
    t.refresh_from_db()
    assert t.ruleset_overrides == {}
    assert t.ruleset["sporting_allowed"] is False


def test_the_api_answers_400_naming_the_key_and_the_rule() -> None:
    client = _client(tournament_creator())
    r = client.post(
        "/api/v1/tournaments/",
        {"name": "Casual", "slug": "casual", "ruleset_overrides": SPORTING},
        content_type="application/json",
    )
    assert r.status_code == 400, r.content
    error = r.json()["error"]
    assert error["rule"] == "R11"
    assert "ruleset_overrides.sporting_allowed" in error["fields"]
    assert not Tournament.objects.filter(slug="casual").exists()


def test_the_form_does_not_offer_sporting_and_a_forged_field_changes_nothing() -> None:
    client = _client(tournament_creator())
    page = client.get(reverse("brackets:tournament-create")).content.decode()
    assert 'name="rule_sporting_allowed"' not in page
    assert 'name="rule_draw_when_playable"' in page  # the other flag is still offered
    r = client.post(
        reverse("brackets:tournament-create"),
        {"name": "Open", "slug": "open", "ruleset_preset": "wsod", "rule_sporting_allowed": "true"},
    )
    assert r.status_code == 302
    t = Tournament.objects.get(slug="open")
    assert t.ruleset_overrides == {}
    assert t.ruleset["sporting_allowed"] is False


def test_editing_a_tournament_stored_with_sporting_turns_it_off() -> None:
    """A tournament stored before this rule (sporting on) is put right by its next edit: the
    form has no sporting field, so the saved overrides leave it out."""
    t = TournamentFactory(
        ruleset_preset="wsod",
        ruleset_overrides=SPORTING,
        ruleset={**_ruleset_effective("wsod", {}), **SPORTING},
    )
    client = _client(director_of(t))
    r = client.post(
        reverse("brackets:settings", args=[t.slug]),
        {"name": t.name, "ruleset_preset": "wsod", "confirmation": "off"},
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    t.refresh_from_db()
    assert t.ruleset_overrides == {}
    assert t.ruleset["sporting_allowed"] is False


def test_the_admin_refuses_sporting() -> None:
    admin_user = UserFactory(is_staff=True, is_superuser=True)
    t = TournamentFactory(ruleset_preset="wsod", ruleset=_ruleset_effective("wsod", {}))
    form = {
        "name": t.name,
        "slug": t.slug,
        "status": t.status,
        "ruleset_preset": "wsod",
        "ruleset_overrides": json.dumps(SPORTING),
        "version": t.version,
    }
    for prefix in ("roles", "tables", "entries"):
        form.update({f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"})
    r = _client(admin_user).post(reverse("admin:tournament_tournament_change", args=[t.pk]), form)
    assert r.status_code == 200  # the form again, with the error
    assert "R11" in r.content.decode()
    t.refresh_from_db()
    assert t.ruleset_overrides == {}
