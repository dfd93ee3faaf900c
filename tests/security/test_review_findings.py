"""The security review of the demo (findings A-D), each a chain of calls that failed before its
fix: a draft's match read by id (A), a player entered only in a draft (B), referee credentials
revived by a reopen (C), user ids mapped to usernames through the referee fields (D). The
generated test (test_permission_table.py) also tries a draft through every route.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from rest_framework.test import APIClient

from scoring.models import Hand
from scoring.services import hand_record
from tests.factories import (
    EntryFactory,
    TournamentFactory,
    UserFactory,
    director_of,
    match_in_progress,
    staff_with,
)
from tests.security.conftest import csrf, fresh_ip, open_link, referee_with_key, token_client
from tournament import services
from tournament.context import SESSION_CREDENTIAL_KEY
from tournament.models import ActionLog, RefereeToken, Tournament

pytestmark = pytest.mark.django_db

HAND = {"poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 2}


def _as(user: Any) -> APIClient:
    api = APIClient(REMOTE_ADDR=fresh_ip())
    api.force_authenticate(user)
    return api


# -- A: a draft's match, read by its id --


def test_a_referee_session_of_another_event_and_anonymous_get_a_drafts_match_as_missing() -> None:
    """A referee signed in through their link in a running event reads its own match, then
    walks the ids into a draft's match: the same 404 as an id that does not exist, on every
    version and on the hands; once the draft is published, the match is public."""
    running, draft = TournamentFactory(), TournamentFactory(name="Hush Open")
    referee, token = referee_with_key(running, director_of(running), "ref-walks")
    own = match_in_progress(running, referee=referee)
    director = director_of(draft)
    secret = match_in_progress(draft)  # started while running ...
    hand_record(match_id=secret.pk, actor=director, expected_number=1, payload=HAND)
    Tournament.objects.filter(pk=draft.pk).update(status=Tournament.Status.DRAFT)  # ... draft
    phone = Client(REMOTE_ADDR=fresh_ip())
    assert open_link(phone, token.key).status_code == 200  # type: ignore[attr-defined]
    assert phone.get(f"/api/matches/{own.pk}/").status_code == 200
    missing = secret.pk + 10_000
    for caller in (phone, Client()):
        for prefix in ("/api", "/api/v1", "/api/v2"):
            for tail in ("", "hands/"):
                seen = caller.get(f"{prefix}/matches/{secret.pk}/{tail}")
                none = caller.get(f"{prefix}/matches/{missing}/{tail}")
                assert seen.status_code == none.status_code == 404, (prefix, tail)
                assert seen.json() == json.loads(
                    none.content.decode().replace(str(missing), str(secret.pk))
                )
                assert "Hush Open" not in seen.content.decode()
                assert str(draft.slug) not in seen.content.decode()
    # Writes by another event's referee: the same 404, not a 403 that confirms the match.
    write = phone.post(
        f"/api/matches/{secret.pk}/hands/",
        json.dumps({"number": 2, **HAND}),
        content_type="application/json",
        **csrf(phone),
    )
    assert write.status_code == 404, write.content
    assert Hand.objects.filter(match=secret).count() == 1
    services.tournament_status_change(tournament=draft, actor=director, status="registration")
    assert phone.get(f"/api/matches/{secret.pk}/").status_code == 200
    assert Client().get(f"/api/v2/matches/{secret.pk}/hands/").json()["count"] == 1


# -- B: a player entered only in a draft --


def test_a_player_entered_only_in_a_draft_is_not_public_until_it_is_published() -> None:
    draft = TournamentFactory(status=Tournament.Status.DRAFT)
    director = director_of(draft)
    other_director = director_of(TournamentFactory())
    mine = _as(director)
    created = mine.post("/api/players/", {"name": "Zed Quietly"}, format="json")
    assert created.status_code == 201, created.content
    zed = created.json()["id"]
    # Entered nowhere yet: the directors (who may enter and edit him) find him, nobody else.
    assert [p["id"] for p in mine.get("/api/players/?search=Zed").json()["results"]] == [zed]
    assert _as(other_director).get(f"/api/players/{zed}/").status_code == 200
    assert APIClient().get(f"/api/players/{zed}/").status_code == 404
    entered = mine.post(f"/api/tournaments/{draft.slug}/entries/", {"player": zed}, format="json")
    assert entered.status_code == 201, entered.content

    # Staff see every player with the admin's permission to view them; the flag alone is
    # nobody (docs/security.md, "Staff and superusers").
    anonymous, other = APIClient(), _as(other_director)
    staff, flag_only = _as(staff_with("tournament.view_player")), _as(UserFactory(is_staff=True))
    elsewhere = TournamentFactory()
    referee = token_client(referee_with_key(elsewhere, director_of(elsewhere), "ref-b")[1])
    for caller in (anonymous, other, referee, flag_only):
        assert caller.get("/api/players/?search=Zed").json()["results"] == []
        assert caller.get(f"/api/v2/players/{zed}/").status_code == 404
        assert caller.get(f"/api/players/{zed}/rating/").status_code == 404
    missing = other.patch("/api/players/999999/", {"rating": 1500}, format="json")
    hidden = other.patch(f"/api/players/{zed}/", {"rating": 1500}, format="json")
    assert hidden.status_code == missing.status_code == 404
    assert Client().get(f"/players/{zed}/").status_code == 404
    assert "Zed Quietly" not in Client().get("/players/?q=Zed").content.decode()
    # Their own director and staff still find and correct him.
    for caller in (mine, staff):
        assert [p["id"] for p in caller.get("/api/players/?search=zed").json()["results"]] == [zed]
        assert caller.get(f"/api/players/{zed}/").status_code == 200
    renamed = mine.patch(f"/api/players/{zed}/", {"name": "Zed Loudly"}, format="json")
    assert renamed.status_code == 200, renamed.content

    services.tournament_status_change(tournament=draft, actor=director, status="registration")
    assert [p["id"] for p in anonymous.get("/api/players/?search=Zed").json()["results"]] == [zed]
    assert anonymous.get(f"/api/players/{zed}/").json()["name"] == "Zed Loudly"
    assert Client().get(f"/players/{zed}/").status_code == 200
    assert "Zed Loudly" in Client().get("/players/?q=Zed").content.decode()
    # Entered in another draft too, he stays public: one published event is enough.
    EntryFactory(tournament=TournamentFactory(status=Tournament.Status.DRAFT), player_id=zed)
    assert anonymous.get(f"/api/players/{zed}/").status_code == 200


# -- C: finishing revokes every referee credential; a reopen revives none --


def test_finish_then_reopen_leaves_the_old_key_and_its_session_refused_and_a_new_key_works() -> (
    None
):
    t = TournamentFactory()
    director = director_of(t)
    referee, token = referee_with_key(t, director, "ref-reopen")
    match = match_in_progress(t, referee=referee)
    phone = Client(REMOTE_ADDR=fresh_ip())
    assert open_link(phone, token.key).status_code == 200  # type: ignore[attr-defined]
    assert phone.get("/api/me/").json()["kind"] == "referee"
    key = token_client(token)
    assert key.get("/api/me/").status_code == 200

    api = _as(director)
    finished = api.post(f"/api/tournaments/{t.slug}/status/", {"status": "finished"}, format="json")
    assert finished.status_code == 200, finished.content
    token.refresh_from_db()
    t.refresh_from_db()
    assert token.revoked_at == t.updated_at  # revoked at the moment it finished
    assert token.revoked_by == director
    log = ActionLog.objects.get(tournament=t, verb="referee_token.revoke")
    assert log.actor == director
    assert log.data == {"user_id": referee.pk, "tournament_finished": True}
    assert key.get("/api/me/").status_code == 401
    # The link after the finish still says the work is done (not "unknown key").
    late = open_link(Client(REMOTE_ADDR=fresh_ip()), token.key)  # type: ignore[attr-defined]
    assert late.json()["error"]["code"] == "tournament_finished"

    page = Client()
    page.force_login(director)
    lifecycle = page.get(f"/director/tournaments/{t.slug}/lifecycle/").content.decode()
    assert 'id="reopen-credentials"' in lifecycle  # the page says a reopen revives no key
    reopened = api.post(f"/api/tournaments/{t.slug}/reopen/", {"reason": "typo"}, format="json")
    assert reopened.status_code == 200, reopened.content
    assert key.get("/api/me/").status_code == 401
    assert phone.get("/api/me/").json()["kind"] == "anonymous"
    assert SESSION_CREDENTIAL_KEY not in phone.session
    write = phone.post(
        f"/api/matches/{match.pk}/hands/",
        json.dumps({"number": 1, **HAND}),
        content_type="application/json",
        **csrf(phone),
    )
    assert write.status_code in (401, 403), write.content
    assert phone.get(f"/matches/{match.pk}/").status_code == 302  # to sign in
    assert (
        key.post(
            f"/api/matches/{match.pk}/hands/", {"number": 1, **HAND}, format="json"
        ).status_code
        == 401
    )
    relinked = open_link(Client(REMOTE_ADDR=fresh_ip()), token.key)  # type: ignore[attr-defined]
    assert relinked.json()["error"]["code"] != "tournament_finished"
    assert SESSION_CREDENTIAL_KEY not in phone.session
    assert Hand.objects.filter(match=match).count() == 0

    # The director issues a new key (the referees page does the same): it works.
    t.refresh_from_db()
    fresh = services.referee_token_issue(tournament=t, actor=director, user=referee)
    new_phone = Client(REMOTE_ADDR=fresh_ip())
    assert open_link(new_phone, fresh.key).status_code == 200  # type: ignore[attr-defined]
    recorded = new_phone.post(
        f"/api/matches/{match.pk}/hands/",
        json.dumps({"number": 1, **HAND}),
        content_type="application/json",
        **csrf(new_phone),
    )
    assert recorded.status_code == 201, recorded.content
    assert token_client(fresh).get("/api/me/").status_code == 200


def test_every_way_to_finish_revokes_the_credentials_and_a_system_finish_keeps_the_short_read() -> (
    None
):
    # A director's PATCH of the status.
    t = TournamentFactory()
    director = director_of(t)
    _, token = referee_with_key(t, director, "ref-patch")
    patched = _as(director).patch(
        f"/api/tournaments/{t.slug}/", {"status": "finished"}, format="json"
    )
    assert patched.status_code == 200, patched.content
    assert RefereeToken.objects.get(pk=token.pk).revoked_by == director

    # The system, when the final table ends: nobody revoked them, and a referee's link
    # session still reads its own match for a short while (the result of its last hand).
    t = TournamentFactory()
    director = director_of(t)
    referee, token = referee_with_key(t, director, "ref-system")
    _, spare = referee_with_key(t, director, "ref-spare")
    services.referee_token_revoke(token=spare, actor=director)  # revoked before: stays dead
    match = match_in_progress(t, referee=referee)
    phone = Client(REMOTE_ADDR=fresh_ip())
    assert open_link(phone, token.key).status_code == 200  # type: ignore[attr-defined]
    assert services.tournament_mark_finished(tournament_id=t.pk)
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert token.revoked_by is None
    assert phone.get(f"/matches/{match.pk}/panel/").status_code == 200  # the short read
    spare_phone = Client(REMOTE_ADDR=fresh_ip())
    session = spare_phone.session
    session[SESSION_CREDENTIAL_KEY] = spare.pk
    session.save()
    assert spare_phone.get("/api/me/").json()["kind"] == "anonymous"
    t.refresh_from_db()
    services.tournament_reopen(tournament=t, actor=director, reason="replay the final")
    assert phone.get(f"/matches/{match.pk}/panel/").status_code == 302
    assert (
        ActionLog.objects.filter(
            tournament=t, verb="referee_token.revoke", actor=None, data__tournament_finished=True
        ).count()
        == 1
    )


# -- D: no username for an arbitrary user id --


def test_the_referee_fields_name_no_account_for_an_arbitrary_user_id() -> None:
    t = TournamentFactory()
    director = director_of(t, username="dir-d")
    root = get_user_model().objects.create_superuser("rootname", "root@example.com", "pw")
    someone = UserFactory(username="alice-secret")
    elsewhere = TournamentFactory()
    referee, _ = referee_with_key(elsewhere, director_of(elsewhere), "ref-else")
    match = match_in_progress(t)
    entries = [s.entry_id for s in match.seats.all()][:2]
    api = _as(director)
    answers = []
    for user_id in (root.pk, someone.pk, director.pk, referee.pk, 999_999):
        for path, body in [
            (f"/api/tournaments/{t.slug}/referee-tokens/", {"user": user_id}),
            (f"/api/matches/{match.pk}/referee/", {"referee": user_id}),
            (
                f"/api/v2/tournaments/{t.slug}/matches/",
                {"entries": entries[:2], "referee": user_id},
            ),
        ]:
            r = api.post(path, body, format="json")
            assert r.status_code == 400, (path, user_id, r.content)
            text = r.content.decode()
            for name in ("rootname", "alice-secret", "dir-d", "ref-else"):
                assert name not in text, (path, user_id, text)
            error = r.json()["error"]
            assert error["message"] == "No referee of this tournament has that id."
            answers.append((path, json.dumps(error, sort_keys=True)))
    # Each route answers every id alike: an unknown id cannot be told from an account.
    assert len(set(answers)) == 3
