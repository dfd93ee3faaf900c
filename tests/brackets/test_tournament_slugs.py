"""A tournament's slug: one rule for the page and the API, and one tournament per submission.

Bug: ``UPPER-Case``, ``a_b`` and ``new`` were taken as slugs; ``UPPER-Case`` and
``upper-case`` could both exist, and lowercase links found neither. Now a slug is lowercased,
holds letters, digits and hyphens only, is unique whatever its case and is no word of the
site's links (``tournament.slugs``); slugs stored before are left alone.

Bug: the create form sent twice with the slug left empty made two tournaments
("resubmit-cup", "resubmit-cup-2"), and a double click's second answer said "The slug ... is
taken" on a form where no slug was typed. Now the second submission leads to the first one.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from core.exceptions import ApplicationError
from tests.factories import TournamentFactory, tournament_creator
from tournament.models import Tournament
from tournament.selectors import tournament_slug_free
from tournament.services import tournament_create

pytestmark = pytest.mark.django_db


def _form(**extra: Any) -> dict[str, Any]:
    return {"name": "Resubmit Cup", "slug": "", "venue": "Hall", "ruleset_preset": "wsod"} | extra


@pytest.fixture
def staff() -> Any:
    """An account that may create tournaments (the staff flag alone may not)."""
    return tournament_creator()


def test_a_typed_slug_is_lowercased_and_unique_whatever_its_case(staff: Any) -> None:
    made = tournament_create(actor=staff, name="Upper", slug="UPPER-Case")
    assert made.slug == "upper-case"
    TournamentFactory(slug="Old-Mixed")  # stored before the rule: left alone
    for slug in ("upper-case", "Upper-CASE", "old-mixed"):
        with pytest.raises(ApplicationError) as taken:
            tournament_create(actor=staff, name="Again", slug=slug)
        assert taken.value.code == "slug_taken", slug


@pytest.mark.parametrize(
    ("slug", "code"),
    [
        ("a_b", "invalid_slug"),
        ("new", "reserved_slug"),
        ("New", "reserved_slug"),
        ("-a", "invalid_slug"),
    ],
)
def test_underscores_and_words_of_the_sites_links_are_refused(
    staff: Any, slug: str, code: str
) -> None:
    with pytest.raises(ApplicationError) as refused:
        tournament_create(actor=staff, name="Cup", slug=slug)
    assert refused.value.code == code
    assert refused.value.fields["slug"][0].startswith("Short name in links: ")
    assert not Tournament.objects.exists()


def test_the_api_and_the_page_apply_the_same_rule(staff: Any) -> None:
    api = APIClient()
    api.force_authenticate(staff)
    r = api.post("/api/v1/tournaments/", {"name": "Cup", "slug": "a_b"}, format="json")
    assert r.status_code == 400
    assert list(r.json()["error"]["fields"]) == ["slug"]
    r = api.post("/api/v1/tournaments/", {"name": "Cup", "slug": "new"}, format="json")
    assert r.status_code == 400
    r = api.post("/api/v1/tournaments/", {"name": "Cup", "slug": "Mixed-Cup"}, format="json")
    assert r.status_code == 201
    assert r.json()["slug"] == "mixed-cup"
    client = Client()
    client.force_login(staff)
    page = client.post(reverse("brackets:tournament-create"), _form(name="Other", slug="new"))
    assert page.status_code == 400
    assert "a word the site" in page.context["form"].errors["slug"][0]


def test_a_slug_made_from_a_name_avoids_reserved_words_and_underscores() -> None:
    assert tournament_slug_free(name="New") == "new-2"
    assert tournament_slug_free(name="a_b cup") == "a-b-cup"


def test_the_create_form_sent_twice_makes_one_tournament(staff: Any) -> None:
    client = Client()
    client.force_login(staff)
    url = reverse("brackets:tournament-create")
    first = client.post(url, _form())
    assert first.status_code == 302
    second = client.post(url, _form(), follow=True)
    assert second.status_code == 200
    assert list(Tournament.objects.values_list("slug", flat=True)) == ["resubmit-cup"]
    assert second.redirect_chain[-1][0] == reverse("brackets:stages", args=["resubmit-cup"])
    assert "was created a moment ago" in second.content.decode()
    # A typed slug sent twice: the same tournament, not "The slug ... is taken".
    typed = client.post(url, _form(name="Race Cup", slug="race-cup-two"))
    again = client.post(url, _form(name="Race Cup", slug="race-cup-two"))
    assert typed.status_code == again.status_code == 302
    assert again["Location"] == typed["Location"]
    assert Tournament.objects.filter(name="Race Cup").count() == 1


def test_a_double_click_whose_first_request_took_the_slug_leads_to_it(
    staff: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second request read the free slug and found no tournament before the first
    committed: the service refuses the slug as taken, and the page answers with the first
    tournament, not the refusal."""
    from brackets import tournament_forms
    from brackets.views import tournaments as views

    client = Client()
    client.force_login(staff)
    url = reverse("brackets:tournament-create")
    client.post(url, _form())
    monkeypatch.setattr(tournament_forms, "tournament_slug_free", lambda *, name: "resubmit-cup")
    looked: list[int] = []
    just_created = views._just_created

    def first_look_too_early(request: Any, data: Any) -> Any:
        looked.append(1)
        return None if len(looked) == 1 else just_created(request, data)

    monkeypatch.setattr(views, "_just_created", first_look_too_early)
    r = client.post(url, _form())
    assert r.status_code == 302
    assert r["Location"] == reverse("brackets:stages", args=["resubmit-cup"])
    assert len(looked) == 2
    assert Tournament.objects.count() == 1


def test_another_director_or_another_name_still_makes_a_new_one(staff: Any) -> None:
    client = Client()
    client.force_login(staff)
    url = reverse("brackets:tournament-create")
    client.post(url, _form())
    client.post(url, _form(name="Resubmit Cup B"))
    other = Client()
    other.force_login(tournament_creator())
    other.post(url, _form())
    assert sorted(Tournament.objects.values_list("slug", flat=True)) == [
        "resubmit-cup",
        "resubmit-cup-2",
        "resubmit-cup-b",
    ]


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("es", "Nombre corto en los enlaces: 'taken-cup' ya es de otro torneo; elige otro."),
        ("en", "Short name in links: 'taken-cup' is another tournament's; choose another."),
    ],
)
def test_a_taken_slug_is_said_under_the_slug_field_in_the_page_language(
    staff: Any, language: str, expected: str
) -> None:
    """Bug: the create form put the service's whole message under the field only when the
    field's text was the English "Taken.", so a Spanish page showed a bare "Ocupado." without
    the slug. Now the refusal's code chooses it, and the slug field says which slug is taken
    in either language."""
    TournamentFactory(slug="taken-cup")
    client = Client()
    client.force_login(staff)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
    r = client.post(reverse("brackets:tournament-create"), _form(slug="taken-cup"))
    assert r.status_code == 400
    assert r.context["form"].errors["slug"] == [expected]
    assert Tournament.objects.filter(name="Resubmit Cup").count() == 0
