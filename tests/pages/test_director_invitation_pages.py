"""The pages of co-director invitations: the directors page (``/director/tournaments/<slug>/
directors/``) and the sign-up page of a link (``/invite/``, the key in the fragment, then in
the POST body).

Chains, as an attacker would try them: a director of B cannot invite to A nor revoke A's
invitations; a co-director made by A's invitation reaches A only; a used link cannot be
replayed; a revoked link stops working; a signed-in account is never given the role.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import SESSION_KEY, get_user_model
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from tests.factories import TournamentFactory, UserFactory, director_of, referee_of
from tests.security.conftest import csrf, fresh_ip, open_link
from tournament.models import ActionLog, DirectorInvitation, Tournament, TournamentRole
from tournament.services import director_invitation_issue, referee_token_issue

pytestmark = pytest.mark.django_db

User = get_user_model()
PASSWORD = "Domino-table-42"
INVITE = "/invite/"


def directors_url(tournament: Tournament) -> str:
    return reverse("tournament:directors", args=[tournament.slug])


def issue(tournament: Tournament, director: Any = None, label: str = "") -> tuple[Any, str]:
    invitation = director_invitation_issue(
        tournament=tournament, actor=director or director_of(tournament), label=label
    )
    return invitation, invitation.key  # type: ignore[attr-defined]


def phone() -> Client:
    """A browser that opened the link: the page (which sets the CSRF cookie) first."""
    client = Client(REMOTE_ADDR=fresh_ip())
    assert client.get(INVITE).status_code == 200
    return client


def check(client: Client, key: str) -> Any:
    """What the page's script does with the fragment."""
    return client.post(INVITE, {"op": "check", "key": key}, **csrf(client))


def sign_up(client: Client, key: str, username: str = "ana", **fields: str) -> Any:
    data = {"key": key, "username": username, "password1": PASSWORD, "password2": PASSWORD}
    data.update(fields)
    return client.post(INVITE, data, **csrf(client))


@pytest.fixture
def tournament() -> Tournament:
    return TournamentFactory(name="Island Open", status=Tournament.Status.REGISTRATION)


# -- the directors page --------------------------------------------------------------------


def test_a_director_creates_an_invitation_and_sees_its_link_once(tournament: Tournament) -> None:
    director = director_of(tournament, username="dir")
    client = Client()
    client.force_login(director)
    page = client.get(directors_url(tournament))
    assert page.status_code == 200
    assert b'id="invite-create"' in page.content
    assert "no-store" in page["Cache-Control"]

    response = client.post(directors_url(tournament), {"op": "issue", "label": "Ana Ruiz"})
    # POST-redirect-GET (bug: the link was the POST's answer, so a reload offered to send the
    # form again and created another invitation); the key is in no URL.
    assert response.status_code == 302
    assert response["Location"] == directors_url(tournament)
    response = client.get(response["Location"])
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    html = response.content.decode()
    link = re.search(r'id="issued-link" href="([^"]+)"', html)
    assert link, html
    assert link.group(1).startswith(f"{settings.SITE_URL.rstrip('/')}/invite/#")
    key = link.group(1).split("#", 1)[1]
    invitation = DirectorInvitation.objects.get()
    assert invitation.prefix == key.split(".")[0]
    assert "<svg" in html  # the QR code of the link
    # Listed as pending (label, issuer, expiry) and never shown again.
    again = client.get(directors_url(tournament)).content.decode()
    assert key not in again
    assert key.split(".", 1)[1] not in again
    pending = again[again.index('id="pending-invitations"') :]
    assert "Ana Ruiz" in pending
    assert "dir" in pending
    assert invitation.expires_at.strftime("%Y-%m-%d") in pending
    assert 'id="issued-link"' not in again
    assert DirectorInvitation.objects.count() == 1  # the reload created nothing


