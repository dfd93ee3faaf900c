"""One regression test per finding of issue 12 (1-5), each failing on the code before the fix,
plus the chains: grant -> token -> act, add entry -> edit player, revoke -> reuse session,
finish -> write. Referees act only through their credential (a capability, never a login).
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from core.exceptions import ApplicationError, PermissionDeniedError
from scoring.models import Hand, Match
from scoring.services import hand_record
from tests.factories import (
    EntryFactory,
    PlayerFactory,
    TournamentFactory,
    UserFactory,
    director_of,
    match_in_progress,
    staff_with,
)
from tests.security.conftest import (
    csrf,
    fresh_ip,
    open_link,
    referee_with_key,
    token_client,
)
from tournament import services
from tournament.context import SESSION_CREDENTIAL_KEY
from tournament.models import ActionLog, Player, Tournament, TournamentRole

pytestmark = pytest.mark.django_db

HAND = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 2}


# -- finding 1: a director's grant chained into a takeover --


def test_finding1_a_director_cannot_give_a_role_to_the_superuser_or_any_existing_account() -> None:
    x, y = TournamentFactory(), TournamentFactory()
    director_of(x)
    director_y = director_of(y)
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw")
    someone = UserFactory()
    for user in (root, someone):
        for role in ("referee", "director"):
            with pytest.raises((ApplicationError, PermissionDeniedError)):
                services.role_grant(tournament=y, actor=director_y, user=user, role=role)
    assert not TournamentRole.objects.filter(user__in=[root, someone]).exists()
    # Nor can a credential be issued to them (the old chain's second step).
    with pytest.raises(ApplicationError):
        services.referee_token_issue(tournament=y, actor=director_y, user=root)


def test_finding1_staff_may_add_a_co_director_but_never_a_staff_account() -> None:
    t = TournamentFactory()
    # Staff holding the admin's permission to add roles (the flag alone may not:
    # tests/security/test_staff_flag.py).
    staff = staff_with("tournament.add_tournamentrole")
    newcomer = UserFactory()
    role = services.role_grant(tournament=t, actor=staff, user=newcomer, role="director")
    assert role.role == "director"
    assert ActionLog.objects.filter(tournament=t, verb="role.grant").exists()
    with pytest.raises(ApplicationError):
        services.role_grant(
            tournament=t, actor=staff, user=UserFactory(is_staff=True), role="director"
        )


def test_chain_grant_token_act_reaches_only_the_assigned_matches_of_one_tournament() -> None:
    """The old chain: director of Y makes a referee, issues a credential, and uses it against
    X and the admin. Now the credential is a capability in Y only."""
    x, y = TournamentFactory(), TournamentFactory()
    director_x, director_y = director_of(x), director_of(y)
    services.referee_token_issue  # noqa: B018 - (documenting the step)
    referee, token = referee_with_key(y, director_y, "ref-y")
    services.referee_token_issue(
        tournament=x, actor=director_x, user=referee_with_key(x, director_x, "ref-x")[0]
    )
    mine = match_in_progress(y, referee=referee)
    not_mine = match_in_progress(y)
    in_x = match_in_progress(x)
    api = token_client(token)
    # The identity is not a site account: inactive, no password, not staff.
    assert not referee.is_active
    assert not referee.has_usable_password()
    assert not referee.is_staff
    # What it may do: hands on its own match.
    r = api.post(f"/api/matches/{mine.pk}/hands/", {"number": 1, **HAND}, format="json")
    assert r.status_code == 201, r.content
    # Nothing else.
    assert (
        api.post(
            f"/api/matches/{not_mine.pk}/hands/", {"number": 1, **HAND}, format="json"
        ).status_code
        == 403
    )
    assert (
        api.post(f"/api/matches/{in_x.pk}/hands/", {"number": 1, **HAND}, format="json").status_code
        == 403
    )
    assert (
        api.patch(f"/api/tournaments/{x.slug}/", {"venue": "pwned"}, format="json").status_code
        == 403
    )
    assert (
        api.patch(f"/api/tournaments/{y.slug}/", {"venue": "pwned"}, format="json").status_code
        == 403
    )
    assert api.get(f"/api/tournaments/{x.slug}/referee-tokens/").status_code == 403
    assert api.get(f"/api/tournaments/{y.slug}/referee-tokens/").status_code == 403
    assert (
        api.post(f"/api/tournaments/{x.slug}/tables/", {"number": 77}, format="json").status_code
        == 403
    )
    assert (
        api.post(
            f"/api/matches/{not_mine.pk}/forfeit/", {"seat": 1, "reason": "x"}, format="json"
        ).status_code
        == 403
    )
    assert api.post("/api/players/", {"name": "Eve"}, format="json").status_code == 403
    assert (
        api.post("/api/tournaments/", {"name": "T", "slug": "t-new"}, format="json").status_code
        == 403
    )
    assert api.get("/admin/auth/user/").status_code == 302  # the admin's login, not a page
    assert Tournament.objects.get(pk=x.pk).venue != "pwned"
    me = api.get("/api/me/").json()
    assert me["kind"] == "referee"
    assert me["user"] is None
    assert me["referee"]["matches"] == [mine.pk]
    assert [t["slug"] for t in me["tournaments"]] == [y.slug]
    assert "manage" not in me["tournaments"][0]["actions"]


def test_finding1_the_link_never_signs_in_as_an_account() -> None:
    t = TournamentFactory()
    director = director_of(t)
    _, token = referee_with_key(t, director, "ref-link")
    client = Client(REMOTE_ADDR=fresh_ip())
    client.force_login(director)  # a director's phone, handed to the referee
    r = open_link(client, token.key)  # type: ignore[attr-defined]
    assert r.status_code == 200, r.content
    session = client.session
    assert "_auth_user_id" not in session  # no django login, and the director is signed out
    assert session[SESSION_CREDENTIAL_KEY] == token.pk
    assert client.get("/admin/").status_code == 302
    assert client.get(f"/director/tournaments/{t.slug}/").status_code in (302, 403)
    assert client.get(r.json()["redirect"]).status_code in (200, 302)


# -- finding 2: revoking a credential ends the sessions opened through its link --


def test_chain_revoke_then_reuse_session_is_refused_on_the_next_request() -> None:
    t = TournamentFactory()
    director = director_of(t)
    referee, token = referee_with_key(t, director, "ref-revoke")
    match = match_in_progress(t, referee=referee)
    phone = Client(REMOTE_ADDR=fresh_ip())
    assert open_link(phone, token.key).status_code == 200  # type: ignore[attr-defined]
    assert phone.get(f"/matches/{match.pk}/").status_code == 200
    ok = phone.post(
        f"/api/matches/{match.pk}/hands/",
        json.dumps({"number": 1, **HAND}),
        content_type="application/json",
        **csrf(phone),
    )
    assert ok.status_code == 201, ok.content
    services.referee_token_revoke(token=token, actor=director)
    refused = phone.post(
        f"/api/matches/{match.pk}/hands/",
        json.dumps({"number": 2, "poser": 2, "pose_tile": "5-5", "end": "domino", "winner": 1}),
        content_type="application/json",
        **csrf(phone),
    )
    assert refused.status_code in (401, 403), refused.content
    assert Hand.objects.filter(match=match).count() == 1
    assert phone.get(f"/matches/{match.pk}/").status_code == 302  # to sign in: no principal
    assert SESSION_CREDENTIAL_KEY not in phone.session
    # And the key itself is dead.
    assert (
        token_client(token)
        .post(f"/api/matches/{match.pk}/hands/", {"number": 2, **HAND}, format="json")
        .status_code
        == 401
    )


# -- finding 3: lifecycle gates --


def test_chain_finish_then_write_is_refused_for_everyone_and_reopen_is_logged() -> None:
    t = TournamentFactory()
    director = director_of(t)
    referee, token = referee_with_key(t, director, "ref-finish")
    match = match_in_progress(t, referee=referee)
    hand_record(match_id=match.pk, actor=referee, expected_number=1, payload=HAND)
    other = match_in_progress(t)
    services.tournament_status_change(tournament=t, actor=director, status="finished")
    api = APIClient()
    api.force_authenticate(director)
    for path, body in [
        (f"/api/matches/{match.pk}/hands/", {"number": 2, **HAND}),
        (f"/api/matches/{match.pk}/hands/void-last/", {"reason": "typo"}),
        (f"/api/matches/{other.pk}/forfeit/", {"seat": 1, "reason": "left"}),
        (f"/api/matches/{other.pk}/override/", {"scores": [6, 0, 0, 0], "reason": "x"}),
        (f"/api/tournaments/{t.slug}/tables/", {"number": 42}),
    ]:
        r = api.post(path, body, format="json")
        assert r.status_code == 409, (path, r.status_code, r.content)
        assert r.json()["error"]["code"] == "tournament_finished"
    assert (
        api.patch(f"/api/tournaments/{t.slug}/", {"venue": "x"}, format="json").status_code == 409
    )
    # The referee's credential expired with the tournament.
    assert (
        token_client(token)
        .post(f"/api/matches/{match.pk}/hands/", {"number": 2, **HAND}, format="json")
        .status_code
        == 401
    )
    assert Hand.objects.filter(match=match).count() == 1
    with pytest.raises(ApplicationError):
        services.tournament_reopen(tournament=t, actor=director, reason="  ")
    r = api.post(f"/api/tournaments/{t.slug}/reopen/", {"reason": "scoring error"}, format="json")
    assert r.status_code == 200
    assert r.json()["status"] == "running"
    assert ActionLog.objects.filter(
        tournament=t, verb="tournament.reopen", reason="scoring error"
    ).exists()
    hand2 = {"number": 2, "poser": 2, "pose_tile": "5-5", "end": "domino", "winner": 1}
    r = api.post(f"/api/matches/{match.pk}/hands/", hand2, format="json")
    assert r.status_code == 201, r.content


def test_finding3_drafts_are_invisible_and_cannot_be_played() -> None:
    draft = TournamentFactory(status="draft")
    director = director_of(draft)
    public = TournamentFactory(status="registration")
    anon = APIClient()
    slugs = [t["slug"] for t in anon.get("/api/tournaments/").json()["results"]]
    assert public.slug in slugs
    assert draft.slug not in slugs
    assert anon.get(f"/api/tournaments/{draft.slug}/").status_code == 404
    assert anon.get(f"/api/tournaments/{draft.slug}/entries/").status_code == 404
    assert anon.get(f"/api/live/{draft.slug}/").status_code == 404
    spectator = APIClient()
    spectator.force_authenticate(UserFactory())
    assert draft.slug not in [
        t["slug"] for t in spectator.get("/api/tournaments/").json()["results"]
    ]
    mine = APIClient()
    mine.force_authenticate(director)
    assert draft.slug in [t["slug"] for t in mine.get("/api/tournaments/").json()["results"]]
    match = match_in_progress(TournamentFactory())  # started while running ...
    Tournament.objects.filter(pk=match.tournament_id).update(status="draft")  # ... then draft
    with pytest.raises(ApplicationError) as exc:
        hand_record(
            match_id=match.pk,
            actor=director_of(match.tournament),
            expected_number=1,
            payload=HAND,
        )
    assert exc.value.code == "tournament_draft"
    assert exc.value.status_code == 409


# -- finding 4: a valid credential is never throttled; no X-Forwarded-For by default --


def test_finding4_a_valid_key_is_accepted_after_wrong_ones_and_forwarded_for_is_not_trusted() -> (
    None
):
    t = TournamentFactory()
    director = director_of(t)
    _, token = referee_with_key(t, director, "ref-nat")
    ip = fresh_ip()
    venue = APIClient(REMOTE_ADDR=ip)
    venue.credentials(HTTP_AUTHORIZATION="Token bad.bad")
    codes = [venue.get("/api/me/").status_code for _ in range(25)]
    assert codes[-1] == 429
    venue.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")  # type: ignore[attr-defined]
    assert venue.get("/api/me/").status_code == 200
    # Rotating X-Forwarded-For while talking to the app directly changes nothing.
    for n in range(3):
        rotating = APIClient(REMOTE_ADDR=ip, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}")
        rotating.credentials(HTTP_AUTHORIZATION="Token bad.bad")
        assert rotating.get("/api/me/").status_code == 429


# -- finding 5: add entry -> edit player --


def test_chain_add_entry_then_edit_player_is_refused_for_identity_fields_and_rating() -> None:
    """Director Y enters X's player in Y (by design: players are shared), then may change
    neither their name nor their typed rating: the rating seeds the player in X too (T8),
    so Y would move X's seeding."""
    from ratings.selectors import seeding_ratings

    x, y = TournamentFactory(), TournamentFactory()
    director_x = director_of(x)
    director_y = director_of(y)
    player = PlayerFactory(name="Ana Real", rating=1500)
    EntryFactory(tournament=x, player=player)
    api = APIClient()
    api.force_authenticate(director_y)
    r = api.post(f"/api/tournaments/{y.slug}/entries/", {"player": player.pk}, format="json")
    assert r.status_code == 201, r.content
    for field, value in [
        ("name", "Pwned"),
        ("nickname", "p"),
        ("country", "XX"),
        ("club", "c"),
        ("rating", 2999),
    ]:
        r = api.patch(f"/api/players/{player.pk}/", {field: value}, format="json")
        assert r.status_code == 403, (field, r.content)
        error = r.json()["error"]
        assert list(error["fields"]) == [field]
        assert "rating" in error["message"]
    assert Player.objects.get(pk=player.pk).name == "Ana Real"
    assert seeding_ratings(player_ids=[player.pk]) == {player.pk: 1500.0}  # X's seeding
    # A director of every tournament the player entered may; so may staff allowed to change
    # players (README "Ratings"), not the staff flag alone.
    TournamentRole.objects.create(tournament=x, user=director_y, role="director")
    assert (
        api.patch(f"/api/players/{player.pk}/", {"club": "Club Y"}, format="json").status_code
        == 200
    )
    assert (
        api.patch(f"/api/players/{player.pk}/", {"rating": 1600}, format="json").status_code == 200
    )
    flag_only = APIClient()
    flag_only.force_authenticate(UserFactory(is_staff=True))
    assert (
        flag_only.patch(f"/api/players/{player.pk}/", {"rating": 100}, format="json").status_code
        == 403
    )
    staff = APIClient()
    staff.force_authenticate(staff_with("tournament.change_player"))
    assert (
        staff.patch(
            f"/api/players/{player.pk}/", {"name": "Ana R.", "rating": 1550}, format="json"
        ).status_code
        == 200
    )
    assert seeding_ratings(player_ids=[player.pk]) == {player.pk: 1550.0}
    assert director_x  # the original director was never needed


