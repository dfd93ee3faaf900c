"""Removing a director (docs/security.md, "Removing a director"; a security test's finding A).

bob creates "Demo Pairs" and invites carol to share the work. Before, carol could remove bob
(his /api/me/ then listed nothing and his pending invitations were revoked): the only guard
was "at least one director". Now a director removes the co-directors they invited, or steps
down; the creator removes any co-director and no co-director removes the creator; a
superuser removes anyone; one director always remains, also when two removals race
(PostgreSQL: the tournament's row is locked before anything is counted).

Chains through the API and the *Directors* page, as the tester ran them, and through the
service for the rule itself.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from core.exceptions import ApplicationError, PermissionDeniedError
from tests.factories import UserFactory, staff_with, tournament_creator
from tests.security.conftest import fresh_ip
from tournament.models import ActionLog, DirectorInvitation, Tournament, TournamentRole
from tournament.services import (
    director_invitation_accept,
    director_invitation_issue,
    referee_create,
    role_grant,
    role_revoke,
    tournament_create,
    tournament_status_change,
)

pytestmark = pytest.mark.django_db

User = get_user_model()
PASSWORD = "Domino-table-42"


def invited(tournament: Tournament, by: Any, username: str) -> Any:
    """A NEW account made by ``by``'s invitation: a co-director of ``tournament``."""
    invitation = director_invitation_issue(tournament=tournament, actor=by, label=username)
    return director_invitation_accept(
        key=invitation.key,  # type: ignore[attr-defined]
        username=username,
        password=PASSWORD,
        client_ip=fresh_ip(),
    )


def role_of(tournament: Tournament, user: Any) -> TournamentRole:
    return TournamentRole.objects.get(
        tournament=tournament, user=user, role=TournamentRole.Role.DIRECTOR
    )


def directs(tournament: Tournament, user: Any) -> bool:
    return TournamentRole.objects.filter(
        tournament=tournament, user=user, role=TournamentRole.Role.DIRECTOR
    ).exists()


def api(user: Any) -> APIClient:
    client = APIClient(REMOTE_ADDR=fresh_ip())
    client.force_authenticate(user)
    return client


def page(user: Any) -> Client:
    client = Client(REMOTE_ADDR=fresh_ip())
    client.force_login(user)
    return client


def delete_role(client: APIClient, tournament: Tournament, role: TournamentRole) -> Any:
    return client.delete(f"/api/tournaments/{tournament.slug}/roles/{role.pk}/")


@pytest.fixture
def event() -> dict[str, Any]:
    """bob creates the tournament and invites carol; carol invites dave; bob invites erin."""
    bob = tournament_creator(username="bob")
    tournament = tournament_create(actor=bob, name="Demo Pairs", slug="demo-pairs")
    tournament_status_change(tournament=tournament, actor=bob, status="registration")
    tournament.refresh_from_db()
    carol = invited(tournament, bob, "carol")
    dave = invited(tournament, carol, "dave")
    erin = invited(tournament, bob, "erin")
    return {"t": tournament, "bob": bob, "carol": carol, "dave": dave, "erin": erin}


# -- the API, as the tester ran it ---------------------------------------------------------


def test_an_invited_co_director_cannot_remove_the_director_who_invited_them(
    event: dict[str, Any],
) -> None:
    t, bob, carol = event["t"], event["bob"], event["carol"]
    pending = director_invitation_issue(tournament=t, actor=bob, label="frank")
    before = ActionLog.objects.filter(verb="role.revoke").count()

    answer = delete_role(api(carol), t, role_of(t, bob))

    assert answer.status_code == 403, answer.content
    error = answer.json()["error"]
    assert (error["code"], error["rule"]) == ("director_is_owner", "co_directors")
    assert "bob created this tournament" in error["message"]
    assert directs(t, bob)
    assert ActionLog.objects.filter(verb="role.revoke").count() == before
    # bob still directs it, and his pending invitation still works.
    me = api(bob).get("/api/me/").json()
    assert [x["slug"] for x in me["tournaments"]] == ["demo-pairs"]
    pending.refresh_from_db()
    assert pending.revoked_at is None