def test_a_director_revokes_an_invitation_and_its_link_stops_working(
    tournament: Tournament,
) -> None:
    director = director_of(tournament)
    invitation, key = issue(tournament, director, label="Ana")
    client = Client()
    client.force_login(director)
    response = client.post(
        directors_url(tournament), {"op": "revoke", "invitation": invitation.pk}, follow=True
    )
    assert response.status_code == 200
    assert "Invitation revoked" in response.content.decode()
    assert "No pending invitation." in response.content.decode()
    invitee = phone()
    answer = check(invitee, key)
    assert answer.status_code == 410
    assert "withdrawn" in answer.json()["error"]["message"]
    assert sign_up(invitee, key).status_code == 410
    assert not User.objects.filter(username="ana").exists()


def test_the_page_is_read_only_once_the_tournament_is_finished(tournament: Tournament) -> None:
    director = director_of(tournament)
    issue(tournament, director)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    client = Client()
    client.force_login(director)
    page = client.get(directors_url(tournament)).content.decode()
    assert 'id="directors-read-only"' in page
    assert 'id="invite-create"' not in page
    response = client.post(directors_url(tournament), {"op": "issue"}, follow=True)
    assert "is finished" in response.content.decode()
    assert DirectorInvitation.objects.count() == 1


def test_nobody_but_a_director_of_the_tournament_creates_or_revokes(
    tournament: Tournament,
) -> None:
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
    other = TournamentFactory()
    other_director = director_of(other)
    invitation, _key = issue(tournament)
    referee = referee_of(tournament)
    token = referee_token_issue(
        tournament=tournament, actor=director_of(tournament), user=referee
    ).key  # type: ignore[attr-defined]
    link_session = Client(REMOTE_ADDR=fresh_ip())
    assert open_link(link_session, token).status_code == 200
    callers: dict[str, Client] = {"anonymous": Client(), "referee link": link_session}
    for name, user in [
        ("director of another tournament", other_director),
        ("spectator account", UserFactory()),
        ("staff", UserFactory(is_staff=True)),
    ]:
        callers[name] = Client()
        callers[name].force_login(user)
    url = directors_url(tournament)
    for name, client in callers.items():
        for method, data in [
            ("get", None),
            ("post", {"op": "issue", "label": "mine"}),
            ("post", {"op": "revoke", "invitation": invitation.pk}),
        ]:
            response = getattr(client, method)(url, data)
            denied = response.status_code in (403, 404) or (
                response.status_code == 302 and "/accounts/login/" in response["Location"]
            )
            assert denied, (name, method, data, response.status_code)
    assert DirectorInvitation.objects.count() == 1
    assert DirectorInvitation.objects.get().revoked_at is None


def test_a_director_of_b_cannot_revoke_a_s_invitation_through_b_s_page(
    tournament: Tournament,
) -> None:
    invitation, key = issue(tournament)
    other = TournamentFactory()
    other_director = director_of(other)
    client = Client()
    client.force_login(other_director)
    response = client.post(
        directors_url(other), {"op": "revoke", "invitation": invitation.pk}, follow=True
    )
    assert "No such invitation in this tournament." in response.content.decode()
    assert DirectorInvitation.objects.get(pk=invitation.pk).revoked_at is None
    assert check(phone(), key).status_code == 200


# -- the sign-up page ------------------------------------------------------------------------


def test_the_page_carries_no_key_and_keeps_the_key_out_of_referers() -> None:
    response = Client().get(INVITE)
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="invite-form"' in html
    assert 'name="key" id="invite-key" value=""' in html
    assert "js/director-invitation.js" in html
    assert response["Referrer-Policy"] == "same-origin"
    assert "no-store" in response["Cache-Control"]