# -- API login for clients --


def test_session_login_enforces_csrf_and_whoami_lists_where_i_may_act() -> None:
    t = TournamentFactory()
    director = director_of(t, username="dir-login")
    client = Client(enforce_csrf_checks=True)
    no_csrf = client.post(
        "/api/auth/login/",
        json.dumps({"username": "dir-login", "password": "pw"}),
        content_type="application/json",
    )
    assert no_csrf.status_code == 403
    assert client.get("/api/auth/login/").status_code == 204
    r = client.post(
        "/api/auth/login/",
        json.dumps({"username": "dir-login", "password": "pw"}),
        content_type="application/json",
        **csrf(client),
    )
    assert r.status_code == 200, r.content
    me = client.get("/api/me/").json()
    assert me["kind"] == "user"
    assert me["user"]["id"] == director.pk
    [entry] = me["tournaments"]
    assert entry["slug"] == t.slug
    assert "director" in entry["roles"]
    assert "manage" in entry["actions"]
    wrong = Client(enforce_csrf_checks=True)
    wrong.get("/api/auth/login/")
    bad = wrong.post(
        "/api/auth/login/",
        json.dumps({"username": "dir-login", "password": "nope"}),
        content_type="application/json",
        **csrf(wrong),
    )
    assert bad.status_code == 400
    assert bad.json()["error"]["fields"]["password"]
    assert (
        client.post(
            "/api/auth/logout/", content_type="application/json", **csrf(client)
        ).status_code
        == 204
    )
    assert client.get("/api/me/").json()["kind"] == "anonymous"


def test_automatic_lifecycle_marks_are_logged() -> None:
    t = TournamentFactory(status="registration")
    assert services.tournament_mark_running(tournament_id=t.pk)
    assert not services.tournament_mark_running(tournament_id=t.pk)
    assert services.tournament_mark_finished(tournament_id=t.pk)
    assert Tournament.objects.get(pk=t.pk).status == "finished"
    assert list(
        ActionLog.objects.filter(tournament=t).order_by("id").values_list("verb", flat=True)
    ) == ["tournament.running", "tournament.finished"]
    assert Match.objects.filter(tournament=t).count() == 0