def test_a_co_director_removes_only_those_they_invited_and_may_step_down(
    event: dict[str, Any],
) -> None:
    t, bob, carol, dave, erin = (event[k] for k in ("t", "bob", "carol", "dave", "erin"))
    carol_api = api(carol)
    # erin was invited by bob, not by carol.
    refused = delete_role(carol_api, t, role_of(t, erin))
    assert refused.status_code == 403, refused.content
    assert refused.json()["error"]["code"] == "director_not_invited_by_you"
    assert "You did not invite erin" in refused.json()["error"]["message"]
    assert directs(t, erin)
    # dave was invited by carol.
    assert delete_role(carol_api, t, role_of(t, dave)).status_code == 204
    assert not directs(t, dave)
    # carol steps down: the tournament leaves her /api/me/.
    assert delete_role(carol_api, t, role_of(t, carol)).status_code == 204
    assert not directs(t, carol)
    assert api(carol).get("/api/me/").json()["tournaments"] == []
    assert directs(t, bob)
    assert directs(t, erin)


def test_the_creator_removes_any_co_director(event: dict[str, Any]) -> None:
    t, bob, carol, dave = (event[k] for k in ("t", "bob", "carol", "dave"))
    bob_api = api(bob)
    # dave was invited by carol; bob created the tournament.
    assert delete_role(bob_api, t, role_of(t, dave)).status_code == 204
    assert delete_role(bob_api, t, role_of(t, carol)).status_code == 204
    assert not directs(t, carol)
    assert not directs(t, dave)
    log = ActionLog.objects.filter(verb="role.revoke").order_by("pk")
    assert [entry.actor_id for entry in log] == [bob.pk, bob.pk]


def test_the_last_director_stays(event: dict[str, Any]) -> None:
    t, bob = event["t"], event["bob"]
    for name in ("carol", "dave", "erin"):
        role_revoke(role=role_of(t, event[name]), actor=bob)
    answer = delete_role(api(bob), t, role_of(t, bob))
    assert answer.status_code == 409, answer.content
    error = answer.json()["error"]
    assert (error["code"], error["rule"]) == ("last_director", "co_directors")
    assert directs(t, bob)
    # Not even a superuser removes the last one.
    root = User.objects.create_superuser("root", "root@example.com", "pw")
    assert delete_role(api(root), t, role_of(t, bob)).status_code == 409
    assert directs(t, bob)


def test_a_superuser_removes_anyone_while_one_director_remains(event: dict[str, Any]) -> None:
    t, bob, carol = event["t"], event["bob"], event["carol"]
    root = User.objects.create_superuser("root", "root@example.com", "pw")
    assert delete_role(api(root), t, role_of(t, bob)).status_code == 204
    assert not directs(t, bob)
    # bob's pending invitations went with him (an invitation cannot bring him back).
    assert not DirectorInvitation.objects.filter(
        tournament=t, issued_by=bob, used_at__isnull=True, revoked_at__isnull=True
    ).exists()
    assert directs(t, carol)


def test_a_co_director_staff_added_is_removed_by_its_holder_the_creator_or_a_superuser(
    event: dict[str, Any],
) -> None:
    t, bob, carol = event["t"], event["bob"], event["carol"]
    staff = staff_with("tournament.add_tournamentrole")
    gina = UserFactory(username="gina")
    role_grant(tournament=t, actor=staff, user=gina, role="director")
    with pytest.raises(PermissionDeniedError) as exc:
        role_revoke(role=role_of(t, gina), actor=carol)  # nobody invited gina
    assert exc.value.code == "director_not_invited_by_you"
    role_revoke(role=role_of(t, gina), actor=bob)
    assert not directs(t, gina)


