"""The director's pages: the tournament dashboard (and its polled rows), the start page."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from scoring.services import hand_record
from tests.factories import (
    TableFactory,
    TournamentFactory,
    director_of,
    match_in_progress,
    referee_of,
)
from tests.pages.conftest import Setup, make_tournament

pytestmark = pytest.mark.django_db


def _url(setup: Setup, suffix: str = "") -> str:
    return f"/director/tournaments/{setup.tournament.slug}/{suffix}"


def test_dashboard_lists_every_match_with_table_referee_status_score_and_last_hand(
    client: Client, setup: Setup, django_assert_max_num_queries: Any
) -> None:
    table = TableFactory(tournament=setup.tournament, number=7)  # type: ignore[no-untyped-call]
    setup.match.table = table
    setup.match.save()
    hand_record(
        match_id=setup.match.pk,
        actor=setup.referee,
        expected_number=1,
        payload={"poser": 1, "pose_tile": "6-6", "end": "domino", "winner": 3},
    )
    idle = match_in_progress(setup.tournament, referee=setup.other_referee)
    client.force_login(setup.director)
    # A fixed number of queries however many matches (seats and players are prefetched); one
    # of them counts the open disputes for the Disputes tab (issue 15).
    with django_assert_max_num_queries(7):
        response = client.get(_url(setup))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Spring Open" in html
    assert "Table 7" in html
    assert "Rosa" in html  # the referee's name
    assert "ref2" in html
    assert html.count("In progress") == 2
    assert f'data-match="{setup.match.pk}"' in html
    assert f'data-match="{idle.pk}"' in html
    assert "<time datetime=" in html  # last hand time of the match with a hand
    assert f"/matches/{setup.match.pk}/" in html
    # A director who is not staff cannot use the Django admin: no link into it.
    assert "/admin/" not in html
    assert "js/dashboard.js" in html
    assert 'http-equiv="refresh"' in html  # inside <noscript>: refresh without JavaScript


@pytest.mark.parametrize(("who", "status"), [("other_referee", 403), ("referee", 403)])
def test_dashboard_refuses_non_directors(
    client: Client, setup: Setup, who: str, status: int
) -> None:
    client.force_login(getattr(setup, who))
    assert client.get(_url(setup)).status_code == status
    assert client.get(_url(setup, "rows/")).status_code == status


def test_dashboard_refuses_a_director_of_another_tournament(client: Client, setup: Setup) -> None:
    other = make_tournament(slug="other-open")
    client.force_login(director_of(other))
    assert client.get(_url(setup)).status_code == 403
    assert client.get("/director/tournaments/other-open/").status_code == 200


def test_dashboard_for_superuser_anonymous_and_unknown(client: Client, setup: Setup) -> None:
    response = client.get(_url(setup))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]
    client.force_login(get_user_model().objects.create_superuser("root", "r@example.com", "pw"))
    assert client.get(_url(setup)).status_code == 200
    assert client.get("/director/tournaments/no-such-thing/").status_code == 404


def test_dashboard_rows_answer_304_until_something_changes(client: Client, setup: Setup) -> None:
    client.force_login(setup.director)
    first = client.get(_url(setup, "rows/"))
    assert first.status_code == 200
    etag = first["ETag"]
    assert "<tr" in first.content.decode()
    assert client.get(_url(setup, "rows/"), HTTP_IF_NONE_MATCH=etag).status_code == 304
    hand_record(
        match_id=setup.match.pk,
        actor=setup.referee,
        expected_number=1,
        payload={"poser": 1, "pose_tile": "6-6", "end": "domino", "winner": 3},
    )
    again = client.get(_url(setup, "rows/"), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200
    assert again["ETag"] != etag
    # Another account never gets a 304 for a tag it did not receive.
    client.force_login(setup.referee)
    assert client.get(_url(setup, "rows/"), HTTP_IF_NONE_MATCH=etag).status_code == 403


@pytest.mark.parametrize(
    ("staff", "perms", "linked"),
    [
        (False, ("change_match", "change_tournament"), False),  # the admin refuses non-staff
        (True, (), False),  # staff without the model permissions: the admin would 403
        (True, ("change_match", "change_tournament"), True),
    ],
)
def test_admin_links_only_for_who_may_use_the_admin(
    client: Client, setup: Setup, staff: bool, perms: tuple[str, ...], linked: bool
) -> None:
    """The dashboard, its polled rows, the match page and the director's start page link into
    the Django admin only for a user the admin lets in with that permission: a director who is
    not staff runs the event from the product's pages (the admin would show them its
    staff-only login)."""
    from django.contrib.auth.models import Permission

    director = director_of(setup.tournament, username="codir", is_staff=staff)
    director.user_permissions.set(Permission.objects.filter(codename__in=perms))
    client.force_login(director)
    match_admin = f"/admin/scoring/match/{setup.match.pk}/change/"
    tournament_admin = f"/admin/tournament/tournament/{setup.tournament.pk}/change/"
    pages = {
        _url(setup): (match_admin, tournament_admin),
        _url(setup, "rows/"): (match_admin,),
        f"/matches/{setup.match.pk}/": (match_admin,),
        "/director/": ("/admin/",),
    }
    for url, links in pages.items():
        response = client.get(url)
        assert response.status_code == 200, url
        html = response.content.decode()
        for link in links:
            assert (f'href="{link}"' in html) is linked, (url, link)
        if linked:
            # ... and the admin opens for them.
            assert client.get(links[0]).status_code == 200


def test_director_home_lists_only_directed_tournaments(client: Client, setup: Setup) -> None:
    make_tournament(name="Someone Else's Cup", slug="else-cup")
    client.force_login(setup.director)
    html = client.get("/director/").content.decode()
    assert "Spring Open" in html
    assert "/director/tournaments/spring-open/" in html
    assert "Someone Else" not in html


def test_referee_of_one_tournament_cannot_open_another_tournaments_match(client: Client) -> None:
    first = make_tournament(slug="first-open")
    second = make_tournament(slug="second-open")
    referee = referee_of(first)
    match = match_in_progress(second, referee=referee_of(second))
    client.force_login(referee)
    assert client.get(f"/matches/{match.pk}/").status_code == 403


def test_dashboard_links_to_stage_setup_and_bracket(client: Client) -> None:
    tournament = TournamentFactory()
    director = director_of(tournament)
    client.force_login(director)
    page = client.get(f"/director/tournaments/{tournament.slug}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f'href="/director/tournaments/{tournament.slug}/stages/"' in html
    assert f'href="/director/tournaments/{tournament.slug}/bracket/"' in html


def test_home_leads_spectators_to_live_and_directors_to_their_sign_in(
    client: Client, setup: Setup
) -> None:
    """The home page links the live tournaments and the rules for spectators, and signs a
    director in through the product's login, which accepts a director who is not staff
    (the admin's login would not), and lands on their tournaments."""
    setup.director.set_password("pw")
    setup.director.save()
    html = client.get("/").content.decode()
    assert 'href="/live/"' in html
    assert 'href="/rules/"' in html
    assert 'href="/director/"' in html
    assert "/admin/" not in html
    to_login = client.get("/director/")
    assert to_login.status_code == 302
    assert to_login["Location"].startswith("/accounts/login/")
    signed_in = client.post(
        to_login["Location"], {"username": "dir", "password": "pw"}, follow=True
    )
    assert signed_in.redirect_chain[-1][0] == "/director/"
    assert "Spring Open" in signed_in.content.decode()
    assert "Your tournaments (director)" in client.get("/").content.decode()


@pytest.mark.parametrize(
    ("kind", "button", "admin"),
    [
        ("director", True, False),  # directs a tournament: may create; not staff
        ("nobody", False, False),  # signed in, directs nothing: told why, no 403 button
        # The admin would let them do nothing, nor may they create a tournament: the staff
        # flag alone is no permission (docs/security.md, "Staff and superusers").
        ("staff_without_perms", False, False),
        ("superuser", True, True),
    ],
)
def test_director_home_offers_only_what_the_user_may_do(
    client: Client, setup: Setup, kind: str, button: bool, admin: bool
) -> None:
    user: Any
    if kind == "director":
        user = setup.director
    elif kind == "nobody":
        user = get_user_model().objects.create_user("plain", password="pw")
    elif kind == "staff_without_perms":
        user = get_user_model().objects.create_user("staffer", password="pw", is_staff=True)
    else:
        user = get_user_model().objects.create_superuser("root2", "r2@example.com", "pw")
    client.force_login(user)
    html = client.get("/director/").content.decode()
    assert ('id="new-tournament"' in html) is button
    assert ('id="no-create"' in html) is (not button)
    assert ('href="/admin/"' in html) is admin
    if button:
        assert client.get("/director/new/").status_code == 200
    else:
        assert client.get("/director/new/").status_code == 403
