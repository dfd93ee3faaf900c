"""The staff flag alone controls no tournament (docs/security.md, "Staff and superusers"; a
security test's finding B).

Before, ``is_staff`` with no permission was the table's whole staff column: staffy made an
account a director of someone else's draft (``POST …/roles/`` 201), that account downloaded the
draft's archive (200), and staffy read drafts, changed a player's rating
(``PATCH /api/players/<id>/`` 200) and created tournaments. Now each of those asks the Django
permission the admin asks for the same change (superusers hold them all), and a superuser
creating a tournament gets no role row (they direct every tournament) yet runs it through the
pages. Chains through the API and the pages.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tests.factories import (
    EntryFactory,
    TournamentFactory,
    UserFactory,
    director_of,
    staff_with,
    tournament_creator,
)
from tests.security.conftest import fresh_ip
from tournament.models import Player, Tournament, TournamentRole
from tournament.services import tournament_create

pytestmark = pytest.mark.django_db

User = get_user_model()


def api(user: Any) -> APIClient:
    client = APIClient(REMOTE_ADDR=fresh_ip())
    client.default_format = "json"
    client.force_authenticate(user)
    return client


def browser(user: Any) -> Client:
    client = Client(REMOTE_ADDR=fresh_ip())
    client.force_login(user)
    return client


@pytest.fixture
def world() -> dict[str, Any]:
    """Someone else's draft with a player entered only there, and a published tournament with
    a player entered only there."""
    owner = tournament_creator(username="owner")
    draft = tournament_create(actor=owner, name="Secret Draft", slug="secret-draft")
    hidden = EntryFactory(tournament=draft, player__name="Zed Hidden").player
    published = TournamentFactory(name="Open", slug="open-cup")
    director_of(published)
    player = EntryFactory(tournament=published, player__rating=1500).player
    return {"draft": draft, "hidden": hidden, "published": published, "player": player}


def test_the_staff_flag_alone_grants_no_role_so_no_archive_is_reached(
    world: dict[str, Any],
) -> None:
    staffy, helper = UserFactory(is_staff=True), UserFactory(username="helper")
    roles = TournamentRole.objects.count()
    for slug, status in (("secret-draft", 404), ("open-cup", 403)):
        answer = api(staffy).post(
            f"/api/tournaments/{slug}/roles/", {"user": helper.pk, "role": "director"}
        )
        assert answer.status_code == status, (slug, answer.content)
    assert TournamentRole.objects.count() == roles
    # The tester's second step: the account staffy would have made a director.
    for user in (helper, staffy):
        archive = browser(user).get("/director/tournaments/secret-draft/archive.zip")
        assert archive.status_code in (403, 404), archive.status_code
    assert api(helper).get("/api/me/").json()["tournaments"] == []


def test_the_staff_flag_alone_reads_no_draft(world: dict[str, Any]) -> None:
    staffy = api(UserFactory(is_staff=True))
    hidden = world["hidden"]
    assert staffy.get("/api/tournaments/secret-draft/").status_code == 404
    listed = [t["slug"] for t in staffy.get("/api/tournaments/").json()["results"]]
    assert "secret-draft" not in listed
    assert "open-cup" in listed
    assert staffy.get(f"/api/players/{hidden.pk}/").status_code == 404
    assert staffy.get("/api/players/?search=Zed").json()["results"] == []
    page = browser(UserFactory(is_staff=True))
    assert page.get("/live/secret-draft/").status_code == 404
    assert page.get("/director/tournaments/secret-draft/").status_code in (403, 404)


def test_the_staff_flag_alone_changes_no_player_and_creates_nothing(
    world: dict[str, Any],
) -> None:
    staffy = UserFactory(is_staff=True)
    player = world["player"]
    answer = api(staffy).patch(f"/api/players/{player.pk}/", {"rating": 100}, format="json")
    assert answer.status_code == 403, answer.content
    assert answer.json()["error"]["code"] == "not_director_of_every_tournament"
    assert Player.objects.get(pk=player.pk).rating == 1500
    created = api(staffy).post("/api/tournaments/", {"name": "Mine", "slug": "mine"})
    assert created.status_code == 403, created.content
    assert api(staffy).post("/api/players/", {"name": "Someone"}).status_code == 403
    form = browser(staffy).post(
        reverse("brackets:tournament-create"),
        {"name": "Mine", "slug": "mine", "ruleset_preset": "wsod"},
    )
    assert form.status_code == 403
    assert not Tournament.objects.filter(slug="mine").exists()
    assert not Player.objects.filter(name="Someone").exists()


def test_staff_holding_the_admin_s_permissions_may_what_the_docs_say(
    world: dict[str, Any],
) -> None:
    player, hidden = world["player"], world["hidden"]
    # Roles: tournament.add_tournamentrole (and, for a draft, tournament.view_tournament).
    granter = staff_with("tournament.add_tournamentrole", "tournament.view_tournament")
    helper = UserFactory(username="helper")
    answer = api(granter).post(
        "/api/tournaments/secret-draft/roles/", {"user": helper.pk, "role": "director"}
    )
    assert answer.status_code == 201, answer.content
    archive = browser(helper).get("/director/tournaments/secret-draft/archive.zip")
    assert archive.status_code == 200  # a director the staff member appointed
    assert browser(granter).get("/director/tournaments/secret-draft/archive.zip").status_code in (
        403,
        404,
    )  # staff direct nothing themselves
    # Drafts and every player: the view permissions.
    viewer = api(staff_with("tournament.view_tournament", "tournament.view_player"))
    assert viewer.get("/api/tournaments/secret-draft/").status_code == 200
    assert viewer.get(f"/api/players/{hidden.pk}/").status_code == 200
    # Ratings (README "Ratings"): tournament.change_player.
    editor = api(staff_with("tournament.change_player"))
    answer = editor.patch(f"/api/players/{player.pk}/", {"rating": 1550}, format="json")
    assert answer.status_code == 200, answer.content
    assert Player.objects.get(pk=player.pk).rating == 1550
    # Creating: tournament.add_tournament; the creator directs what it created.
    creator = staff_with("tournament.add_tournament")
    created = api(creator).post("/api/tournaments/", {"name": "Staff Cup", "slug": "staff-cup"})
    assert created.status_code == 201, created.content
    staff_cup = Tournament.objects.get(slug="staff-cup")
    assert staff_cup.created_by == creator
    assert TournamentRole.objects.filter(tournament=staff_cup, user=creator).exists()


def test_me_lists_an_action_of_the_staff_column_only_with_its_permission() -> None:
    allowed = staff_with("tournament.add_tournament", "tournament.add_tournamentrole")
    t = tournament_create(actor=allowed, name="Staff Cup", slug="staff-cup")  # its director
    flag_only = director_of(t, is_staff=True)
    [mine] = api(flag_only).get("/api/me/").json()["tournaments"]
    assert "grant_role" not in mine["actions"]
    assert "manage" in mine["actions"]
    [theirs] = api(allowed).get("/api/me/").json()["tournaments"]
    assert "grant_role" in theirs["actions"]


def test_a_superuser_creates_a_tournament_without_a_role_and_runs_it_from_the_pages() -> None:
    root = User.objects.create_superuser("root", "root@example.com", "pw")
    client = browser(root)
    answer = client.post(
        reverse("brackets:tournament-create"),
        {"name": "Root Open", "slug": "root-open", "ruleset_preset": "wsod"},
    )
    assert answer.status_code == 302, answer.content.decode()[:500]
    t = Tournament.objects.get(slug="root-open")
    assert t.created_by == root
    assert not TournamentRole.objects.filter(user=root).exists()  # docs: never a role row
    assert "Root Open" in client.get(reverse("tournament:director-home")).content.decode()
    for name in ("brackets:stages", "tournament:directors", "tournament:lifecycle"):
        assert client.get(reverse(name, args=[t.slug])).status_code == 200, name
    lifecycle = client.post(
        reverse("tournament:lifecycle", args=[t.slug]), {"status": "registration"}
    )
    assert lifecycle.status_code == 302
    t.refresh_from_db()
    assert t.status == Tournament.Status.REGISTRATION
    [me] = api(root).get("/api/me/").json()["tournaments"]
    assert "director" in me["roles"]
    # The form sent twice by the superuser finds what it created (no role row to look up).
    again = client.post(
        reverse("brackets:tournament-create"),
        {"name": "Root Open", "slug": "root-open", "ruleset_preset": "wsod"},
    )
    assert again.status_code == 302
    assert again["Location"] == reverse("brackets:stages", args=["root-open"])