def test_any_director_removes_a_referee(event: dict[str, Any]) -> None:
    t, bob, dave = event["t"], event["bob"], event["dave"]
    referee = referee_create(tournament=t, actor=bob, username="ref-ana")
    assert delete_role(api(dave), t, referee).status_code == 204
    assert not TournamentRole.objects.filter(pk=referee.pk).exists()


def test_a_finished_tournament_removes_no_one(event: dict[str, Any]) -> None:
    t, bob, carol = event["t"], event["bob"], event["carol"]
    Tournament.objects.filter(pk=t.pk).update(status=Tournament.Status.FINISHED)
    answer = delete_role(api(bob), t, role_of(t, carol))
    assert answer.status_code == 409
    assert answer.json()["error"]["rule"] == "lifecycle"
    assert directs(t, carol)


# -- the Directors page --------------------------------------------------------------------


def _buttons(client: Client, tournament: Tournament) -> dict[str, str]:
    """user name -> the button on their line of the directors list ("" for none)."""
    body = client.get(reverse("tournament:directors", args=[tournament.slug])).content.decode()
    out = {}
    for role in TournamentRole.objects.filter(tournament=tournament, role="director"):
        line = body.split(f'id="director-{role.pk}"', 1)[1].split("</li>", 1)[0]
        button = ""
        for label in ("Step down", "Remove"):
            if f">{label}</button>" in line:
                button = label
        assert (f'name="role" value="{role.pk}"' in line) == bool(button), line
        out[role.user.username] = button
    return out


def test_the_page_offers_remove_only_where_the_service_would_accept_it(
    event: dict[str, Any],
) -> None:
    t = event["t"]
    assert _buttons(page(event["carol"]), t) == {
        "bob": "",  # the creator
        "carol": "Step down",
        "dave": "Remove",  # carol invited dave
        "erin": "",  # bob invited erin
    }
    assert _buttons(page(event["bob"]), t) == {
        "bob": "Step down",
        "carol": "Remove",
        "dave": "Remove",
        "erin": "Remove",
    }
    body = page(event["carol"]).get(reverse("tournament:directors", args=[t.slug]))
    assert "created the tournament" in body.content.decode()
    assert "joined through an invitation from bob" in body.content.decode()


def test_a_forged_remove_is_refused_with_the_rule_and_changes_nothing(
    event: dict[str, Any],
) -> None:
    t, bob, carol = event["t"], event["bob"], event["carol"]
    url = reverse("tournament:directors", args=[t.slug])
    answer = page(carol).post(url, {"op": "remove", "role": role_of(t, bob).pk})
    assert answer.status_code == 403
    text = answer.content.decode()
    assert "bob created this tournament" in text
    # Words a director can read: never the API's internal rule label (core.exceptions).
    assert "co_directors" not in text
    assert directs(t, bob)
    erin = role_of(t, event["erin"])
    answer = page(carol).post(url, {"op": "remove", "role": erin.pk})
    assert answer.status_code == 403
    assert "You did not invite erin" in answer.content.decode()
    assert directs(t, event["erin"])
    # Another tournament's role, or no number: nothing to remove.
    other = tournament_create(actor=bob, name="Other", slug="other-cup")
    for forged in (role_of(other, bob).pk, "x"):
        assert page(carol).post(url, {"op": "remove", "role": forged}).status_code == 404
    assert directs(other, bob)


def test_removing_and_stepping_down_on_the_page(event: dict[str, Any]) -> None:
    t, bob, carol, dave = (event[k] for k in ("t", "bob", "carol", "dave"))
    url = reverse("tournament:directors", args=[t.slug])
    client = page(carol)
    answer = client.post(url, {"op": "remove", "role": role_of(t, dave).pk})
    assert answer.status_code == 302
    assert "dave no longer directs this tournament." in client.get(url).content.decode()
    assert not directs(t, dave)
    answer = client.post(url, {"op": "remove", "role": role_of(t, carol).pk})
    assert answer.status_code == 302
    assert answer["Location"] == reverse("tournament:director-home")
    assert not directs(t, carol)
    assert client.get(url).status_code == 403  # no longer hers
    # The last one left sees no Step down, and a forged one is a 409.
    role_revoke(role=role_of(t, event["erin"]), actor=bob)
    assert _buttons(page(bob), t) == {"bob": ""}
    answer = page(bob).post(url, {"op": "remove", "role": role_of(t, bob).pk})
    assert answer.status_code == 409
    assert "A tournament keeps at least one director." in answer.content.decode()
    assert directs(t, bob)


