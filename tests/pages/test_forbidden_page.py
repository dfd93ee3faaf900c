"""The 403 page: what was refused and where the caller's own pages are, in their language.

Walkthrough: a referee who opened another table's match (a mistyped number, a shared link)
got Django's bare, unstyled "403 Forbidden" with no way back to their own matches.
"""

from __future__ import annotations

import pytest
from django.test import Client

from scoring.models import Match
from tests.factories import match_in_progress
from tests.pages.conftest import Setup


def _referee_phone(setup: Setup, **extra: str) -> Client:
    phone = Client(**extra)
    assert phone.get("/ref/").status_code == 200
    signed_in = phone.post("/ref/", {"key": setup.token.key}, REMOTE_ADDR="10.9.8.7")
    assert signed_in.status_code in (200, 302), signed_in.status_code
    return phone


def _other_match(setup: Setup) -> Match:
    return match_in_progress(setup.tournament, referee=setup.other_referee)


@pytest.mark.parametrize(
    ("language", "title", "reason", "own"),
    [
        ("en", "Not allowed", "You do not referee this match.", "My matches"),
        ("es", "No permitido", "No arbitras esta partida.", "Mis partidas"),
    ],
)
def test_a_referee_on_another_tables_match_gets_a_way_back(
    setup: Setup, language: str, title: str, reason: str, own: str
) -> None:
    phone = _referee_phone(setup, HTTP_ACCEPT_LANGUAGE=language)
    other = _other_match(setup)
    for path in (f"/matches/{other.pk}/", f"/matches/{other.pk}/panel/"):
        page = phone.get(path)
        assert page.status_code == 403, path
        html = page.content.decode()
        assert f"<h1>{title}</h1>" in html, html[:400]
        assert f'<p id="denied-reason">{reason}</p>' in html
        assert 'href="/referee/" id="denied-own"' in html
        assert f">{own}</a>" in html
        assert "stylesheet" in html  # the product's page, not the server's bare text
    # Their own match still opens: the refusal signed nobody out.
    assert phone.get(f"/matches/{setup.match.pk}/").status_code == 200


def test_a_signed_in_stranger_is_sent_to_their_tournaments_and_nobody_to_sign_in(
    setup: Setup,
) -> None:
    from tests.factories import UserFactory

    stranger = Client()
    stranger.force_login(UserFactory(username="stranger"))  # type: ignore[no-untyped-call]
    page = stranger.get(f"/director/tournaments/{setup.tournament.slug}/stages/")
    assert page.status_code == 403
    html = page.content.decode()
    assert "Only a director of Spring Open may see this page." in html
    assert 'href="/director/" id="denied-own"' in html

    anonymous = Client().get(f"/matches/{setup.match.pk}/")
    assert anonymous.status_code in (302, 403)
    if anonymous.status_code == 403:
        assert 'id="denied-own"' in anonymous.content.decode()


def test_under_the_api_the_refusal_keeps_the_apis_json_shape(setup: Setup) -> None:
    """A Django-level refusal under /api/ (DRF answers its own views) is the API's error."""
    import json

    from django.core.exceptions import PermissionDenied
    from django.test import RequestFactory

    from tournament.views import permission_denied

    request = RequestFactory().get("/api/v1/anything/")
    answer = permission_denied(request, PermissionDenied("Only a director may do this."))
    assert answer.status_code == 403
    assert json.loads(answer.content) == {
        "error": {
            "code": "permission_denied",
            "message": "Only a director may do this.",
            "fields": {},
        }
    }
