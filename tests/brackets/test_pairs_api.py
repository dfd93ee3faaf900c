"""The pairs API (T9-T11): partnerships, the entry format, substitutes, pair standings and
places, through DRF with the route table's permissions. Runs embedded (SQLite) too."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from brackets import services
from brackets.models import Stage
from tests.brackets.conftest import make_tournament
from tests.brackets.pairs_helpers import decide_round, make_pairs_tournament, pairs_stages
from tests.factories import PlayerFactory, TournamentFactory, director_of
from tournament.models import ActionLog, Partnership, PartnershipMember, Player

pytestmark = pytest.mark.django_db


def base(slug: str) -> str:
    return f"/api/tournaments/{slug}"


def test_director_makes_a_pairs_event_and_registers_partnerships() -> None:
    t = TournamentFactory(ruleset_preset="wsod_partners", status="registration")
    d = director_of(t)
    client = APIClient()
    anonymous = APIClient()
    assert anonymous.post(
        f"{base(t.slug)}/entry-format/", {"entry_format": "pairs"}, format="json"
    ).status_code in (401, 403)
    client.force_authenticate(d)
    r = client.post(f"{base(t.slug)}/entry-format/", {"entry_format": "pairs"}, format="json")
    assert r.status_code == 200
    assert r.json() == {"entry_format": "pairs"}
    a, b = PlayerFactory(), PlayerFactory()
    r = client.post(
        f"{base(t.slug)}/partnerships/",
        {"players": [a.pk, b.pk], "name": "Los Primos", "check_in": True},
        format="json",
    )
    assert r.status_code == 201
    body = r.json()
    assert body["display_name"] == "Los Primos"
    assert [p["name"] for p in body["players"]] == [a.name, b.name]
    assert body["checked_in"] is True
    bad = client.post(f"{base(t.slug)}/partnerships/", {"players": [a.pk]}, format="json")
    assert bad.status_code == 400
    assert "players" in bad.json()["error"]["fields"]
    again = client.post(
        f"{base(t.slug)}/partnerships/", {"players": [a.pk, PlayerFactory().pk]}, format="json"
    )
    assert again.status_code == 400
    assert again.json()["error"]["rule"] == "T9"
    unknown = client.post(
        f"{base(t.slug)}/partnerships/", {"players": [a.pk, 10**12]}, format="json"
    )
    assert unknown.status_code in (400, 404)
    listed = anonymous.get(f"{base(t.slug)}/partnerships/")
    assert listed.status_code == 200
    assert len(listed.json()) == 1


def test_pairs_format_is_refused_without_a_partnership_ruleset() -> None:
    t = TournamentFactory(status="registration")
    client = APIClient()
    client.force_authenticate(director_of(t))
    r = client.post(f"{base(t.slug)}/entry-format/", {"entry_format": "pairs"}, format="json")
    assert r.status_code == 400
    assert r.json()["error"]["rule"] == "T9"
    assert "entry_format" in r.json()["error"]["fields"]


def test_substitute_standings_and_places() -> None:
    t, d, pairs = make_pairs_tournament(2)
    q, k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    client = APIClient()
    client.force_authenticate(d)
    p1 = pairs[0]
    leaving = PartnershipMember.objects.get(partnership=p1, slot=0).entry_id
    sub = PlayerFactory()
    url = f"{base(t.slug)}/partnerships/{p1.pk}/substitute/"
    body = {"leaving_entry_id": leaving, "player_id": sub.pk, "reason": "flight delayed"}
    in_play = client.post(url, body, format="json")
    assert in_play.status_code == 409
    assert in_play.json()["error"]["rule"] == "T11"
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    done = client.post(url, body, format="json")
    assert done.status_code == 200
    assert sub.name in [p["name"] for p in done.json()["players"]]
    standings = APIClient().get(f"{base(t.slug)}/stages/{q.pk}/pair-standings/")
    assert standings.status_code == 200
    rows = standings.json()
    assert [r["rank"] for r in rows] == [1, 2]
    assert rows[0]["match_wins"] == 1
    assert {len(r["players"]) for r in rows} == {2}
    services.stage_advance(stage=q, actor=d)
    final = services.round_publish(stage=k, actor=d)
    decide_round(final, d)
    services.round_close(round=final, actor=d)
    services.stage_advance(stage=k, actor=d)
    places = APIClient().get(f"{base(t.slug)}/pair-placings/").json()
    assert [p["place"] for p in places] == [1, 2]
    assert Stage.objects.get(pk=k.pk).status == "finished"
    assert Partnership.objects.filter(tournament=t).count() == 2


def test_pair_standings_of_an_individual_stage_is_404() -> None:
    t, d = make_tournament(4)
    q = services.stage_create(
        tournament=t,
        actor=d,
        name="Q",
        kind="qualifying",
        swiss_rounds=1,
        cut_size=4,
        auto_advance=True,
    )
    r = APIClient().get(f"{base(t.slug)}/stages/{q.pk}/pair-standings/")
    assert r.status_code == 404


def test_substitute_by_typed_name_asks_the_same_name_question() -> None:
    """T11 with a typed name: the page's same-name question as a 409 naming `player_name`
    and listing the known players; `player_id` of one of them, or `different_from` with
    their ids, answers it. Nothing is written until then."""
    t, d, (first, second) = make_pairs_tournament(2)
    client = APIClient()
    client.force_authenticate(d)
    known = PlayerFactory(name="José Pérez", club="Bayamón", country="PR")

    def post(pair: Partnership, **body: object) -> Any:
        leaving = PartnershipMember.objects.get(partnership=pair, slot=0).entry_id
        return client.post(
            f"{base(t.slug)}/partnerships/{pair.pk}/substitute/",
            {"leaving_entry_id": leaving, "reason": "flight delayed", **body},
            format="json",
        )

    players = Player.objects.count()
    asked = post(first, player_name="Jose Perez")
    assert asked.status_code == 409
    error = asked.json()["error"]
    assert error["code"] == "same_name_unconfirmed"
    assert list(error["fields"]) == ["player_name"]
    [candidate] = error["candidates"]["player_name"]
    assert (candidate["id"], candidate["name"], candidate["club"]) == (
        known.pk,
        "José Pérez",
        "Bayamón",
    )
    assert Player.objects.count() == players
    assert not ActionLog.objects.filter(tournament=t, verb="partnership.substitute").exists()

    same = post(first, player_id=known.pk)  # "the same person"
    assert same.status_code == 200
    assert "José Pérez" in [p["name"] for p in same.json()["players"]]

    other = post(second, player_name="Jose Perez", different_from=[known.pk])
    assert other.status_code == 200
    new = Player.objects.get(name="Jose Perez")
    assert new.pk != known.pk
    assert "Jose Perez" in [p["name"] for p in other.json()["players"]]


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({}, {"player_id", "player_name"}),
        ({"player_id": "{p}", "player_name": "Ana"}, {"player_id", "player_name"}),
        ({"player_id": "{p}", "different_from": ["{p}"]}, {"different_from"}),
        ({"player_name": "  "}, {"player_name"}),
    ],
)
def test_substitute_names_its_player_one_way(body: dict[str, Any], fields: set[str]) -> None:
    t, d, (pair, _) = make_pairs_tournament(2)
    client = APIClient()
    client.force_authenticate(d)
    p = str(PlayerFactory().pk)

    def fill(value: Any) -> Any:
        return [fill(v) for v in value] if isinstance(value, list) else value.format(p=p)

    leaving = PartnershipMember.objects.get(partnership=pair, slot=0).entry_id
    r = client.post(
        f"{base(t.slug)}/partnerships/{pair.pk}/substitute/",
        {"leaving_entry_id": leaving, "reason": "ill", **{k: fill(v) for k, v in body.items()}},
        format="json",
    )
    assert r.status_code == 400
    assert set(r.json()["error"]["fields"]) == fields
    assert PartnershipMember.objects.filter(partnership=pair).count() == 2
