"""core.sql.json_dumps and prep_save: JSON parameters encoded by orjson store what
``json.dumps`` stored (the hand store's seven JSON parameters use them)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.utils.translation import gettext_lazy

from core.sql import json_dumps, prep_save
from scoring.models import Hand, Match

VALUES: list[Any] = [
    {"a": 1, "b": [1, 2, None], "c": {"d": "é ñ ü"}, "e": True, "f": 1.5},
    [0, -3, 2**62, "6-6", {"seat": 2}],
    {"match_version": 7, "state": {"scores": [0, 6, 1, 2], "stats": [[0] * 10] * 4}},
    [],
    {},
    'tab\tand "quotes" \\ and \u2028 line separator',
]


@pytest.mark.parametrize("value", VALUES)
def test_json_dumps_parses_back_to_the_same_value(value: Any) -> None:
    assert json.loads(json_dumps(value)) == value == json.loads(json.dumps(value))


@pytest.mark.parametrize(
    "value",
    [
        {1: "int key"},  # orjson refuses keys that are not strings; json.dumps writes "1"
        [2**70],  # beyond 64 bits
        {"nested": {None: 1, True: 2}},
    ],
)
def test_what_orjson_refuses_is_written_by_the_standard_library(value: Any) -> None:
    assert json_dumps(value) == json.dumps(value)


def test_what_is_not_json_still_raises() -> None:
    with pytest.raises(TypeError):
        json_dumps({"label": gettext_lazy("Match")})
    with pytest.raises(TypeError):
        json_dumps({"when": object()})


@pytest.mark.django_db
def test_prep_save_on_other_fields_and_values_is_djangos() -> None:
    db = connection
    number = Hand._meta.get_field("number")
    assert prep_save(number, 3, db) == number.get_db_prep_save(3, db)
    counts = Hand._meta.get_field("counts")
    assert prep_save(counts, None, db) is None  # SQL NULL, as Django stores None
    for value in ("a string", 5, True):  # scalars take Django's own path
        ours, djangos = prep_save(counts, value, db), counts.get_db_prep_save(value, db)
        assert type(ours) is type(djangos)
        assert getattr(ours, "dumps", None) is getattr(djangos, "dumps", None)
        assert getattr(ours, "obj", ours) == getattr(djangos, "obj", djangos)


@pytest.mark.django_db
@pytest.mark.postgres
@pytest.mark.parametrize("value", VALUES[:5])
def test_prep_save_stores_the_same_jsonb_as_django(value: Any) -> None:
    from psycopg.types.json import Jsonb

    field = Hand._meta.get_field("play_log")
    ours = prep_save(field, value, connection)
    assert isinstance(ours, Jsonb)
    assert ours.dumps is json_dumps
    django_param = field.get_db_prep_save(value, connection)
    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::jsonb = %s::jsonb, %s::jsonb", [ours, django_param, ours])
        same, stored = cursor.fetchone()
    assert same is True
    assert json.loads(stored) == value  # Django reads jsonb as text (JSONField decodes it)


@pytest.mark.django_db
@pytest.mark.postgres
def test_the_hand_stores_json_parameters_are_encoded_by_json_dumps() -> None:
    """Every dict or list the hand store binds (the hand row, the match's snapshot columns,
    the seats' rows) goes through json_dumps; nothing else is wrapped."""
    from psycopg.types.json import Jsonb

    from scoring.engine import Ruleset
    from scoring.engine.match import match_start
    from scoring.services.common import _SNAPSHOT_FIELDS
    from scoring.services.hand_store import _HAND_INSERT, match_update_sql, seats_write_sql

    hand = Hand(match_id=1, number=1, poser=0, pose_tile="6-6", end="domino", winner=1)
    hand.scores_after, hand.notes, hand.idempotent_response = [0, 1], ["R5"], {"hand": {"id": 1}}
    match = Match(pk=1, scores=[0, 1], next_hand={"poser": 1}, engine_state={"state": {}})
    state = match_start(Ruleset.from_preset("wsod", {}), 4)
    params = [
        *_HAND_INSERT.params(hand),
        *match_update_sql(match, _SNAPSHOT_FIELDS)[1],
        *seats_write_sql(match_id=1, n=4, state=state, placings=None)[1],
    ]
    wrapped = [p for p in params if isinstance(p, Jsonb)]
    assert [p.obj for p in wrapped][:6] == [
        [0, 1],
        ["R5"],
        {"hand": {"id": 1}},
        [0, 1],
        {"poser": 1},
        {"state": {}},
    ]
    assert len(wrapped) == 7  # and the seats' rows
    assert all(p.dumps is json_dumps for p in wrapped)
    assert not any(isinstance(p, (dict, list)) for p in params)  # none left to Django's adapter
