"""The public live API: conditional GETs on the tournament version, caching headers, shapes that
match the OpenAPI schema, and query counts that do not grow with the field."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.serializers import Serializer

from live.api import serializers as s
from live.presenters.documents import live_cache_warm
from live.scope import public_tournament_get
from tests.factories import TournamentFactory
from tests.live.conftest import (
    LiveTournament,
    finish_round_fast,
    make_live_tournament,
    play_hands,
    start_match,
)
from tournament.models import Tournament

pytestmark = pytest.mark.django_db

ENDPOINTS = ["", "tables/", "standings/", "bracket/"]


def _api(slug: str, tail: str = "") -> str:
    return f"/api/live/{slug}/{tail}"


@pytest.fixture
def field() -> LiveTournament:
    """Sixteen players: round 1 finished, round 2 in play with hands at one table."""
    lt = make_live_tournament(16, cut_size=8, slug="api-open")
    finish_round_fast(lt.round)
    from brackets.services import round_publish

    lt.round = round_publish(stage=lt.stage, actor=lt.director)
    match = lt.matches()[0]
    play_hands(match, lt.director, start_match(match, lt.director, seed=5)[:3])
    lt.refresh()
    return lt


@pytest.mark.parametrize("tail", ENDPOINTS)
def test_etag_is_the_version_and_unchanged_is_304(
    client: Any, field: LiveTournament, tail: str
) -> None:
    url = _api("api-open", tail)
    first = client.get(url)
    assert first.status_code == 200
    assert first["Content-Type"] == "application/json"
    assert first["ETag"] == f'"t{field.tournament.pk}v{field.tournament.version}"'
    assert first["Cache-Control"] == "public, no-cache"

    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == first["ETag"]
    assert again["Cache-Control"] == "public, no-cache"


def test_a_recorded_hand_changes_the_etag_and_the_body(
    client: Any, field: LiveTournament, monkeypatch: Any
) -> None:
    url = _api("api-open", "tables/")
    before = client.get(url)
    match = field.matches()[1]
    play_hands(match, field.director, start_match(match, field.director, seed=9)[:1])
    field.refresh()
    # A client told of the new version (live.js sends it after an event) gets it at once.
    told = client.get(
        url, HTTP_IF_NONE_MATCH=before["ETag"], HTTP_X_LIVE_VERSION=str(field.tournament.version)
    )
    assert told.status_code == 200
    assert told["ETag"] != before["ETag"]
    table = next(t for t in told.json()["tables"] if t["id"] == match.pk)
    assert table["hands_count"] == 1
    assert table["last_hand"]["number"] == 1


def test_the_version_may_be_reused_for_one_second_only(
    client: Any, field: LiveTournament, monkeypatch: Any
) -> None:
    from live import scope

    url = _api("api-open", "tables/")
    now = [1000.0]
    monkeypatch.setattr(scope.time, "monotonic", lambda: now[0])
    first = client.get(url)
    match = field.matches()[1]
    play_hands(match, field.director, start_match(match, field.director, seed=9)[:1])
    # Half a second later, a client that knows nothing newer may get the answer read then:
    now[0] += 0.5
    assert _queries(client, url, HTTP_IF_NONE_MATCH=first["ETag"]) == (304, 0)
    # but not after a second.
    now[0] += 0.6
    assert client.get(url, HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


def test_live_table_shows_scores_love_next_value_and_last_hand(
    client: Any, field: LiveTournament
) -> None:
    match = field.matches()[0]
    match.refresh_from_db()
    body = client.get(_api("api-open", "tables/")).json()
    table = next(t for t in body["tables"] if t["id"] == match.pk)
    assert [seat["score"] for seat in table["seats"]] == match.scores
    assert [seat["love"] for seat in table["seats"]] == [x == 0 for x in match.scores]
    assert [seat["seat"] for seat in table["seats"]] == list(range(match.n_players))
    assert table["next_hand"]["value"] == match.next_hand["value"]  # R26
    assert table["next_hand"]["is_replay"] == match.next_hand["is_replay"]
    assert table["next_hand"]["is_playoff"] == match.next_hand["is_playoff"]
    assert table["last_hand"]["number"] == 3
    assert table["round"]["number"] == 2


@pytest.mark.parametrize("tail", [*ENDPOINTS, "players/1/", "matches/1/"])
def test_drafts_and_unknown_tournaments_are_404(client: Any, tail: str) -> None:
    TournamentFactory(slug="secret", status=Tournament.Status.DRAFT)
    assert client.get(_api("secret", tail)).status_code == 404
    assert client.get(_api("nope", tail)).status_code == 404


def test_players_and_matches_of_another_tournament_are_404(
    client: Any, field: LiveTournament
) -> None:
    other = make_live_tournament(4, slug="other-open")
    foreign_match = other.matches()[0]
    foreign_entry = foreign_match.seats.first().entry_id
    assert client.get(_api("api-open", f"matches/{foreign_match.pk}/")).status_code == 404
    assert client.get(_api("api-open", f"players/{foreign_entry}/")).status_code == 404


SHAPES: list[tuple[str, type[Serializer[Any]]]] = [
    ("", s.SummarySerializer),
    ("tables/", s.LiveTablesSerializer),
    ("standings/", s.StandingsSerializer),
    ("bracket/", s.BracketSerializer),
]


@pytest.mark.parametrize(("tail", "serializer"), SHAPES)
def test_bodies_match_their_documented_shape(
    client: Any, field: LiveTournament, tail: str, serializer: type[Serializer[Any]]
) -> None:
    body = client.get(_api("api-open", tail)).json()
    assert json.loads(json.dumps(serializer(body).data)) == body


def test_player_and_match_bodies_match_their_documented_shape(
    client: Any, field: LiveTournament
) -> None:
    match = field.matches()[0]
    entry = match.seats.get(seat=0).entry_id
    player = client.get(_api("api-open", f"players/{entry}/")).json()
    assert json.loads(json.dumps(s.PlayerResultsSerializer(player).data)) == player
    assert len(player["matches"]) == 2  # round 1 and round 2
    assert [h["number"] for h in player["matches"][1]["hands"]] == [1, 2, 3]
    detail = client.get(_api("api-open", f"matches/{match.pk}/")).json()
    assert json.loads(json.dumps(s.MatchDetailSerializer(detail).data)) == detail


def test_openapi_schema_lists_the_live_endpoints(client: Any) -> None:
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for path in [
        "/api/v1/live/{slug}/",
        "/api/v1/live/{slug}/tables/",
        "/api/v1/live/{slug}/standings/",
        "/api/v1/live/{slug}/bracket/",
        "/api/v1/live/{slug}/players/{entry_id}/",
        "/api/v1/live/{slug}/matches/{match_id}/",
    ]:
        operation = schema["paths"][path]["get"]
        assert {"200", "304", "404"} <= set(operation["responses"])
        assert any(p["name"] == "If-None-Match" for p in operation["parameters"])
    assert "StandingRow" in schema["components"]["schemas"]


# --- computed once per change, constant queries ----------------------------------------------


def _queries(client: Any, url: str, **headers: Any) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url, **headers)
    return response.status_code, len(ctx.captured_queries)


@pytest.mark.parametrize("tail", ENDPOINTS)
def test_cached_and_conditional_requests_cost_one_query(
    client: Any, field: LiveTournament, tail: str
) -> None:
    url = _api("api-open", tail)
    status, _ = _queries(client, url)
    assert status == 200
    # The version lookup, then the cached bytes; within a second the lookup is reused.
    assert _queries(client, url, HTTP_X_LIVE_VERSION="999999") == (200, 1)
    assert _queries(client, url) == (200, 0)
    etag = client.get(url)["ETag"]
    assert _queries(client, url, HTTP_IF_NONE_MATCH=etag, HTTP_X_LIVE_VERSION="999999") == (
        304,
        1,
    )
    assert _queries(client, url, HTTP_IF_NONE_MATCH=etag) == (304, 0)


@pytest.mark.postgres
def test_query_counts_do_not_grow_with_the_field(client: Any) -> None:
    """Uncached builds for 8, 64 and 256 players: the same number of queries."""
    counts: dict[str, list[int]] = {}
    for n in (8, 64, 256):
        lt = make_live_tournament(n, cut_size=max(4, n // 4), slug=f"field-{n}")
        finish_round_fast(lt.round)
        from brackets.services import round_publish

        lt.round = round_publish(stage=lt.stage, actor=lt.director)
        for match in lt.matches()[:2]:
            play_hands(match, lt.director, start_match(match, lt.director, seed=n)[:2])
        entry = lt.matches()[0].seats.get(seat=0).entry_id
        for tail in [*ENDPOINTS, f"players/{entry}/"]:
            # Always a fresh version lookup: whether a lookup of the last second is reused
            # (live.scope, 1 s per process) depends on how fast the machine runs the loop.
            status, queries = _queries(
                client, _api(f"field-{n}", tail), HTTP_X_LIVE_VERSION="999999"
            )
            assert status == 200
            counts.setdefault(tail.split("/")[0] or "summary", []).append(queries)
    for name, per_size in counts.items():
        assert len(set(per_size)) == 1, f"{name}: {per_size} queries for 8/64/256 players"


def test_warming_builds_everything_once(
    field: LiveTournament, django_assert_num_queries: Any
) -> None:
    t = public_tournament_get(slug="api-open")
    live_cache_warm(t)
    with django_assert_num_queries(0):  # every document and region of this version is there
        live_cache_warm(t)


def test_round_publish_warms_the_cache_on_commit(
    client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        make_live_tournament(8, slug="warm-open")  # publishing round 1 warms after commit
    fresh = {"HTTP_X_LIVE_VERSION": "999999"}  # no reuse of a recent lookup: count it
    for tail in ENDPOINTS:
        assert _queries(client, _api("warm-open", tail), **fresh) == (200, 1)
    for page in ["", "tables/", "standings/", "bracket/", "projector/"]:
        assert _queries(client, f"/live/warm-open/{page}", **fresh) == (200, 1), page


def test_gzip_is_a_separate_representation_built_once(client: Any, field: LiveTournament) -> None:
    url = _api("api-open", "standings/")
    plain = client.get(url)
    zipped = client.get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert zipped["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in zipped["Vary"]
    assert zipped["ETag"] == plain["ETag"][:-1] + '-gz"'
    assert gzip.decompress(zipped.content) == plain.content
    assert len(zipped.content) < len(plain.content) / 3
    again = client.get(url, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=zipped["ETag"])
    assert again.status_code == 304
    # The identity ETag does not validate the gzip representation, and the reverse.
    assert client.get(url, HTTP_IF_NONE_MATCH=zipped["ETag"]).status_code == 200
    assert _queries(client, url, HTTP_ACCEPT_ENCODING="gzip", HTTP_X_LIVE_VERSION="999999") == (
        200,
        1,
    )


# --- X-Live-Version is a hint: anything but ASCII digits is ignored ------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "/api/live/hint-open/",
        "/api/live/hint-open/tables/",
        "/live/hint-open/",
        "/live/hint-open/standings/",
    ],
)
def test_a_live_version_hint_in_other_digits_is_ignored(client: Any, url: str) -> None:
    """``"\u00b2"`` passes ``str.isdigit()`` and then made ``int()`` raise: a 500 for anyone.
    Like any other value that is not a version, it is read as no hint at all."""
    lt = make_live_tournament(8, cut_size=4, slug="hint-open")
    plain = client.get(url)
    assert plain.status_code == 200
    for hint in ("\u00b2", "\u00b2\u00b2", "abc"):
        hinted = client.get(url, HTTP_X_LIVE_VERSION=hint)
        assert hinted.status_code == 200, hint
        assert hinted["ETag"] == plain["ETag"]
    assert Tournament.objects.get(pk=lt.tournament.pk).version == lt.tournament.version


# --- a block's counts come with the last hands, not one query per table ---------------------


def _play_to_a_block(lt: LiveTournament, match: Any) -> None:
    """Start ``match`` on the first simulator seed whose match has a block (R20) and record its
    hands up to and including that block, so the table's last hand is a block."""
    from scoring.engine import Ruleset
    from scoring.engine.simulate import simulate_match

    ruleset = Ruleset.from_json(match.tournament.ruleset)
    for seed in range(1, 200):
        records = [r.to_dict() for r in simulate_match(ruleset, match.n_players, seed).records]
        blocks = [i for i, r in enumerate(records) if r.get("end") == "block"]
        if blocks:
            break
    else:  # pragma: no cover - the simulator always blocks within 200 seeds
        raise AssertionError("no block in 200 simulated matches")
    payloads = start_match(match, lt.director, seed=seed)
    play_hands(match, lt.director, payloads[: blocks[0] + 1])


def test_tables_whose_last_hand_is_a_block_cost_no_query_each(client: Any) -> None:
    """The live tables show a block's counts (R20). They were deferred from the last-hands
    query and then loaded one query per table whose last hand was a block: 75 tables at a
    big event, 75 more queries on every rebuild of the tables page."""
    lt = make_live_tournament(16, cut_size=8, slug="block-open")
    matches = lt.matches()
    _play_to_a_block(lt, matches[0])
    url = _api("block-open", "tables/")
    status, one_block = _queries(client, url, HTTP_X_LIVE_VERSION="999999")
    assert status == 200
    for match in matches[1:]:
        _play_to_a_block(lt, match)
    status, four_blocks = _queries(client, url, HTTP_X_LIVE_VERSION="999999")
    assert status == 200
    tables = client.get(url).json()["tables"]
    assert sum(1 for t in tables if (t.get("last_hand") or {}).get("counts")) == 4
    assert four_blocks == one_block
