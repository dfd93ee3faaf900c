"""The live documents' JSON (live.presenters.documents._dumps, orjson): byte for byte what the
standard library's compact encoding gives, for every document of a tournament in play."""

from __future__ import annotations

import json
from typing import Any

import pytest

from live.presenters.documents import _BUILDERS, _dumps
from scoring.models import Match
from tests.live.conftest import finish_round_fast, make_live_tournament
from tournament.models import Entry, Player

pytestmark = pytest.mark.django_db


def _stdlib(data: Any) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


def test_every_document_encodes_as_the_standard_library_does() -> None:
    lt = make_live_tournament(12, cut_size=4, slug="json-open")
    entry = Entry.objects.filter(tournament=lt.tournament).order_by("id").first()
    assert entry is not None
    Player.objects.filter(pk=entry.player_id).update(name='José "Pepe" Núñez 🁫', club="Caguas\n")
    finish_round_fast(lt.round)
    lt.refresh()
    match = Match.objects.filter(tournament=lt.tournament).order_by("id").first()
    assert match is not None
    extras: dict[str, tuple[int, ...]] = {"player": (entry.pk,), "match": (match.pk,)}
    for kind, build in _BUILDERS.items():
        data = build(lt.tournament, extras.get(kind, ()))
        assert data is not None, kind
        assert _dumps(data) == _stdlib(data), kind
    standings = _dumps(_BUILDERS["standings"](lt.tournament, ()))
    assert 'José \\"Pepe\\" Núñez 🁫'.encode() in standings  # UTF-8, not \u escapes


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, -2, 3.5, None, True, False, ""]},
        {"nested": {"deep": [[], {}, ["ñ", "\u2028", "\x00", "\\"]]}},
        {1: "int keys become strings, as json's do", 2: [0.1, 25.125, 12345678901234]},
        None,
        [],
    ],
)
def test_values_of_every_json_type_match(value: Any) -> None:
    assert _dumps(value) == _stdlib(value)


def test_a_float_outside_the_usual_range_is_the_same_number_in_another_form() -> None:
    value = {"tiny": 1e-7, "small": 1e-5, "huge": 1.5e300}
    assert _dumps(value) == b'{"tiny":1e-7,"small":0.00001,"huge":1.5e+300}'
    assert json.loads(_dumps(value)) == value
