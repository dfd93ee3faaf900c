"""core.sql.json_dumps and prep_save: JSON parameters encoded by orjson store what
``json.dumps`` stored (the hand store's seven JSON parameters use them)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.utils.translation import gettext_lazy

from core.sql import json_dumps, prep_save
from scoring.models import Hand

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
        assert type(prep_save(counts, value, db)) is type(counts.get_db_prep_save(value, db))


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
