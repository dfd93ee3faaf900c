"""A pairs event's live standings are documented as they are sent: every stage is a
``PairsStageStandings`` (partnership rows, T9/T10), the schema lists both shapes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from live.api import serializers as s
from tests.pages.test_pairs_pages import finished_pairs_event

pytestmark = pytest.mark.django_db


def test_pairs_standings_match_the_pairs_shape(client: Client) -> None:
    t, _d = finished_pairs_event()
    body = client.get(f"/api/live/{t.slug}/standings/").json()
    assert [stage["pairs"] for stage in body["stages"]] == [True, True]
    # Through the documented serializer and back: nothing missing, nothing undocumented.
    assert json.loads(json.dumps(s.StandingsSerializer(body).data)) == body
    for stage in body["stages"]:
        shaped = s.PairsStageStandingsSerializer(stage).data
        assert set(shaped) == set(stage)
        for row in stage["rows"]:
            assert set(s.PairStandingRowSerializer(row).data) == set(row)
    (knockout,) = [st for st in body["stages"] if st["stage"]["kind"] == "knockout"]
    final = knockout["final_table"]
    assert [line["place"] for line in final] == [1, 2]
    assert all(len(line["players"]) == 2 for line in final)


def test_the_schema_describes_both_stage_shapes(client: Client) -> None:
    schema: dict[str, Any] = client.get("/api/schema/?format=json").json()
    components = schema["components"]["schemas"]
    items = components["Standings"]["properties"]["stages"]["items"]
    assert items == {"$ref": "#/components/schemas/AnyStageStandings"}
    assert components["AnyStageStandings"]["oneOf"] == [
        {"$ref": "#/components/schemas/StageStandings"},
        {"$ref": "#/components/schemas/PairsStageStandings"},
    ]
    row = components["PairStandingRow"]["properties"]
    assert {"pair_id", "players", "third", "match_wins"} <= set(row)


@pytest.mark.parametrize(
    ("preset", "third_key"),
    [("partnership_block", "points_difference"), ("wsod_partners", "six_loves_given")],
)
def test_the_third_key_follows_the_ruleset_before_the_first_result(
    client: Client, preset: str, third_key: str
) -> None:
    """T10's third key under pip scoring is points for minus against (R45), from the
    tournament's ruleset: it used to be guessed from the scores (any above 6 meant pips), so a
    pip-scoring event's standings said "six-loves given" until a result was in."""
    from brackets import services
    from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages

    t, d, _ = make_pairs_tournament(4, preset=preset)
    q, _k = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    services.round_publish(stage=q, actor=d)
    body = client.get(f"/api/live/{t.slug}/standings/").json()
    (stage,) = [st for st in body["stages"] if st["stage"]["id"] == q.pk]
    assert stage["third_key"] == third_key
    assert all(row["third"] == 0 for row in stage["rows"])
