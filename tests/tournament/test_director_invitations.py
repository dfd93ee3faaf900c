"""Co-director invitations (docs/security.md): one link, one NEW account, one tournament.

The services: the key is stored as a referee credential's is (prefix + SHA-256, shown once);
accepting creates an account that is not staff, has no permission, creates no tournaments and
directs the invitation's tournament only; the link works once, until it expires, while it is
not revoked and its issuer still directs the tournament; wrong keys count towards the
per-address limit; two sign-ups racing with one link make one account.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import threading
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from core.exceptions import ApplicationError, PermissionDeniedError
from tests.factories import TournamentFactory, UserFactory, director_of, referee_of
from tests.security.conftest import fresh_ip
from tournament import services
from tournament.context import RefereeActor
from tournament.models import ActionLog, DirectorInvitation, Tournament, TournamentRole
from tournament.services import (
    InvitationGoneError,
    InvitationInvalidError,
    InvitationThrottledError,
    director_invitation_accept,
    director_invitation_check,
    director_invitation_issue,
    director_invitation_revoke,
    require_director,
    role_revoke,
    tournament_create,
    tournament_create_allowed,
)

pytestmark = pytest.mark.django_db

User = get_user_model()
PASSWORD = "Domino-table-42"


def invite(tournament: Tournament, director: Any = None, label: str = "") -> DirectorInvitation:
    return director_invitation_issue(
        tournament=tournament, actor=director or director_of(tournament), label=label
    )


def accept(key: str, username: str = "newcomer", password: str = PASSWORD) -> Any:
    return director_invitation_accept(
        key=key, username=username, password=password, client_ip=fresh_ip()
    )


@pytest.fixture
def tournament() -> Tournament:
    return TournamentFactory(status=Tournament.Status.REGISTRATION)


# -- issuing ---------------------------------------------------------------------------------


@override_settings(DIRECTOR_INVITATION_DAYS=3)
def test_the_key_is_shown_once_and_only_its_hash_and_prefix_are_stored(
    tournament: Tournament,
) -> None:
    director = director_of(tournament)
    before = timezone.now()
    invitation = invite(tournament, director, label="Ana Ruiz")
    key: str = invitation.key  # type: ignore[attr-defined]
    prefix, secret = key.split(".")
    assert len(base64.urlsafe_b64decode(secret + "=" * (-len(secret) % 4))) == 24  # 192 bits
    assert invitation.link.endswith(f"/invite/#{key}")  # type: ignore[attr-defined]
    row = DirectorInvitation.objects.get(pk=invitation.pk)
    assert (row.prefix, row.key_hash) == (prefix, hashlib.sha256(key.encode()).hexdigest())
    stored = {str(v) for v in DirectorInvitation.objects.filter(pk=row.pk).values().get().values()}
    assert key not in stored
    assert secret not in " ".join(stored)
    assert before + timedelta(days=3) <= row.expires_at <= timezone.now() + timedelta(days=3)
    assert (row.issued_by, row.label) == (director, "Ana Ruiz")
    log = ActionLog.objects.get(verb="director_invitation.issue")
    assert log.data["prefix"] == prefix
    assert secret not in str(log.data)


def test_only_a_director_of_that_tournament_may_issue_or_revoke(tournament: Tournament) -> None:
    other = TournamentFactory()
    other_director = director_of(other)
    referee = referee_of(tournament)
    invitation = invite(tournament)
    for actor in (
        other_director,  # a director of B cannot invite to A
        UserFactory(),
        UserFactory(is_staff=True),  # staff add EXISTING accounts; invitations are directors'
        RefereeActor(user_id=referee.pk, tournament_id=tournament.pk),
        None,
    ):
        with pytest.raises(PermissionDeniedError):
            director_invitation_issue(tournament=tournament, actor=actor)
        with pytest.raises(PermissionDeniedError):
            director_invitation_revoke(invitation=invitation, actor=actor)
    assert DirectorInvitation.objects.filter(tournament=tournament).count() == 1
    assert DirectorInvitation.objects.get().revoked_at is None
    # ... and the director of B invites to B only.
    assert invite(other, other_director).tournament_id == other.pk


def test_no_invitation_is_issued_in_a_finished_tournament(tournament: Tournament) -> None:
    director = director_of(tournament)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    tournament.refresh_from_db()
    with pytest.raises(ApplicationError) as exc:
        director_invitation_issue(tournament=tournament, actor=director)
    assert exc.value.status_code == 409
    assert not DirectorInvitation.objects.exists()


def test_a_label_longer_than_the_column_is_refused_on_its_field(tournament: Tournament) -> None:
    with pytest.raises(ApplicationError) as exc:
        invite(tournament, label="x" * 61)
    assert list(exc.value.fields) == ["label"]


# -- accepting -------------------------------------------------------------------------------


def test_accepting_makes_a_new_account_that_directs_this_tournament_only(
    tournament: Tournament,
) -> None:
    director = director_of(tournament)
    other = TournamentFactory()
    invitation = invite(tournament, director)
    users_before = set(User.objects.values_list("pk", flat=True))

    user = accept(invitation.key, username="ana")  # type: ignore[attr-defined]

    assert user.pk not in users_before
    user.refresh_from_db()
    assert (user.username, user.is_active, user.is_staff, user.is_superuser) == (
        "ana",
        True,
        False,
        False,
    )
    assert user.check_password(PASSWORD)
    assert not user.user_permissions.exists()
    assert not user.groups.exists()
    assert not user.get_all_permissions()
    roles = list(TournamentRole.objects.filter(user=user).values_list("tournament_id", "role"))
    assert roles == [(tournament.pk, TournamentRole.Role.DIRECTOR)]
    # It directs this tournament ...
    require_director(actor=user, tournament=tournament)
    # ... and nothing else: not another tournament, not the creation of tournaments.
    with pytest.raises(PermissionDeniedError):
        require_director(actor=user, tournament=other)
    assert tournament_create_allowed(actor=user) is False
    with pytest.raises(PermissionDeniedError):
        tournament_create(actor=user, name="Mine", slug="mine")
    assert not Tournament.objects.filter(slug="mine").exists()
    # The invitation is used, by this account, for this role; the grant is logged like any.
    row = DirectorInvitation.objects.get(pk=invitation.pk)
    assert row.used_at is not None
    assert row.used_by == user
    assert row.role == TournamentRole.objects.get(user=user)
    log = ActionLog.objects.get(verb="role.grant", tournament=tournament)
    assert log.actor == director  # the authority: the director who issued the invitation
    assert log.data == {
        "user_id": user.pk,
        "role": "director",
        "username": "ana",
        "invitation": row.prefix,
    }


def test_a_director_appointed_otherwise_still_creates_tournaments(tournament: Tournament) -> None:
    """Only invitation roles are left out of "directs a tournament" for creating one."""
    director = director_of(tournament)
    assert tournament_create_allowed(actor=director) is True


def test_the_new_tournament_page_tells_an_invited_co_director_why_not(
    tournament: Tournament,
) -> None:
    """A director's walkthrough on ``make demo``: a co-director who opened ``/director/new/``
    read "Only staff or tournament directors may create tournaments." though they direct a
    tournament. The page now says why: they joined through an invitation (as their Director
    page does). Anyone else refused keeps the general words."""
    user = accept(invite(tournament).key, username="luisa")  # type: ignore[attr-defined]
    client = Client()
    client.force_login(user)
    response = client.get(reverse("brackets:tournament-create"))
    assert response.status_code == 403
    text = response.content.decode().replace("&#x27;", "'")
    assert "You joined as a co-director through an invitation" in text
    assert "Only staff or tournament directors may create tournaments." not in text
    client.force_login(UserFactory())
    other = client.get(reverse("brackets:tournament-create")).content.decode()
    assert "Only staff or tournament directors may create tournaments." in other


def test_an_invitation_works_once(tournament: Tournament) -> None:
    invitation = invite(tournament)
    key = invitation.key  # type: ignore[attr-defined]
    accept(key, username="first")
    with pytest.raises(InvitationGoneError) as exc:
        accept(key, username="second")
    assert exc.value.code == "invitation_used"
    assert exc.value.status_code == 410
    with pytest.raises(InvitationGoneError):
        director_invitation_check(key=key, client_ip=fresh_ip())
    assert not User.objects.filter(username="second").exists()
    assert (
        TournamentRole.objects.filter(tournament=tournament, user__username="second").count() == 0
    )


def test_an_expired_invitation_is_refused(tournament: Tournament) -> None:
    invitation = invite(tournament)
    DirectorInvitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    with pytest.raises(InvitationGoneError) as exc:
        accept(invitation.key)  # type: ignore[attr-defined]
    assert exc.value.code == "invitation_expired"
    assert not User.objects.filter(username="newcomer").exists()


def test_a_revoked_invitation_stops_working_at_once(tournament: Tournament) -> None:
    director = director_of(tournament)
    co_director = director_of(tournament)
    invitation = invite(tournament, director)
    # Any director of the tournament may revoke it, not only its issuer.
    director_invitation_revoke(invitation=invitation, actor=co_director)
    director_invitation_revoke(invitation=invitation, actor=co_director)  # idempotent
    assert ActionLog.objects.filter(verb="director_invitation.revoke").count() == 1
    with pytest.raises(InvitationGoneError) as exc:
        accept(invitation.key)  # type: ignore[attr-defined]
    assert exc.value.code == "invitation_revoked"
    assert not User.objects.filter(username="newcomer").exists()


def test_a_used_invitation_cannot_be_revoked(tournament: Tournament) -> None:
    director = director_of(tournament)
    invitation = invite(tournament, director)
    accept(invitation.key)  # type: ignore[attr-defined]
    with pytest.raises(ApplicationError) as exc:
        director_invitation_revoke(invitation=invitation, actor=director)
    assert exc.value.code == "invitation_used"


def test_an_issuer_removed_as_director_takes_their_invitations_with_them(
    tournament: Tournament,
) -> None:
    """A director who issued an invitation and was then removed must not come back through a
    new account made with it."""
    director = director_of(tournament)
    tournament.created_by = director  # who may remove any co-director
    tournament.save()
    leaving = director_of(tournament)
    by_service = invite(tournament, leaving)
    by_admin = invite(tournament, leaving)
    kept = invite(tournament, director)
    role_revoke(role=TournamentRole.objects.get(user=leaving), actor=director)
    by_service.refresh_from_db()
    assert by_service.revoked_at is not None
    assert by_service.revoked_by == director
    # Even when the role disappears without the service (the admin, a cascade) and the
    # invitation still looks pending, accepting checks its issuer again.
    DirectorInvitation.objects.filter(pk=by_admin.pk).update(revoked_at=None, revoked_by=None)
    with pytest.raises(InvitationGoneError) as exc:
        accept(by_admin.key)  # type: ignore[attr-defined]
    assert exc.value.code == "invitation_revoked"
    assert accept(kept.key, username="kept").username == "kept"  # type: ignore[attr-defined]


def test_nobody_joins_a_finished_tournament(tournament: Tournament) -> None:
    invitation = invite(tournament)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED)
    with pytest.raises(ApplicationError) as exc:
        accept(invitation.key)  # type: ignore[attr-defined]
    assert (exc.value.status_code, exc.value.code) == (409, "tournament_finished")
    assert DirectorInvitation.objects.get(pk=invitation.pk).used_at is None


def test_finishing_revokes_pending_invitations_and_a_reopen_revives_none(
    tournament: Tournament,
) -> None:
    """As the referee credentials (docs/security.md): a link sent before the finish must not
    make a director of the reopened tournament; a used one stays as it was."""
    director = director_of(tournament)
    used = invite(tournament, director)
    accept(used.key, username="early")  # type: ignore[attr-defined]
    pending = invite(tournament, director)
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.RUNNING)
    tournament.refresh_from_db()
    services.tournament_status_change(
        tournament=tournament, actor=director, status=Tournament.Status.FINISHED
    )
    services.tournament_reopen(
        tournament=Tournament.objects.get(pk=tournament.pk), actor=director, reason="a score"
    )
    pending.refresh_from_db()
    assert pending.revoked_at is not None
    assert pending.revoked_by == director
    assert DirectorInvitation.objects.get(pk=used.pk).revoked_at is None  # used: untouched
    log = ActionLog.objects.get(verb="director_invitation.revoke")
    assert log.data == {"prefix": pending.prefix, "tournament_finished": True}
    with pytest.raises(InvitationGoneError) as exc:
        accept(pending.key)  # type: ignore[attr-defined]
    assert exc.value.code == "invitation_revoked"
    assert not User.objects.filter(username="newcomer").exists()
    # A new invitation after the reopen works.
    assert accept(invite(tournament, director).key, username="later").username == "later"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "key",
    ["", "nodot", ".", "unknownpref.secret", "x" * 200 + ".y", None, 17, "\x00.abc", "a\ud800.b"],
)
def test_unknown_or_garbled_keys_are_invalid(tournament: Tournament, key: Any) -> None:
    invite(tournament)
    with pytest.raises(InvitationInvalidError) as exc:
        director_invitation_check(key=key, client_ip=fresh_ip())
    assert exc.value.status_code == 404


def test_the_right_prefix_with_a_wrong_secret_is_invalid(tournament: Tournament) -> None:
    invitation = invite(tournament)
    prefix = invitation.key.split(".")[0]  # type: ignore[attr-defined]
    with pytest.raises(InvitationInvalidError):
        accept(f"{prefix}.{'A' * 32}")
    assert DirectorInvitation.objects.get(pk=invitation.pk).used_at is None


@override_settings(REFEREE_TOKEN_MAX_FAILURES=2)
def test_wrong_keys_are_throttled_per_address_with_the_referee_keys_counter(
    tournament: Tournament,
) -> None:
    invitation = invite(tournament)
    ip = fresh_ip()
    for _ in range(2):
        with pytest.raises(InvitationInvalidError):
            director_invitation_check(key="wrongpref.secret", client_ip=ip)
    with pytest.raises(InvitationThrottledError) as exc:
        director_invitation_check(key="wrongpref.secret", client_ip=ip)
    assert exc.value.status_code == 429
    # Referee keys and invitation keys share one budget per address ...
    with pytest.raises(services.RefereeTokenThrottledError):
        services.referee_token_resolve(key="wrongpref.secret", client_ip=ip)
    # ... and a real invitation is never refused by it (one venue, one NAT).
    user = director_invitation_accept(
        key=invitation.key,  # type: ignore[attr-defined]
        username="behind-nat",
        password=PASSWORD,
        client_ip=ip,
    )
    assert user.username == "behind-nat"


@pytest.mark.parametrize(
    ("username", "password", "field"),
    [
        ("Existing", PASSWORD, "username"),  # taken, whatever the case
        ("bad name!", PASSWORD, "username"),  # the user model's own characters
        ("", PASSWORD, "username"),
        ("newcomer", "12345678", "password1"),  # Django's validators: numeric, common
        ("newcomer", "short", "password1"),
        ("newcomer", "newcomer1", "password1"),  # too like the user name
    ],
)
def test_a_bad_name_or_password_is_refused_on_its_field_and_uses_nothing(
    tournament: Tournament, username: str, password: str, field: str
) -> None:
    UserFactory(username="existing")
    invitation = invite(tournament)
    users = User.objects.count()
    with pytest.raises(ApplicationError) as exc:
        accept(invitation.key, username=username, password=password)  # type: ignore[attr-defined]
    assert field in exc.value.fields
    assert exc.value.status_code == 400
    assert User.objects.count() == users
    assert DirectorInvitation.objects.get(pk=invitation.pk).used_at is None


def test_an_invited_co_director_of_a_cannot_invite_to_b(tournament: Tournament) -> None:
    """The chain: a co-director made by A's invitation directs A (and may invite to A, as any
    director of A), and has nothing in B."""
    other = TournamentFactory()
    invitation = invite(tournament)
    co_director = accept(invitation.key)  # type: ignore[attr-defined]
    assert invite(tournament, co_director).tournament == tournament
    with pytest.raises(PermissionDeniedError):
        director_invitation_issue(tournament=other, actor=co_director)
    with pytest.raises(PermissionDeniedError):
        director_invitation_revoke(invitation=invite(other), actor=co_director)


# -- two sign-ups with one link --------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_sign_ups_racing_with_one_link_make_exactly_one_account(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Both requests pass the checks together unless the invitation's row is locked: each
    waits (up to a second) for the other after its checks, so without the lock both would
    create an account. With it the second waits for the first to commit and finds it used."""
    from tournament.services import invitations

    tournament = TournamentFactory(status=Tournament.Status.REGISTRATION)
    key = invite(tournament).key  # type: ignore[attr-defined]
    together = threading.Barrier(2, timeout=1)
    checked = invitations._require_usable

    def checked_then_wait(invitation: DirectorInvitation) -> None:
        checked(invitation)
        with contextlib.suppress(threading.BrokenBarrierError):
            together.wait()

    monkeypatch.setattr(invitations, "_require_usable", checked_then_wait)
    results: dict[str, Any] = {}

    def sign_up(name: str) -> None:
        try:
            results[name] = accept(key, username=name)
        except ApplicationError as exc:
            results[name] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=sign_up, args=(name,)) for name in ("one", "two")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    made = [r for r in results.values() if not isinstance(r, Exception)]
    refused = [r for r in results.values() if isinstance(r, Exception)]
    assert len(made) == 1, results
    assert len(refused) == 1, results
    assert isinstance(refused[0], InvitationGoneError), results
    assert refused[0].code == "invitation_used"
    assert User.objects.filter(username__in=["one", "two"]).count() == 1
    assert TournamentRole.objects.filter(tournament=tournament).count() == 2  # issuer + one
