"""A tournament's slug: one rule (tournament.slugs) and one message at every entry point.

Bug: the API's input took ``a_b`` (DRF's ``SlugField`` allows underscores) and refused
``café`` in words of its own ("letters, numbers, underscores or hyphens"), and the admin took
``a_b``, ``UPPER`` and ``new`` as they were, where the director's form and the service refuse
them. Now the API input, the create form, the admin and the service all run
:func:`tournament.slugs.tournament_slug_check`: the same refusal, word for word, with its code
in the API (``invalid_slug``, ``reserved_slug``). A slug is never changed through the API or the
settings form (links already printed keep working); the admin may change it, by the rule.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from core.exceptions import ApplicationError
from tests.factories import TournamentFactory, director_of, tournament_creator
from tournament.models import Tournament
from tournament.services import tournament_create

pytestmark = pytest.mark.django_db

UNDERSCORE = (
    "Short name in links: only letters, digits and hyphens (no spaces, underscores or "
    "accents; a hyphen between two of them)."
)
RESERVED = "Short name in links: 'new' is a word the site's own links use; choose another."
REFUSED = [("a_b", "invalid_slug", UNDERSCORE), ("café", "invalid_slug", UNDERSCORE)]
REFUSED += [("New", "reserved_slug", RESERVED)]


def _admin_form(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "name": "Admin Cup",
        "slug": "admin-cup",
        "venue": "",
        "starts_on": "",
        "ends_on": "",
        "status": "draft",
        "ruleset_preset": "wsod",
        "ruleset_overrides": "{}",
    }
    for prefix in ("roles", "tables", "entries"):
        data |= {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}
    return data | extra


def _api() -> APIClient:
    api = APIClient()
    api.force_authenticate(tournament_creator())
    return api


@pytest.mark.parametrize(("slug", "code", "message"), REFUSED)
def test_the_service_refuses(slug: str, code: str, message: str) -> None:
    with pytest.raises(ApplicationError) as refused:
        tournament_create(actor=tournament_creator(), name="Cup", slug=slug)
    assert (refused.value.code, refused.value.fields) == (code, {"slug": [message]})


@pytest.mark.parametrize(("slug", "code", "message"), REFUSED)
def test_the_api_input_refuses_in_the_same_words(slug: str, code: str, message: str) -> None:
    r = _api().post("/api/v1/tournaments/", {"name": "Cup", "slug": slug}, format="json")
    assert r.status_code == 400
    assert r.json()["error"] == {"code": code, "message": message, "fields": {"slug": [message]}}
    assert not Tournament.objects.exists()


def test_the_api_input_refuses_the_slug_with_the_other_fields() -> None:
    """The input's slug refusal does not hide the service's date check (one answer)."""
    r = _api().post(
        "/api/v1/tournaments/",
        {"name": "Cup", "slug": "a_b", "starts_on": "2027-03-05", "ends_on": "2027-03-01"},
        format="json",
    )
    error = r.json()["error"]
    assert (r.status_code, error["code"]) == (400, "invalid")
    assert error["fields"] == {"slug": [UNDERSCORE], "ends_on": ["Before starts_on."]}


def test_the_api_lowercases_and_a_patch_never_changes_the_slug() -> None:
    api = _api()
    r = api.post("/api/v1/tournaments/", {"name": "Cup", "slug": "Mixed-Cup"}, format="json")
    assert (r.status_code, r.json()["slug"]) == (201, "mixed-cup")
    r = api.patch("/api/v1/tournaments/mixed-cup/", {"slug": "a_b"}, format="json")
    assert r.status_code == 200
    assert Tournament.objects.get().slug == "mixed-cup"


@pytest.mark.parametrize(("slug", "code", "message"), REFUSED)
def test_the_create_form_refuses(slug: str, code: str, message: str) -> None:
    client = Client()
    client.force_login(tournament_creator())
    r = client.post(
        reverse("brackets:tournament-create"),
        {"name": "Cup", "slug": slug, "ruleset_preset": "wsod"},
    )
    assert r.status_code == 400
    assert r.context["form"].errors["slug"] == [message]


@pytest.mark.parametrize(("slug", "code", "message"), REFUSED)
def test_the_admin_refuses_a_new_tournaments_slug(
    admin_client: Client, slug: str, code: str, message: str
) -> None:
    r = admin_client.post("/admin/tournament/tournament/add/", _admin_form(slug=slug))
    assert r.status_code == 200
    assert r.context["adminform"].form.errors["slug"] == [message]
    assert not Tournament.objects.exists()


def test_the_admin_refuses_a_changed_slug_and_keeps_an_old_one(admin_client: Client) -> None:
    old = TournamentFactory(slug="Old_Mixed", status="draft")  # stored before the rule
    TournamentFactory(slug="spring-cup")
    url = f"/admin/tournament/tournament/{old.pk}/change/"
    form = _admin_form(name=old.name, status="draft")
    r = admin_client.post(url, form | {"slug": "a_b"})
    assert r.context["adminform"].form.errors["slug"] == [UNDERSCORE]
    r = admin_client.post(url, form | {"slug": "Spring-Cup"})
    assert r.context["adminform"].form.errors["slug"] == [
        "Short name in links: 'spring-cup' is another tournament's; choose another."
    ]
    r = admin_client.post(url, form | {"slug": "Old_Mixed", "venue": "Hall B"})
    assert r.status_code == 302
    old.refresh_from_db()
    assert (str(old.slug), old.venue) == ("Old_Mixed", "Hall B")
    r = admin_client.post(url, form | {"slug": "New-Name"})
    assert r.status_code == 302
    old.refresh_from_db()
    assert str(old.slug) == "new-name"


def test_the_admin_creates_with_a_good_slug_lowercased(admin_client: Client) -> None:
    r = admin_client.post("/admin/tournament/tournament/add/", _admin_form(slug="Admin-Cup"))
    assert r.status_code == 302
    assert Tournament.objects.get().slug == "admin-cup"


def test_the_settings_form_has_no_slug() -> None:
    tournament = TournamentFactory()
    client = Client()
    client.force_login(director_of(tournament))
    r = client.get(reverse("brackets:settings", args=[tournament.slug]))
    assert "slug" not in r.context["form"].fields
