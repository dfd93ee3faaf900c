"""Directors who are not staff sign in through the site's own login page."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client


@pytest.mark.django_db
def test_non_staff_director_signs_in_and_is_sent_on(client: Client) -> None:
    get_user_model().objects.create_user("dora", password="s3cret-pass")
    page = client.get("/accounts/login/?next=/director/")
    assert page.status_code == 200
    assert b'name="password"' in page.content
    response = client.post(
        "/accounts/login/", {"username": "dora", "password": "s3cret-pass", "next": "/director/"}
    )
    assert response.status_code == 302
    assert response["Location"] == "/director/"
    assert client.session.get("_auth_user_id")


@pytest.mark.django_db
def test_wrong_password_shows_an_error_and_does_not_sign_in(client: Client) -> None:
    get_user_model().objects.create_user("dora", password="s3cret-pass")
    response = client.post("/accounts/login/", {"username": "dora", "password": "nope"})
    assert response.status_code == 200
    assert b"didn&#x27;t match" in response.content or b"didn't match" in response.content
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_signed_in_director_signs_out_from_the_header_of_any_page(client: Client) -> None:
    """A director on a venue's shared laptop can end the session from the page they are on
    (docs/security.md: account sessions end with the browser, or when signed out)."""
    get_user_model().objects.create_user("dora", password="s3cret-pass")
    anonymous = client.get("/")
    assert b'class="sign-out"' not in anonymous.content  # nobody to sign out
    client.post("/accounts/login/", {"username": "dora", "password": "s3cret-pass"})
    for path in ("/", "/director/", "/players/"):
        page = client.get(path)
        assert page.status_code == 200, path
        html = page.content.decode()
        assert '<form class="sign-out" action="/accounts/logout/" method="post">' in html, path
        assert 'name="csrfmiddlewaretoken"' in html.split('class="sign-out"', 1)[1], path
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session
    assert client.get("/director/").status_code == 302  # back to the sign-in page
