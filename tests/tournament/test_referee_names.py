"""Referee names belong to their tournament (docs/security.md, "Referees";
``tournament.referee_names``).

Before, ``referee_create`` checked the typed name against every site login: any director
(anyone, through an invitation) learnt whether an account named X existed by trying to create a
referee X ("The name 'X' is taken"), and two tournaments could not both have a referee "Ana".
Now a referee's user name is ``ref:<tournament id>:<name>``, a namespace the user name validator
keeps every sign-up out of; a name is refused only when the same tournament already has a
referee of that name, in any case; pages, the API and the action log show the typed name.
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connections
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from brackets.presenters.director import referee_choices
from brackets.services import round_publish, stage_seed
from core.exceptions import ApplicationError, PermissionDeniedError
from scoring.models import Match
from tests.brackets.factories_pages import director_client, tournament_with_stage
from tests.factories import TournamentFactory, UserFactory, director_of, scheduled_match
from tests.security.conftest import fresh_ip, open_link
from tournament import services
from tournament.models import ActionLog, Tournament, TournamentRole
from tournament.referee_names import (
    REFEREE_NAME_MAX_LENGTH,
    person_name,
    referee_name_of,
    referee_username,
)
from tournament.services import director_invitation_accept, director_invitation_issue

pytestmark = pytest.mark.django_db

User = get_user_model()


def _create(tournament: Tournament, name: str, **kwargs: Any) -> TournamentRole:
    return services.referee_create(
        tournament=tournament, actor=director_of(tournament), username=name, **kwargs
    )


def _refusal(tournament: Tournament, name: str) -> ApplicationError:
    with pytest.raises(ApplicationError) as exc:
        _create(tournament, name)
    return exc.value


def _text(html: str) -> str:
    return re.sub(r"<[^>]*>", " ", html)


# -- the oracle is closed ---------------------------------------------------------------------


def test_a_referee_named_like_a_site_account_is_created_and_the_account_is_untouched() -> None:
    """A director could tell "a login named X exists" from "no such login" by the refusal.
    Now the answer is the same either way: the referee is created, in the tournament's own
    namespace, and the account of that name stays as it was."""
    tournament = TournamentFactory()
    staff = UserFactory(username="root", is_staff=True, is_superuser=True)
    other_director = director_of(TournamentFactory(), username="Boss")
    for name in ("root", "boss", "nobody-has-this-name"):
        role = _create(tournament, name)
        assert role.user.username == f"ref:{tournament.pk}:{name}"
        assert role.user.pk not in (staff.pk, other_director.pk)
        assert not role.user.is_active
        assert not role.user.has_usable_password()
    staff.refresh_from_db()
    other_director.refresh_from_db()
    assert staff.get_username() == "root"
    assert staff.is_active
    assert staff.has_usable_password()
    assert other_director.username == "Boss"
    assert not TournamentRole.objects.filter(
        user__in=[staff, other_director], tournament=tournament
    )


def test_the_same_name_twice_in_one_tournament_is_refused_whatever_its_case() -> None:
    tournament = TournamentFactory()
    _create(tournament, "Ana")
    for name in ("Ana", "ana", "ANA", "  aNa "):
        exc = _refusal(tournament, name)
        message = "This tournament already has a referee named 'Ana': choose another name."
        assert (exc.code, exc.status_code, exc.message) == ("username_taken", 400, message)
        assert exc.fields == {"username": [message]}
    assert TournamentRole.objects.filter(tournament=tournament, role="referee").count() == 1


def test_two_tournaments_each_have_their_ana() -> None:
    first, second = TournamentFactory(), TournamentFactory()
    a, b = _create(first, "Ana").user, _create(second, "Ana").user
    assert a.pk != b.pk
    assert (person_name(a), person_name(b)) == ("Ana", "Ana")
    assert {a.username, b.username} == {f"ref:{first.pk}:Ana", f"ref:{second.pk}:Ana"}


def test_a_director_works_in_their_own_tournament_s_names_only() -> None:
    """Chains: a director of A cannot create in B, and no name typed in A reaches B's
    namespace (the tournament comes from the URL, never from the typed name)."""
    a, b = TournamentFactory(), TournamentFactory()
    director_a = director_of(a)
    with pytest.raises(PermissionDeniedError):
        services.referee_create(tournament=b, actor=director_a, username="Ana")
    _create(b, "Ana")
    # A name shaped like another tournament's user name is refused (":" is not a name
    # character); the user name comes from the URL's tournament and the typed name alone.
    with pytest.raises(ApplicationError) as spoof:
        services.referee_create(tournament=a, actor=director_a, username=f"ref:{b.pk}:Ana")
    assert (spoof.value.code, list(spoof.value.fields)) == ("invalid", ["username"])
    made = services.referee_create(tournament=a, actor=director_a, username="Ana").user
    assert made.username == f"ref:{a.pk}:Ana"
    assert TournamentRole.objects.filter(tournament=a, role="referee").count() == 1
    # A tournament whose id starts another's (5 and 55) keeps its own names: the prefix ends
    # with the separator.
    assert not referee_username(tournament_id=5, name="5:x").startswith("ref:55:")


ALLOWED = "Referee name: only letters, digits, - and _ (no spaces or accents)."


@pytest.mark.parametrize("name", ["Ana María", "ana maria", "José", "a:b", "mesa/1", "Ana\u200b"])
def test_the_service_refuses_what_the_page_refuses_naming_the_rule(name: str) -> None:
    """Bug: the referees page took letters, digits, - and _ only, but the API (and the
    service) took any text: a referee "Ana María" made through the API could not be typed
    again on the page. One rule now, in the service, with the page's words."""
    tournament = TournamentFactory()
    exc = _refusal(tournament, name)
    assert (exc.code, exc.fields) == ("invalid", {"username": [ALLOWED]})
    assert not TournamentRole.objects.filter(tournament=tournament, role="referee").exists()


