"""The brackets API: thin views over the services, scoped to one tournament."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from brackets.models import Round, Stage
from tests.brackets.conftest import make_tournament
from tests.factories import UserFactory
from tournament.models import Tournament

pytestmark = pytest.mark.django_db


def base(t: Tournament) -> str:
    return f"/api/tournaments/{t.slug}"


@pytest.fixture
def event() -> tuple[Tournament, Any, APIClient]:
    t, d = make_tournament(13, referees=2)
    client = APIClient()
    client.force_authenticate(d)
    return t, d, client


def create_and_seed(t: Tournament, client: APIClient) -> int:
    r = client.post(
        f"{base(t)}/stages/",
        {"name": "Qualifying", "kind": "qualifying", "swiss_rounds": 2, "cut_size": 4},
        format="json",
    )
    assert r.status_code == 201, r.content
    stage_id = int(r.json()["id"])
    r = client.post(f"{base(t)}/stages/{stage_id}/seed/", {"method": "rating"}, format="json")
    assert r.status_code == 200, r.content
    assert r.json()["status"] == "seeded"
    return stage_id


def test_director_flow_preview_publish_and_public_reads(
    event: tuple[Tournament, Any, APIClient],
) -> None:
    t, _, client = event
    stage_id = create_and_seed(t, client)
    preview = client.get(f"{base(t)}/stages/{stage_id}/preview/")
    assert preview.status_code == 200
    body = preview.json()
    assert body["action"] == "publish_round"
    assert [len(tb["seats"]) for tb in body["tables"]] == [4, 3, 3, 3]
    assert body["tables"][0]["seats"][0]["name"].startswith("P")
    assert Round.objects.count() == 0  # a preview stores nothing

    r = client.post(f"{base(t)}/stages/{stage_id}/publish/", {"expected_number": 1}, format="json")
    assert r.status_code == 201, r.content
    round_id = r.json()["id"]

    anon = APIClient()
    detail = anon.get(f"{base(t)}/rounds/{round_id}/")
    assert detail.status_code == 200
    tables = detail.json()["tables"]
    assert [[s["entry_id"] for s in tb["seats"]] for tb in tables] == [
        [s["entry_id"] for s in tb["seats"]] for tb in body["tables"]
    ]
    assert anon.get(f"{base(t)}/stages/").json()[0]["status"] == "running"
    assert len(anon.get(f"{base(t)}/stages/{stage_id}/rounds/").json()) == 1
    standings = anon.get(f"{base(t)}/stages/{stage_id}/standings/").json()
    assert len(standings) == 13
    assert {"rank", "entry_id", "name", "match_wins", "hands_won", "tied_with"} <= set(standings[0])
    entrants = anon.get(f"{base(t)}/stages/{stage_id}/entrants/").json()
    assert entrants["count"] == 13
    assert anon.get(f"{base(t)}/placings/").json() == []


def test_errors_have_the_common_shape(event: tuple[Tournament, Any, APIClient]) -> None:
    t, _, client = event
    stage_id = create_and_seed(t, client)
    client.post(f"{base(t)}/stages/{stage_id}/publish/", {}, format="json")
    again = client.post(f"{base(t)}/stages/{stage_id}/publish/", {}, format="json")
    assert again.status_code == 400
    assert again.json()["error"]["code"] == "round_in_play"
    round_id = Round.objects.get().pk
    close = client.post(f"{base(t)}/rounds/{round_id}/close/")
    assert close.status_code == 409
    assert close.json()["error"]["code"] == "round_incomplete"
    assert close.json()["error"]["tables"] == [1, 2, 3, 4]


def test_writes_and_previews_are_for_directors(event: tuple[Tournament, Any, APIClient]) -> None:
    t, _, client = event
    stage_id = create_and_seed(t, client)
    anon = APIClient()
    assert anon.post(f"{base(t)}/stages/{stage_id}/publish/", {}).status_code in (401, 403)
    assert anon.get(f"{base(t)}/stages/{stage_id}/preview/").status_code in (401, 403)
    player = APIClient()
    player.force_authenticate(UserFactory())
    r = player.post(f"{base(t)}/stages/{stage_id}/publish/", {}, format="json")
    assert r.status_code == 403
    assert player.get(f"{base(t)}/stages/{stage_id}/preview/").status_code == 403
    assert not Round.objects.exists()


def test_ids_of_another_tournament_answer_404(event: tuple[Tournament, Any, APIClient]) -> None:
    t, _, client = event
    stage_id = create_and_seed(t, client)
    other, other_director = make_tournament(4)
    assert client.get(f"{base(other)}/stages/{stage_id}/").status_code == 404
    theirs = APIClient()
    theirs.force_authenticate(other_director)
    r = theirs.post(f"{base(other)}/stages/{stage_id}/publish/", {}, format="json")
    assert r.status_code == 404
    assert Stage.objects.get(pk=stage_id).status == "seeded"


def test_call_time_and_clock_endpoints(event: tuple[Tournament, Any, APIClient]) -> None:
    t, _, client = event
    stage_id = create_and_seed(t, client)
    round_id = client.post(f"{base(t)}/stages/{stage_id}/publish/", {}, format="json").json()["id"]
    clock = client.post(f"{base(t)}/rounds/{round_id}/clock/", {"minutes": 50}, format="json")
    assert clock.status_code == 200
    assert clock.json()["clock_ends_at"] is not None
    r = client.post(
        f"{base(t)}/rounds/{round_id}/call-time/", {"reason": "time is up"}, format="json"
    )
    assert r.status_code == 200, r.content
    assert len(r.json()["ended_match_ids"]) == 4
    adv = client.post(f"{base(t)}/rounds/{round_id}/advance/")
    assert adv.status_code == 200
    assert adv.json()["outcome"] in ("published", "already_done")
    assert Round.objects.filter(stage_id=stage_id, number=2).count() == 1


def test_withdraw_and_late_entry_endpoints(event: tuple[Tournament, Any, APIClient]) -> None:
    t, _, client = event
    late = t.entries.order_by("-id").first()
    assert late is not None
    t.entries.filter(pk=late.pk).update(checked_in=False)
    stage_id = create_and_seed(t, client)
    client.post(f"{base(t)}/stages/{stage_id}/publish/", {}, format="json")
    r = client.post(f"{base(t)}/stages/{stage_id}/entrants/", {"entry_id": late.pk}, format="json")
    assert r.status_code == 201, r.content
    assert r.json()["joined_round"] == 2
    gone = t.entries.order_by("id").first()
    assert gone is not None
    r = client.post(
        f"{base(t)}/stages/{stage_id}/entrants/{gone.pk}/withdraw/",
        {"reason": "family emergency"},
        format="json",
    )
    assert r.status_code == 200, r.content
    assert r.json()["status"] == "withdrawn"


def test_the_api_keeps_advancing_rounds_by_default_and_the_page_previews_them(
    event: tuple[Tournament, Any, APIClient],
) -> None:
    """The director's page defaults to previewing every round (walkthrough: rounds were
    published before anyone saw them), but the released API's default is kept: a script that
    omits ``auto_advance`` would otherwise stall its event (docs/api-changelog.md, 1.9.0)."""
    t, _, client = event
    stage_id = create_and_seed(t, client)
    assert Stage.objects.get(pk=stage_id).auto_advance is True
    off = client.post(
        f"{base(t)}/stages/",
        {"name": "Final", "kind": "knockout", "auto_advance": False},
        format="json",
    )
    assert off.status_code == 201, off.content
    assert Stage.objects.get(pk=off.json()["id"]).auto_advance is False
