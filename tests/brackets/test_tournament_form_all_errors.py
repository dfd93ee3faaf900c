"""The new-tournament form names every mistake of one submission at once, each under its field.

Found by the user test (a director running a whole event through the pages): a reserved or
taken slug, a slug with an underscore and a name with nothing visible or a text-direction
control were refused by the service one per submission, and only once every field the form
checks itself (the dates, the ruleset, §1) was valid: fix one, submit, see the next. Now the
form runs the service's field checks itself (the one slug rule, tournament.slugs; the one name
rule, core.visible_text), and the service, for API clients, names every refused field in one
error (``tournament_create_check``); cross-field rules keep their own refusal (T9, R2 ...).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape
from rest_framework.test import APIClient

from core.exceptions import ApplicationError
from tests.factories import TournamentFactory, director_of, tournament_creator
from tournament.models import Tournament
from tournament.services import tournament_create

pytestmark = pytest.mark.django_db

RESERVED = "Short name in links: 'new' is a word the site's own links use; choose another."
UNDERSCORE = (
    "Short name in links: only letters, digits and hyphens (no spaces, underscores or "
    "accents; a hyphen between two of them)."
)
DATES = "The tournament cannot end before it starts."
INVISIBLE = "Name: Required."
BIDI = "Name: No text-direction control characters (U+202E): they reorder the text around the name."
TARGET = "A whole number from 1 to 1000 (R30-R32)."
PAIRS = "A pairs event needs a partnership ruleset (teams = partners, R42, T9)."


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _form(**extra: Any) -> dict[str, Any]:
    return {"name": "Open 2027", "slug": "", "venue": "Hall", "ruleset_preset": "wsod"} | extra


def _field_html(html: str, name: str) -> str:
    """The markup of one field's block on the page (brackets/_field.html)."""
    found = re.search(rf'<div class="field[^"]*" data-field="{name}">(.*?)</div>', html, re.S)
    assert found is not None, name
    return found.group(1)


def test_one_submission_shows_every_field_error_under_its_field_and_keeps_the_values() -> None:
    """A reserved slug, an end before the start, a name of zero-width spaces and a target of
    -3: four refusals in one answer, each in its field's block (the slug's and the name's came
    from the service, one per submission, after the other two were fixed)."""
    client = _client(tournament_creator())
    sent = _form(
        name="\u200b\u200b",
        slug="new",
        starts_on="2027-03-05",
        ends_on="2027-03-01",
        rule_target="-3",
    )
    r = client.post(reverse("brackets:tournament-create"), sent)
    assert r.status_code == 400
    errors = r.context["form"].errors
    assert errors == {
        "name": [INVISIBLE],
        "slug": [RESERVED],
        "ends_on": [DATES],
        "rule_target": [TARGET],
    }
    html = r.content.decode()
    for field, message in (
        ("name", INVISIBLE),
        ("slug", RESERVED),
        ("ends_on", DATES),
        ("rule_target", TARGET),
    ):
        block = _field_html(html, field)
        assert f'<p class="error field-error">{escape(message)}</p>' in block, field
    # What the director typed is still there.
    assert 'value="new"' in _field_html(html, "slug")
    assert 'value="Hall"' in _field_html(html, "venue")
    assert 'value="2027-03-05"' in _field_html(html, "starts_on")
    assert 'value="-3"' in _field_html(html, "rule_target")
    # Above the form: how many fields, each a link to its input (the overrides are far down).
    summary = re.search(r'<div[^>]*id="form-error-summary"[^>]*>(.*?)</div>', html, re.S)
    assert summary is not None
    assert "Correct the 4 fields marked below:" in summary.group(1)
    links = re.findall(r'<a href="#([^"]+)">([^<]+)</a>', summary.group(1))
    assert links == [
        ("id_name", "Name"),
        ("id_slug", "Short name in links"),
        ("id_ends_on", "Ends on"),
        ("id_rule_target", "Target"),
    ]
    assert not Tournament.objects.exists()