@pytest.mark.parametrize("name", ["Ana", "mesa-1", "REF_2", "7"])
def test_the_service_takes_what_the_page_takes(name: str) -> None:
    assert person_name(_create(TournamentFactory(), name).user) == name


def test_the_name_is_required_and_at_most_the_limit() -> None:
    tournament = TournamentFactory()
    assert _create(tournament, "a" * REFEREE_NAME_MAX_LENGTH)
    exc = _refusal(tournament, "b" * (REFEREE_NAME_MAX_LENGTH + 1))
    assert (exc.code, list(exc.fields)) == ("max_length", ["username"])
    assert exc.message == "Referee name: at most 100 characters (this one has 101)."
    exc = _refusal(tournament, "   ")
    assert (exc.code, exc.fields) == ("required", {"username": ["Referee name: required."]})


def test_a_name_of_an_old_style_referee_of_the_tournament_counts_too() -> None:
    """A referee made before names were per tournament (its user name bare, left so when it
    referees several tournaments) still holds its name in each of them."""
    tournament = TournamentFactory()
    old = UserFactory(username="Carla", is_active=False)
    TournamentRole.objects.create(tournament=tournament, user=old, role="referee")
    assert _refusal(tournament, "carla").message.endswith("named 'Carla': choose another name.")
    assert _create(TournamentFactory(), "carla")  # another tournament's name space


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_ana_and_ana_racing_in_one_tournament_make_one_referee(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The user name column's unique index tells "ref:1:Ana" from "ref:1:ana": only the
    tournament's row lock keeps two creations from both passing the case-insensitive check.
    Each waits (up to a second) for the other after its check; with the lock the second
    checks only once the first has committed, and is refused."""
    from tournament.services import roles

    tournament = TournamentFactory()
    director = director_of(tournament)
    together = threading.Barrier(2, timeout=1)
    checked = roles.referee_name_taken

    def checked_then_wait(**kwargs: Any) -> str | None:
        taken = checked(**kwargs)
        with contextlib.suppress(threading.BrokenBarrierError):
            together.wait()
        return taken

    monkeypatch.setattr(roles, "referee_name_taken", checked_then_wait)
    results: dict[str, Any] = {}

    def create(name: str) -> None:
        try:
            results[name] = services.referee_create(
                tournament=tournament, actor=director, username=name
            )
        except ApplicationError as exc:
            results[name] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=create, args=(name,)) for name in ("Ana", "ana")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    refused = [r for r in results.values() if isinstance(r, ApplicationError)]
    assert len(refused) == 1, results
    assert refused[0].code == "username_taken"
    assert TournamentRole.objects.filter(tournament=tournament, role="referee").count() == 1


# -- sign-up can never make a referee's user name -------------------------------------------


def test_sign_up_through_an_invitation_refuses_the_separator() -> None:
    tournament = TournamentFactory(status=Tournament.Status.REGISTRATION)
    director = director_of(tournament)
    referee = services.referee_create(tournament=tournament, actor=director, username="Ana").user
    invitation = director_invitation_issue(tournament=tournament, actor=director)
    key = invitation.key  # type: ignore[attr-defined]
    for name in (referee.username, f"ref:{tournament.pk}:Eve", "a:b"):
        with pytest.raises(ApplicationError) as exc:
            director_invitation_accept(
                key=key, username=name, password="Domino-table-42", client_ip=fresh_ip()
            )
        assert (exc.value.code, list(exc.value.fields)) == ("bad_username", ["username"])
    # The bare name is a different account's, free to take.
    account = director_invitation_accept(
        key=key, username="Ana", password="Domino-table-42", client_ip=fresh_ip()
    )
    assert account.username == "Ana"
    assert account.pk != referee.pk
    referee.refresh_from_db()
    assert referee.username == f"ref:{tournament.pk}:Ana"


# -- the API ----------------------------------------------------------------------------------


def test_the_api_answers_the_typed_name_and_refuses_a_repeat_naming_username() -> None:
    tournament = TournamentFactory(status=Tournament.Status.REGISTRATION)
    director = director_of(tournament, username="director-x")
    UserFactory(username="ana")  # a site account: nobody's business
    api = APIClient()
    api.force_authenticate(director)
    base = f"/api/tournaments/{tournament.slug}"

    created = api.post(f"{base}/referees/", {"username": "ana"}, format="json")
    assert created.status_code == 201, created.content
    assert created.json()["username"] == "ana"
    user_id = created.json()["user"]

    again = api.post(f"{base}/referees/", {"username": "ANA"}, format="json")
    assert again.status_code == 400
    error = again.json()["error"]
    assert error["code"] == "username_taken"
    assert error["fields"] == {
        "username": ["This tournament already has a referee named 'ana': choose another name."]
    }

    long = api.post(f"{base}/referees/", {"username": "x" * 101}, format="json")
    assert long.status_code == 400
    assert list(long.json()["error"]["fields"]) == ["username"]

    spaced = api.post(f"{base}/referees/", {"username": "Ana María"}, format="json")
    assert spaced.status_code == 400
    assert spaced.json()["error"]["fields"] == {"username": [ALLOWED]}
    full = api.post(
        f"{base}/referees/", {"username": "ana-m", "display_name": "Ana María"}, format="json"
    )
    assert full.status_code == 201, full.content

    roles = api.get(f"{base}/roles/").json()
    rows = roles["results"] if isinstance(roles, dict) else roles
    assert {(r["username"], r["role"]) for r in rows} == {
        ("director-x", "director"),
        ("ana", "referee"),
        ("ana-m", "referee"),
    }
    issued = api.post(f"{base}/referee-tokens/", {"user": user_id}, format="json")
    assert issued.status_code == 201
    assert issued.json()["username"] == "ana"
    tokens = api.get(f"{base}/referee-tokens/").json()
    assert [t["username"] for t in tokens["results"]] == ["ana"]
    log = api.get(f"{base}/action-log/").json()
    created_log = [e for e in log["results"] if e["verb"] == "referee.create"]
    assert sorted(e["data"]["username"] for e in created_log) == ["ana", "ana-m"]
    assert f"ref:{tournament.pk}" not in str(roles) + str(tokens) + str(log)

    other = TournamentFactory(status=Tournament.Status.REGISTRATION)
    refused = api.post(f"/api/tournaments/{other.slug}/referees/", {"username": "x"}, format="json")
    assert refused.status_code == 403
    assert not TournamentRole.objects.filter(tournament=other).exists()


# -- pages --------------------------------------------------------------------------------------


def test_director_pages_show_the_typed_name_never_the_prefix() -> None:
    """The referees page, the round page's referee picker and table sheets, the dashboard and
    the action log."""
    tournament, director, stage = tournament_with_stage(8, referees=0)
    for name in ("Ana", "Bea"):
        services.referee_create(tournament=tournament, actor=director, username=name)
    stage_seed(stage=stage, actor=director, method="rating")
    rnd = round_publish(stage=stage, actor=director)
    assert [name for _, name in referee_choices(tournament)] == ["Ana", "Bea"]
    client = director_client(director)
    slug = tournament.slug
    pages = [
        reverse("tournament:referees", args=[slug]),
        reverse("brackets:round", args=[slug, rnd.pk]),
        reverse("brackets:sheets", args=[slug, rnd.pk]),
        reverse("scoring:director-dashboard", args=[slug]),
        reverse("brackets:log", args=[slug]),
    ]
    for url in pages:
        response = client.get(url)
        assert response.status_code == 200, url
        text = _text(response.content.decode())
        assert "Ana" in text, url
        assert "Bea" in text, url
        assert "ref:" not in response.content.decode(), url


def test_the_referee_s_phone_shows_the_typed_name() -> None:
    tournament = TournamentFactory()
    director = director_of(tournament)
    referee = services.referee_create(tournament=tournament, actor=director, username="Ana").user
    match = scheduled_match(tournament, referee=referee)
    token = services.referee_token_issue(tournament=tournament, actor=director, user=referee)
    phone = Client(REMOTE_ADDR=fresh_ip())
    assert open_link(phone, token.key).status_code == 200  # type: ignore[attr-defined]
    home = phone.get("/referee/").content.decode()
    assert "Signed in as Ana." in home
    page = phone.get(f"/matches/{match.pk}/").content.decode()
    assert re.search(r"referee\s+Ana", _text(page))
    assert "ref:" not in home + page
    assert Match.objects.get(pk=match.pk).referee_id == referee.pk


def test_the_action_log_records_the_typed_name() -> None:
    tournament = TournamentFactory()
    role = _create(tournament, "Ana")
    log = ActionLog.objects.get(tournament=tournament, verb="referee.create")
    assert log.data == {"user_id": role.user_id, "username": "Ana"}


def test_shown_names_strip_the_namespace_only() -> None:
    assert referee_name_of("ref:12:Ana") == "Ana"
    assert referee_name_of("ref:12:ref:3:x") == "ref:3:x"
    for plain in ("ana", "ref-12-ana", "ref:x:ana", "ref:12:", "Ref:12:ana"):
        assert referee_name_of(plain) == plain