# -- two removals at once (PostgreSQL) -----------------------------------------------------


def _race(monkeypatch: pytest.MonkeyPatch, calls: list[tuple[Any, Any]]) -> list[Any]:
    """Run each ``(role, actor)`` removal in its own thread and connection. Each waits (up to
    a second) for the other after counting the directors: without the lock both would count
    two and both delete. With it the second waits for the first to commit, then counts."""
    from tournament.services import roles

    together = threading.Barrier(len(calls), timeout=1)
    refusal = roles.director_removal_refusal

    def counted_then_wait(**kwargs: Any) -> Any:
        answer = refusal(**kwargs)
        with contextlib.suppress(threading.BrokenBarrierError):
            together.wait()
        return answer

    monkeypatch.setattr(roles, "director_removal_refusal", counted_then_wait)
    results: list[Any] = [None] * len(calls)

    def remove(i: int, role: Any, actor: Any) -> None:
        try:
            role_revoke(role=role, actor=actor)
            results[i] = "removed"
        except ApplicationError as exc:
            results[i] = exc
        finally:
            connections.close_all()

    threads = [
        threading.Thread(target=remove, args=(i, role, actor))
        for i, (role, actor) in enumerate(calls)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    return results


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_directors_stepping_down_at_once_leave_one(monkeypatch: pytest.MonkeyPatch) -> None:
    bob = tournament_creator(username="bob")
    t = tournament_create(actor=bob, name="Demo Pairs", slug="demo-pairs")
    carol = invited(t, bob, "carol")
    results = _race(monkeypatch, [(role_of(t, bob), bob), (role_of(t, carol), carol)])
    assert results.count("removed") == 1, results
    refused = next(r for r in results if r != "removed")
    assert isinstance(refused, ApplicationError), results
    assert (refused.code, refused.status_code) == ("last_director", 409)
    assert TournamentRole.objects.filter(tournament=t, role="director").count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_superuser_and_a_director_removing_the_two_directors_at_once_leave_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bob = tournament_creator(username="bob")
    t = tournament_create(actor=bob, name="Demo Pairs", slug="demo-pairs")
    carol = invited(t, bob, "carol")
    root = User.objects.create_superuser("root", "root@example.com", "pw")
    results = _race(monkeypatch, [(role_of(t, bob), root), (role_of(t, carol), carol)])
    assert results.count("removed") == 1, results
    assert [r.code for r in results if r != "removed"] == ["last_director"], results
    assert TournamentRole.objects.filter(tournament=t, role="director").count() == 1


@pytest.mark.django_db
def test_a_superusers_tournament_says_why_no_director_is_listed(client: Client) -> None:
    """A superuser directs every tournament without a role row: the Directors page of the
    tournament they created says so instead of an empty list (found using the demo)."""
    root = User.objects.create_superuser("root", "root@example.com", "pw")
    t = tournament_create(actor=root, name="Root Open", slug="root-open")
    assert not TournamentRole.objects.filter(tournament=t).exists()
    client.force_login(root)
    body = client.get(reverse("tournament:directors", args=[t.slug])).content.decode()
    assert 'id="director-none"' in body
    assert "site administrators (superusers) direct every tournament" in body
    client.cookies["django_language"] = "es"
    body = client.get(reverse("tournament:directors", args=[t.slug])).content.decode()
    assert "los administradores del sitio (superusuarios) dirigen todos los torneos" in body