def test_a_new_person_signs_up_and_directs_this_tournament_only(tournament: Tournament) -> None:
    director = director_of(tournament)
    other = TournamentFactory(status=Tournament.Status.REGISTRATION)
    _invitation, key = issue(tournament, director)
    invitee = phone()
    answer = check(invitee, key)
    assert answer.status_code == 200
    assert answer["Referrer-Policy"] == "no-referrer"
    assert "You are invited to direct Island Open" in answer.json()["message"]

    response = sign_up(invitee, key, username="ana")

    dashboard = reverse("scoring:director-dashboard", args=[tournament.slug])
    assert response.status_code == 302
    assert response["Location"] == dashboard
    ana = User.objects.get(username="ana")
    assert not ana.is_staff
    assert not ana.is_superuser
    assert invitee.session[SESSION_KEY] == str(ana.pk)  # signed in as the NEW account
    assert invitee.get(dashboard).status_code == 200
    # Nothing of another tournament, no tournament creation.
    assert invitee.get(directors_url(other)).status_code == 403
    assert invitee.get(reverse("scoring:director-dashboard", args=[other.slug])).status_code == 403
    assert invitee.get(reverse("brackets:tournament-create")).status_code == 403
    api = invitee.post(
        "/api/tournaments/",
        {"name": "Mine", "slug": "mine"},
        content_type="application/json",
        **csrf(invitee),
    )
    assert api.status_code == 403
    home = invitee.get(reverse("tournament:director-home")).content.decode()
    assert "You joined as a co-director through an invitation" in home
    assert 'id="new-tournament"' not in home
    # The grant is in the tournament's action log, by the director who issued the link.
    log = ActionLog.objects.get(tournament=tournament, verb="role.grant")
    assert (log.actor, log.data["user_id"]) == (director, ana.pk)
    # The directors page shows the newcomer; the invitation is no longer pending.
    client = Client()
    client.force_login(director)
    page = client.get(directors_url(tournament)).content.decode()
    assert "joined through an invitation" in page
    assert "No pending invitation." in page


def test_a_used_link_cannot_be_replayed(tournament: Tournament) -> None:
    _invitation, key = issue(tournament)
    assert sign_up(phone(), key, username="ana").status_code == 302
    replay = phone()
    answer = check(replay, key)
    assert answer.status_code == 410
    assert "already been used" in answer.json()["error"]["message"]
    response = sign_up(replay, key, username="mallory")
    assert response.status_code == 410
    assert "already been used" in response.content.decode()
    assert not User.objects.filter(username="mallory").exists()
    assert SESSION_KEY not in replay.session


def test_an_expired_link_is_refused(tournament: Tournament) -> None:
    invitation, key = issue(tournament)
    DirectorInvitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(minutes=1)
    )
    invitee = phone()
    assert check(invitee, key).status_code == 410
    response = sign_up(invitee, key)
    assert response.status_code == 410
    assert "has expired" in response.content.decode()
    assert not User.objects.filter(username="ana").exists()


def test_a_finished_tournament_takes_no_new_director(tournament: Tournament) -> None:
    _invitation, key = issue(tournament)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    invitee = phone()
    assert check(invitee, key).status_code == 409
    response = sign_up(invitee, key)
    assert response.status_code == 409
    assert "Island Open is finished" in response.content.decode()
    assert not User.objects.filter(username="ana").exists()


@pytest.mark.parametrize("key", ["", "garbled", "nosuchprefix.nosuchsecret"])
def test_an_unknown_or_garbled_link_is_refused(tournament: Tournament, key: str) -> None:
    issue(tournament)
    invitee = phone()
    answer = check(invitee, key)
    assert answer.status_code == 404
    assert "not valid" in answer.json()["error"]["message"]
    response = sign_up(invitee, key)
    assert response.status_code == 404
    assert 'id="invite-form"' not in response.content.decode()
    assert not User.objects.filter(username="ana").exists()


@override_settings(REFEREE_TOKEN_MAX_FAILURES=2)
def test_wrong_links_from_one_address_are_throttled(tournament: Tournament) -> None:
    _invitation, key = issue(tournament)
    invitee = phone()
    statuses = [check(invitee, "nosuchprefix.x").status_code for _ in range(3)]
    assert statuses == [404, 404, 429]
    assert sign_up(invitee, "nosuchprefix.x").status_code == 429
    # The real link still works from there.
    assert sign_up(invitee, key).status_code == 302


