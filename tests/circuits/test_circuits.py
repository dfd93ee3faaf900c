"""Circuits on the database: standings from brackets' final places, the circuit version that
follows its tournaments, the public pages and the standings API (also run on the embedded
default: Makefile EMBEDDED_TESTS)."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.db.models import F
from django.test import Client

from circuits.selectors import circuit_etag, circuit_members, circuit_results
from tests.factories import (
    CircuitFactory,
    PlayerFactory,
    TournamentFactory,
    placed_tournament,
)
from tournament.models import Entry, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def race() -> dict[str, Any]:
    """Two finished events of a circuit: Ana wins one and is 2nd in the other."""
    circuit = CircuitFactory(stage_bonus={"2": 10})
    ana, ben, cruz = (PlayerFactory(name=n) for n in ("Ana", "Ben", "Cruz"))
    t1 = placed_tournament([(ana, 1, 2), (ben, 2, 2), (cruz, 5, 1)], circuit, name="Spring")
    t2 = placed_tournament([(ben, 1, 2), (ana, 2, 2), (cruz, 3, 1)], circuit, name="Summer")
    return {"circuit": circuit, "players": (ana, ben, cruz), "tournaments": (t1, t2)}


def _standings(client: Client, slug: str) -> list[tuple[str, int, int]]:
    body = client.get(f"/api/circuits/{slug}/standings/").json()
    return [(row["name"], row["rank"], row["points"]) for row in body["standings"]]


def test_results_use_the_deepest_stage(race: dict[str, Any]) -> None:
    t1, t2 = race["tournaments"]
    results = circuit_results(tournament_ids=[t1.pk, t2.pk])
    by = {(r.name, r.tournament_id): (r.place, r.stage_reached) for r in results}
    assert by[("Ana", t1.pk)] == (1, 2)
    assert by[("Cruz", t2.pk)] == (3, 1)
    assert len(results) == 6


def test_api_standings_with_bonus_and_tie_break(client: Client, race: dict[str, Any]) -> None:
    # Ana and Ben: 100 + 80 + 2 x 10 each, one 1st and one 2nd each, 2 events each: equal.
    slug = race["circuit"].slug
    assert _standings(client, slug) == [("Ana", 1, 200), ("Ben", 1, 200), ("Cruz", 3, 110)]


def test_a_disqualified_entry_earns_nothing(client: Client, race: dict[str, Any]) -> None:
    ana = race["players"][0]
    Entry.objects.filter(player=ana, tournament=race["tournaments"][1]).update(
        status=Entry.Status.DISQUALIFIED
    )
    assert _standings(client, race["circuit"].slug)[0] == ("Ben", 1, 200)
    assert ("Ana", 2, 110) in _standings(client, race["circuit"].slug)


def test_the_etag_follows_member_tournament_versions(client: Client, race: dict[str, Any]) -> None:
    slug = race["circuit"].slug
    first = client.get(f"/api/circuits/{slug}/standings/")
    etag = first["ETag"]
    assert (
        client.get(f"/api/circuits/{slug}/standings/", HTTP_IF_NONE_MATCH=etag).status_code == 304
    )
    # A new place recorded in a member tournament bumps its version: a new ETag and body.
    t2 = race["tournaments"][1]
    Entry.objects.filter(tournament=t2, player=race["players"][2]).update(
        status=Entry.Status.DISQUALIFIED
    )
    Tournament.objects.filter(pk=t2.pk).update(version=F("version") + 1)
    again = client.get(f"/api/circuits/{slug}/standings/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 200
    assert again["ETag"] != etag
    assert _standings(client, slug)[2] == ("Cruz", 3, 45)


def test_adding_a_tournament_changes_the_version(race: dict[str, Any]) -> None:
    circuit = race["circuit"]
    before = circuit_etag(circuit, circuit_members(circuit_id=circuit.pk))
    placed_tournament([(race["players"][2], 1, 1)], circuit)
    assert circuit_etag(circuit, circuit_members(circuit_id=circuit.pk)) != before


def test_drafts_and_private_circuits_are_not_public(client: Client, race: dict[str, Any]) -> None:
    circuit = race["circuit"]
    draft = placed_tournament([(race["players"][2], 1, 1)], circuit)
    Tournament.objects.filter(pk=draft.pk).update(status=Tournament.Status.DRAFT)
    # The draft's win counts for nothing and the draft is not listed.
    body = client.get(f"/api/circuits/{circuit.slug}/standings/").json()
    assert draft.pk not in [t["tournament_id"] for t in body["tournaments"]]
    assert body["standings"][2]["points"] == 110
    hidden = CircuitFactory(public=False)
    assert client.get(f"/api/circuits/{hidden.slug}/standings/").status_code == 404
    assert client.get(f"/circuits/{hidden.slug}/").status_code == 404
    assert client.get("/api/circuits/nope/standings/").json()["error"]["code"] == "not_found"


def test_pages(client: Client, race: dict[str, Any]) -> None:
    circuit = race["circuit"]
    CircuitFactory(public=False, name="Secret series")
    listing = client.get("/circuits/")
    assert listing.status_code == 200
    assert circuit.name in listing.content.decode()
    assert "Secret series" not in listing.content.decode()
    page = client.get(f"/circuits/{circuit.slug}/")
    html = page.content.decode()
    assert page.status_code == 200
    assert "Spring" in html
    assert "Summer" in html
    assert html.index("Ana") < html.index("Cruz")
    assert (
        client.get(f"/circuits/{circuit.slug}/", HTTP_IF_NONE_MATCH=page["ETag"]).status_code == 304
    )


def test_an_empty_circuit_renders(client: Client) -> None:
    circuit = CircuitFactory()
    TournamentFactory()  # not a member
    assert "No results yet." in client.get(f"/circuits/{circuit.slug}/").content.decode()
    assert client.get(f"/api/circuits/{circuit.slug}/standings/").json()["standings"] == []


@pytest.mark.parametrize(
    ("field", "value"), [("points_table", [50, 80]), ("stage_bonus", {"x": 1})]
)
def test_model_validation_names_the_field(field: str, value: object) -> None:
    circuit = CircuitFactory.build(**{field: value})
    with pytest.raises(ValidationError) as exc:
        circuit.full_clean()
    assert field in exc.value.message_dict


def test_schema_documents_the_endpoint(client: Client) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").content.decode()
    assert "/api/v1/circuits/{slug}/standings/" in schema
    assert "CircuitStandingsOut" in schema