def test_a_taken_slug_a_direction_control_and_a_cross_field_rule_show_together() -> None:
    """A slug another event holds (whatever its case), a name with a right-to-left override
    and a pairs event under an individual ruleset (T9): all three at once."""
    TournamentFactory(slug="spring-cup")
    client = _client(tournament_creator())
    r = client.post(
        reverse("brackets:tournament-create"),
        _form(name="Cup\u202e", slug="Spring-Cup", entry_format="pairs"),
    )
    assert r.status_code == 400
    assert r.context["form"].errors == {
        "name": [BIDI],
        "slug": ["Short name in links: 'spring-cup' is another tournament's; choose another."],
        "entry_format": [PAIRS],
    }
    assert Tournament.objects.count() == 1


def test_an_underscore_is_refused_by_the_slug_rule_not_djangos() -> None:
    """Django's slug field said "letters, numbers, underscores or hyphens", then the service
    refused the underscore: one rule, one message, from the first submission."""
    client = _client(tournament_creator())
    r = client.post(reverse("brackets:tournament-create"), _form(slug="open_2027", name=""))
    assert r.status_code == 400
    assert r.context["form"].errors == {"name": [INVISIBLE], "slug": [UNDERSCORE]}
    assert "underscores or hyphens" not in r.content.decode()
    assert not Tournament.objects.exists()


def test_a_valid_form_creates_with_the_typed_slug_lowercased() -> None:
    client = _client(tournament_creator())
    r = client.post(reverse("brackets:tournament-create"), _form(slug="Open-2027"))
    assert r.status_code == 302
    assert Tournament.objects.get().slug == "open-2027"


def test_the_service_names_every_refused_field_in_one_error() -> None:
    """For API clients too: one 400 with every field, not one per request."""
    with pytest.raises(ApplicationError) as refused:
        tournament_create(
            actor=tournament_creator(),
            name="\u200b",
            slug="new",
            starts_on=date(2027, 3, 5),
            ends_on=date(2027, 3, 1),
        )
    assert refused.value.code == "invalid"
    assert set(refused.value.fields) == {"slug", "ends_on", "name"}
    assert refused.value.fields["slug"] == [RESERVED]
    assert refused.value.fields["name"] == [INVISIBLE]
    assert not Tournament.objects.exists()


def test_the_api_answers_every_refused_field_at_once() -> None:
    TournamentFactory(slug="spring-cup")
    api = APIClient()
    api.force_authenticate(tournament_creator())
    r = api.post(
        "/api/v1/tournaments/",
        {
            "name": "\u200b",
            "slug": "spring-cup",
            "starts_on": "2027-03-05",
            "ends_on": "2027-03-01",
        },
        format="json",
    )
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "invalid"
    assert set(error["fields"]) == {"slug", "ends_on", "name"}
    assert Tournament.objects.count() == 1


def test_the_settings_page_shows_the_name_and_the_dates_together() -> None:
    tournament = TournamentFactory(name="Before")
    client = _client(director_of(tournament))
    r = client.post(
        reverse("brackets:settings", args=[tournament.slug]),
        {
            "name": "\u202eCup",
            "ruleset_preset": tournament.ruleset_preset,
            "starts_on": "2027-03-05",
            "ends_on": "2027-03-01",
        },
    )
    assert r.status_code == 400
    assert r.context["form"].errors == {"name": [BIDI], "ends_on": [DATES]}
    assert Tournament.objects.get(pk=tournament.pk).name == "Before"


def test_confirmation_at_the_table_is_chosen_when_the_tournament_is_created() -> None:
    """Walkthrough: confirmation at the table (issue 15) was only on the Settings page; a
    director choosing how results are confirmed does it with the event, on the New form."""
    client = _client(tournament_creator())
    url = reverse("brackets:tournament-create")
    page = client.get(url).content.decode()
    assert 'data-field="confirmation"' in page
    made = client.post(url, _form(name="Confirmed Open", confirmation="every_hand"))
    assert made.status_code == 302
    assert Tournament.objects.get(name="Confirmed Open").confirmation == "every_hand"
    # Left as it is, it is off; a value the form does not offer is refused under the field.
    client.post(url, _form(name="Plain Open"))
    assert Tournament.objects.get(name="Plain Open").confirmation == "off"
    refused = client.post(url, _form(name="Odd Open", confirmation="sometimes"))
    assert refused.status_code == 400
    assert "sometimes" in _field_html(refused.content.decode(), "confirmation")
    assert not Tournament.objects.filter(name="Odd Open").exists()