def test_a_signed_in_account_is_told_to_sign_out_and_never_given_the_role(
    tournament: Tournament,
) -> None:
    _invitation, key = issue(tournament)
    someone = UserFactory(username="someone")
    client = Client(REMOTE_ADDR=fresh_ip())
    client.force_login(someone)
    page = client.get(INVITE)
    assert page.status_code == 403
    html = page.content.decode()
    assert "You are signed in as someone" in html
    assert 'id="invite-sign-out"' in html
    assert 'id="invite-form"' not in html
    answer = check(client, key)
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "signed_in"
    assert sign_up(client, key, username="ana").status_code == 403
    assert not TournamentRole.objects.filter(user=someone).exists()
    assert not User.objects.filter(username="ana").exists()
    assert client.session[SESSION_KEY] == str(someone.pk)
    # Signing out comes back to the page, which then works (its script kept the key).
    out = client.post(reverse("logout"), {"next": INVITE})
    assert (out.status_code, out["Location"]) == (302, INVITE)
    assert client.get(INVITE).status_code == 200
    assert sign_up(client, key, username="ana").status_code == 302
    assert not TournamentRole.objects.filter(user=someone).exists()


def test_a_referee_link_session_on_the_phone_is_replaced_by_the_new_account(
    tournament: Tournament,
) -> None:
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
    director = director_of(tournament)
    referee = referee_of(tournament)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    _invitation, key = issue(tournament, director)
    client = Client(REMOTE_ADDR=fresh_ip())
    assert open_link(client, token.key).status_code == 200  # type: ignore[attr-defined]
    assert client.get(INVITE).status_code == 200
    assert sign_up(client, key, username="ana").status_code == 302
    assert "referee_credential_id" not in client.session  # a fresh session
    assert client.session[SESSION_KEY] == str(User.objects.get(username="ana").pk)


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"password2": "Something-else-9"}, "password2", "didn\u2019t match"),
        ({"password1": "12345678", "password2": "12345678"}, "password1", "too common"),
        ({"username": "Existing"}, "username", "This user name is taken"),
        ({"username": "bad name!"}, "username", "Enter a valid username"),
    ],
)
def test_a_form_to_correct_is_shown_again_with_the_key(
    tournament: Tournament, fields: dict[str, str], field: str, message: str
) -> None:
    UserFactory(username="existing")
    invitation, key = issue(tournament)
    users = User.objects.count()
    invitee = phone()
    response = sign_up(invitee, key, **fields)
    assert response.status_code == 400
    html = response.content.decode()
    block = html[html.index(f'data-field="{field}"') :]
    assert message in block[: block.index("</div>")]
    assert f'name="key" id="invite-key" value="{key}"' in html
    assert "You are invited to direct Island Open" in html
    assert 'type="password"' in html
    assert PASSWORD not in html  # passwords are never sent back
    assert User.objects.count() == users
    assert DirectorInvitation.objects.get(pk=invitation.pk).used_at is None
    assert sign_up(invitee, key, username="ana").status_code == 302


def test_staff_see_invitations_in_the_admin_but_change_them_only_on_the_directors_page(
    tournament: Tournament,
) -> None:
    invitation, key = issue(tournament, label="Ana")
    admin = Client()
    admin.force_login(UserFactory(is_staff=True, is_superuser=True))
    listing = admin.get("/admin/tournament/directorinvitation/")
    assert listing.status_code == 200
    assert invitation.prefix in listing.content.decode()
    assert key.split(".", 1)[1] not in listing.content.decode()
    assert admin.get("/admin/tournament/directorinvitation/add/").status_code == 403
    url = f"/admin/tournament/directorinvitation/{invitation.pk}/delete/"
    assert admin.post(url, {"post": "yes"}).status_code == 403
    assert DirectorInvitation.objects.filter(pk=invitation.pk).exists()
