"""The Django admin keeps the rule the services enforce: a tournament keeps at least one
director (docs/security.md, "Removing a director"; rule ``co_directors``).

Bug: the admin deleted rows directly. Deleting a tournament's last director role (its delete
page or the bulk delete action), the account of its last director, the role's row in the
tournament's roles inline, or changing that role to referee left a tournament nobody but a
superuser could manage, with nothing in its action log. Now each is refused with the rule as
an admin error message and nothing is deleted; a removal the rule allows is logged
(``role.revoke``) as on the directors page.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client

from tests.factories import RoleFactory, TournamentFactory, UserFactory, director_of, referee_of
from tournament.models import ActionLog, Tournament, TournamentRole

pytestmark = pytest.mark.django_db

RULE = "A tournament keeps at least one director. Give it another director first. (co_directors)"
ROLES = "/admin/tournament/tournamentrole/"
USERS = "/admin/auth/user/"
INLINE = "A tournament keeps at least one director. (co_directors)"


def _messages(response: Any) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def _director_role(tournament: Tournament, user: Any) -> TournamentRole:
    return TournamentRole.objects.get(tournament=tournament, user=user)


@pytest.fixture
def tournament() -> Tournament:
    return TournamentFactory(name="Spring Open")


def test_the_delete_page_of_the_last_directors_role_refuses(
    admin_client: Client, tournament: Tournament
) -> None:
    role = _director_role(tournament, director_of(tournament))
    for send in (admin_client.get, admin_client.post):
        r = send(f"{ROLES}{role.pk}/delete/", follow=True)
        assert r.redirect_chain[-1][0] == f"{ROLES}{role.pk}/change/"
        assert _messages(r) == [f"Spring Open: {RULE}"]
    assert TournamentRole.objects.filter(pk=role.pk).exists()
    assert not ActionLog.objects.filter(verb="role.revoke").exists()


def test_a_co_directors_role_is_deleted_and_logged(
    admin_client: Client, tournament: Tournament
) -> None:
    director_of(tournament)
    other = _director_role(tournament, director_of(tournament))
    r = admin_client.post(f"{ROLES}{other.pk}/delete/", {"post": "yes"})
    assert r.status_code == 302
    assert not TournamentRole.objects.filter(pk=other.pk).exists()
    log = ActionLog.objects.get(verb="role.revoke")
    assert (log.tournament_id, log.data["user_id"]) == (tournament.pk, other.user_id)


def test_the_bulk_delete_refuses_when_it_takes_every_director(
    admin_client: Client, tournament: Tournament
) -> None:
    first = _director_role(tournament, director_of(tournament))
    second = _director_role(tournament, director_of(tournament))
    referee = _director_role(tournament, referee_of(tournament))
    other = TournamentFactory(name="Autumn Open")
    last_elsewhere = _director_role(other, director_of(other))
    chosen = [first.pk, second.pk, referee.pk, last_elsewhere.pk]
    for confirmed in ({}, {"post": "yes"}):
        r = admin_client.post(
            ROLES,
            {"action": "delete_selected", "_selected_action": chosen, **confirmed},
            follow=True,
        )
        assert r.status_code == 200
        assert _messages(r) == [f"Spring Open: {RULE}", f"Autumn Open: {RULE}"]
    assert TournamentRole.objects.count() == 4
    # One of the two directors and the referee may go: the confirmation page, then gone.
    chosen = [first.pk, referee.pk]
    r = admin_client.post(ROLES, {"action": "delete_selected", "_selected_action": chosen})
    assert r.status_code == 200
    assert "Are you sure" in r.content.decode()
    r = admin_client.post(
        ROLES, {"action": "delete_selected", "_selected_action": chosen, "post": "yes"}
    )
    assert r.status_code == 302
    assert set(TournamentRole.objects.values_list("pk", flat=True)) == {
        second.pk,
        last_elsewhere.pk,
    }
    assert ActionLog.objects.filter(verb="role.revoke").count() == 2


def test_deleting_the_account_of_the_last_director_refuses(
    admin_client: Client, tournament: Tournament
) -> None:
    last = director_of(tournament)
    for send in (admin_client.get, admin_client.post):
        r = send(f"{USERS}{last.pk}/delete/", {"post": "yes"}, follow=True)
        assert _messages(r) == [f"Spring Open: {RULE}"]
    r = admin_client.post(
        USERS,
        {"action": "delete_selected", "_selected_action": [last.pk], "post": "yes"},
        follow=True,
    )
    assert _messages(r) == [f"Spring Open: {RULE}"]
    assert get_user_model().objects.filter(pk=last.pk).exists()
    # With a co-director the account goes, its role logged as removed.
    director_of(tournament)
    r = admin_client.post(f"{USERS}{last.pk}/delete/", {"post": "yes"})
    assert r.status_code == 302
    assert not get_user_model().objects.filter(pk=last.pk).exists()
    assert ActionLog.objects.get(verb="role.revoke").data["user_id"] == last.pk
    # An account that directs nothing is deleted as before.
    plain = UserFactory()
    r = admin_client.post(f"{USERS}{plain.pk}/delete/", {"post": "yes"})
    assert r.status_code == 302
    assert not get_user_model().objects.filter(pk=plain.pk).exists()


def test_the_roles_inline_and_the_role_form_keep_a_director(
    admin_client: Client, tournament: Tournament
) -> None:
    role = _director_role(tournament, director_of(tournament))
    form: dict[str, Any] = {
        "name": tournament.name,
        "slug": tournament.slug,
        "venue": "",
        "starts_on": "",
        "ends_on": "",
        "status": tournament.status,
        "ruleset_preset": "wsod",
        "ruleset_overrides": "{}",
        "roles-TOTAL_FORMS": "1",
        "roles-INITIAL_FORMS": "1",
        "roles-0-id": str(role.pk),
        "roles-0-tournament": str(tournament.pk),
        "roles-0-user": str(role.user_id),
        "roles-0-role": "director",
        "roles-0-DELETE": "on",
    }
    for prefix in ("tables", "entries"):
        form |= {f"{prefix}-TOTAL_FORMS": "0", f"{prefix}-INITIAL_FORMS": "0"}
    url = f"/admin/tournament/tournament/{tournament.pk}/change/"
    r = admin_client.post(url, form)
    assert r.status_code == 200
    assert r.context["inline_admin_formsets"][0].formset.non_form_errors() == [INLINE]
    r = admin_client.post(url, {**form, "roles-0-DELETE": "", "roles-0-role": "referee"})
    assert r.status_code == 200
    assert r.context["inline_admin_formsets"][0].formset.non_form_errors() == [INLINE]
    r = admin_client.post(
        f"{ROLES}{role.pk}/change/",
        {"tournament": tournament.pk, "user": role.user_id, "role": "referee"},
    )
    assert r.status_code == 200
    assert r.context["adminform"].form.non_field_errors() == [f"Spring Open: {RULE}"]
    role.refresh_from_db()
    assert role.role == TournamentRole.Role.DIRECTOR
    # A second director: the first may be changed.
    RoleFactory(tournament=tournament, user=UserFactory(), role=TournamentRole.Role.DIRECTOR)
    r = admin_client.post(
        f"{ROLES}{role.pk}/change/",
        {"tournament": tournament.pk, "user": role.user_id, "role": "referee"},
    )
    assert r.status_code == 302
