"""Move-by-move entry at feature tables and the spectators' replay (issue 15, item 4).

The dry run (``POST /api/matches/<id>/hands/check/``) answers the position the engine reaches
or a 400 naming the move and the rule (RULES.md §9, R5, R13, R14, R2), and writes nothing; the
hand is recorded through the one recording endpoint; the replay page is public once the
tournament is. Runs on PostgreSQL and on the embedded SQLite default (tests/pages).
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from scoring.engine import Ruleset
from scoring.engine.deal import forced_opener
from scoring.engine.match import match_start
from scoring.engine.playlog import PlayLog
from scoring.engine.record import HandRecord
from scoring.engine.simulate import BOTS, simulate_hand
from scoring.models import Hand, Match
from tests.factories import TableFactory, UserFactory, director_of, scheduled_match
from tests.pages.conftest import Setup, make_tournament
from tournament.models import ActionLog, Tournament

pytestmark = pytest.mark.django_db


def _hand(match: Match, seed: int = 5) -> tuple[PlayLog, HandRecord]:
    """A legal first hand for ``match`` played by the engine's bots (R2-R20)."""
    ruleset = Ruleset.from_json(match.ruleset)
    state = match_start(ruleset, match.n_players, lot_winner=match.lot_winner)
    return simulate_hand(
        ruleset, match.n_players, state.next, random.Random(seed), (BOTS["heuristic"],) * 4
    )


def _api(user: Any) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def _check(client: APIClient, match: Match, log: dict[str, Any]) -> Any:
    return client.post(
        f"/api/matches/{match.pk}/hands/check/",
        data=json.dumps({"play_log": log}),
        content_type="application/json",
    )


def _feature(match: Match, on: bool = True) -> None:
    match.table = TableFactory(tournament=match.tournament, number=7, feature=on)
    match.save(update_fields=["table"])


def _fingerprint(match: Match) -> tuple[Any, ...]:
    match.refresh_from_db()
    return (Hand.objects.filter(match=match).count(), match.version, match.hands_count)


# -- the dry run --------------------------------------------------------------------------------


def test_check_walks_the_hand_move_by_move_and_writes_nothing(setup: Setup) -> None:
    match = setup.match
    log, record = _hand(match)
    data = log.to_dict()
    api = _api(setup.referee)
    before = _fingerprint(match)

    # The deal alone: the holder of 6-6 must pose it (R5, R6).
    r = _check(api, match, {**data, "moves": []})
    assert r.status_code == 200, r.content
    body = r.json()
    holder, tile = forced_opener(log.deal)
    assert body["number"] == 1
    assert body["position"]["turn"] == holder
    assert body["position"]["forced_tile"] == str(tile) == "6-6"
    assert body["position"]["legal"] == [{"seat": holder, "kind": "pose", "tile": "6-6"}]
    assert body["position"]["ends"] is None
    assert body["outcome"] is None

    # After three moves: the line holds what was placed and the seat to move is the next one.
    three = data["moves"][:3]
    r = _check(api, match, {**data, "moves": three})
    assert r.status_code == 200, r.content
    position = r.json()["position"]
    placed = [m for m in three if m["kind"] in ("pose", "play")]
    assert len(position["line"]) == len(placed)
    assert position["turn"] == (three[-1]["seat"] + 1) % 4
    assert sum(len(h) for h in position["hands"]) == 28 - len(placed)

    # The whole log: the hand is over and the engine derived the outcome (§9).
    r = _check(api, match, data)
    assert r.status_code == 200, r.content
    assert r.json()["position"]["over"] is True
    assert r.json()["outcome"] == record.to_dict()
    assert _fingerprint(match) == before


def test_check_refuses_a_wrong_forced_pose_naming_the_move_and_the_rule(setup: Setup) -> None:
    match = setup.match
    log, _ = _hand(match)
    holder, _tile = forced_opener(log.deal)
    other_tile = next(t for t in log.deal.hand_tiles(holder) if str(t) != "6-6")
    before = _fingerprint(match)
    api = _api(setup.referee)
    # Another seat poses: the holder of 6-6 must (R5).
    r = _check(
        api,
        match,
        {**log.to_dict(), "moves": [{"seat": (holder + 1) % 4, "kind": "pose", "tile": "6-6"}]},
    )
    assert r.status_code == 400
    error = r.json()["error"]
    assert (error["code"], error["rule"]) == ("wrong_poser", "R5")
    assert list(error["fields"]) == ["play_log.moves[0]"]
    # The holder poses another tile: no "sporting" in tournament play (R11, R5).
    r = _check(
        api,
        match,
        {**log.to_dict(), "moves": [{"seat": holder, "kind": "pose", "tile": str(other_tile)}]},
    )
    assert r.status_code == 400
    error = r.json()["error"]
    assert (error["code"], error["rule"]) == ("sporting_not_allowed", "R11")
    assert "must pose 6-6 (R5)" in error["message"]
    assert list(error["fields"]) == ["play_log.moves[0]"]
    assert _fingerprint(match) == before


def test_check_and_record_refuse_a_tile_in_other_digits_naming_the_move(setup: Setup) -> None:
    """``"\u00b2\u00b2"`` passed ``str.isdigit()`` and made ``int()`` raise: a 500 from the dry
    run and from the recording endpoint alike. Now R1 names the move, and nothing is written."""
    match = setup.match
    log, _ = _hand(match)
    data = log.to_dict()
    data["moves"][1] = {**data["moves"][1], "tile": "\u00b2\u00b2"}
    before = _fingerprint(match)
    api = _api(setup.referee)
    for url in (f"/api/matches/{match.pk}/hands/check/", f"/api/matches/{match.pk}/hands/"):
        body = {"play_log": data} if url.endswith("check/") else {"number": 1, "play_log": data}
        r = api.post(url, data=json.dumps(body), content_type="application/json")
        assert r.status_code == 400, (url, r.content)
        error = r.json()["error"]
        assert (error["code"], error["rule"]) == ("invalid_tile", "R1")
        assert list(error["fields"]) == ["play_log.moves[1].tile"], error
    assert _fingerprint(match) == before


def test_check_refuses_a_tile_that_fits_no_end_naming_r13(setup: Setup) -> None:
    match = setup.match
    log, _ = _hand(match)
    data = log.to_dict()
    pose = data["moves"][0]
    seat = (pose["seat"] + 1) % 4
    hand = data["deal"]["hands"][seat]
    misfit = next(t for t in hand if "6" not in t)  # the board shows 6 | 6 after the pose
    r = _check(
        _api(setup.referee),
        match,
        {**data, "moves": [pose, {"seat": seat, "kind": "play", "tile": misfit}]},
    )
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["rule"] == "R13"
    assert list(error["fields"]) == ["play_log.moves[1]"]


def test_check_refuses_a_pass_while_holding_a_play_naming_r14(setup: Setup) -> None:
    match = setup.match
    # A deal where the seat after the poser holds a 6, so it can play on the 6-6 (R13).
    for seed in range(1, 60):
        log, _ = _hand(match, seed)
        data = log.to_dict()
        pose = data["moves"][0]
        seat = (pose["seat"] + 1) % 4
        if any("6" in t for t in data["deal"]["hands"][seat]):
            break
    r = _check(
        _api(setup.referee), match, {**data, "moves": [pose, {"seat": seat, "kind": "pass"}]}
    )
    assert r.status_code == 400
    assert r.json()["error"]["rule"] == "R14"
    assert list(r.json()["error"]["fields"]) == ["play_log.moves[1]"]


def test_check_refuses_a_deal_with_a_tile_twice_naming_the_seat(setup: Setup) -> None:
    match = setup.match
    log, _ = _hand(match)
    data: Any = log.to_dict()
    hands = [list(h) for h in data["deal"]["hands"]]
    hands[2][0] = hands[1][0]
    r = _check(_api(setup.referee), match, {**data, "deal": {**data["deal"], "hands": hands}})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["rule"] == "R1"
    assert list(error["fields"]) == ["play_log.deal.hands[2]"]


def test_a_check_costs_a_fixed_number_of_queries(
    setup: Setup, django_assert_num_queries: Any
) -> None:
    """Every tap of the page is a check: the match, the caller's roles and the stored hands
    (to know the next hand, R5-R10), whatever the number of moves."""
    match = setup.match
    log, _ = _hand(match)
    api = _api(setup.referee)
    for moves in (0, 5, len(log.moves)):
        body = {**log.to_dict(), "moves": log.to_dict()["moves"][:moves]}  # type: ignore[index]
        with django_assert_num_queries(3):
            assert _check(api, match, body).status_code == 200


def test_check_refuses_a_finished_match_naming_r33(setup: Setup) -> None:
    match = setup.match
    log, _ = _hand(match)
    Match.objects.filter(pk=match.pk).update(status=Match.Status.FINISHED)
    r = _check(_api(setup.referee), match, log.to_dict())
    assert r.status_code == 400
    assert (r.json()["error"]["code"], r.json()["error"]["rule"]) == ("match_over", "R33")


def test_only_the_match_referee_or_a_director_may_check(setup: Setup) -> None:
    match = setup.match
    log, _ = _hand(match)
    data = log.to_dict()
    assert _check(_api(setup.other_referee), match, data).status_code == 403
    assert _check(_api(UserFactory()), match, data).status_code == 403
    anonymous = APIClient().post(
        f"/api/matches/{match.pk}/hands/check/",
        data=json.dumps({"play_log": data}),
        content_type="application/json",
    )
    assert anonymous.status_code == 401
    assert _check(_api(setup.director), match, data).status_code == 200


def test_the_first_hand_under_lot_then_rotate_is_posed_by_the_lot_winner(
    db: None,
) -> None:
    """A scheduled ``block`` match (lot_then_rotate, R6): whoever poses hand 1 won the lot;
    the check and the record agree, and the match starts with that lot winner."""
    tournament = make_tournament(ruleset_preset="block")
    director = director_of(tournament)
    match = scheduled_match(tournament)
    ruleset = Ruleset.from_json(tournament.ruleset)
    state = match_start(ruleset, 4, lot_winner=2)
    log, record = simulate_hand(ruleset, 4, state.next, random.Random(3), (BOTS["heuristic"],) * 4)
    assert record.poser == 2
    api = _api(director)
    r = _check(api, match, log.to_dict())
    assert r.status_code == 200, r.content
    assert r.json()["outcome"] == record.to_dict()
    page = Client()
    page.force_login(director)
    html = page.get(f"/matches/{match.pk}/moves/").content.decode()
    assert "&quot;lot_choice&quot;: true" in html
    r = api.post(
        f"/api/matches/{match.pk}/hands/",
        data=json.dumps({"number": 1, "poser": 2, "play_log": log.to_dict()}),
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    match.refresh_from_db()
    assert (match.status, match.lot_winner) == (Match.Status.IN_PROGRESS, 2)


# -- recording through the one path, then the replay ------------------------------------------


def test_a_log_entered_move_by_move_is_recorded_once_and_replayed_publicly(
    setup: Setup,
) -> None:
    match = setup.match
    _feature(match)
    log, record = _hand(match)
    api = _api(setup.referee)
    body = {"number": 1, "poser": log.moves[0].seat, "play_log": log.to_dict()}
    for _ in range(2):  # a retry with the same key records nothing more
        r = api.post(
            f"/api/matches/{match.pk}/hands/",
            data=json.dumps(body),
            content_type="application/json",
            headers={"Idempotency-Key": "moves-1"},
        )
        assert r.status_code == 201, r.content
    hand = Hand.objects.get(match=match)
    assert hand.play_log == log.to_dict()
    assert hand.poser == record.poser

    spectator = Client()
    slug = setup.tournament.slug
    page = spectator.get(f"/live/{slug}/matches/{match.pk}/hands/1/replay/")
    assert page.status_code == 200
    html = page.content.decode()
    frames = json.loads(html.split('data-frames="', 1)[1].split('"', 1)[0].replace("&quot;", '"'))
    assert len(frames) == len(log.moves) + 1  # the deal, then one frame per move
    assert frames[0]["move"] is None
    assert frames[-1]["over"] is True
    assert frames[-1]["counts"] == list(record.counts or frames[-1]["counts"])
    assert 'aria-live="polite"' in html
    assert "poses 6-6" in html
    # The latest replay, and the link from the live match page.
    latest = spectator.get(f"/live/{slug}/matches/{match.pk}/hands/0/replay/")
    assert latest.status_code == 302
    assert latest["Location"].endswith("/hands/1/replay/")
    region = spectator.get(f"/live/{slug}/matches/{match.pk}/").content.decode()
    assert f"/live/{slug}/matches/{match.pk}/hands/1/replay/" in region


def test_no_replay_for_a_hand_without_a_log_or_a_draft(setup: Setup) -> None:
    match = setup.match
    api = _api(setup.referee)
    r = api.post(
        f"/api/matches/{match.pk}/hands/",
        data=json.dumps(
            {"number": 1, "poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1}
        ),
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    slug = setup.tournament.slug
    assert Client().get(f"/live/{slug}/matches/{match.pk}/hands/1/replay/").status_code == 404
    assert Client().get(f"/live/{slug}/matches/{match.pk}/hands/0/replay/").status_code == 404
    Tournament.objects.filter(pk=setup.tournament.pk).update(status=Tournament.Status.DRAFT)
    assert Client().get(f"/live/{slug}/matches/{match.pk}/hands/1/replay/").status_code == 404


def test_a_replay_under_another_tournament_slug_is_404(setup: Setup) -> None:
    match = setup.match
    log, _ = _hand(match)
    _api(setup.referee).post(
        f"/api/matches/{match.pk}/hands/",
        data=json.dumps({"number": 1, "play_log": log.to_dict()}),
        content_type="application/json",
    )
    other = make_tournament(status=Tournament.Status.RUNNING)
    assert Client().get(f"/live/{other.slug}/matches/{match.pk}/hands/1/replay/").status_code == 404


# -- the page and the director's switch ----------------------------------------------------------


def _referee_client(setup: Setup) -> Client:
    client = Client()
    client.get("/ref/")
    client.post(
        "/ref/",
        {"key": setup.token.key},  # type: ignore[attr-defined]
        HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value,
    )
    return client


def test_entry_is_offered_at_feature_tables_and_the_director_switches_it(setup: Setup) -> None:
    match = setup.match
    _feature(match, on=False)
    referee = _referee_client(setup)
    url = f"/matches/{match.pk}/moves/"

    page = referee.get(url)
    assert page.status_code == 200
    assert b'id="move-app"' not in page.content
    assert b"only open at feature tables" in page.content
    assert b"/moves/" not in referee.get(f"/matches/{match.pk}/").content  # no link yet
    # The referee cannot switch it on.
    r = _api(setup.referee).post(
        f"/api/matches/{match.pk}/feature-table/", {"feature": True}, format="json"
    )
    assert r.status_code == 403

    director = _api(setup.director)
    r = director.post(f"/api/matches/{match.pk}/feature-table/", {"feature": True}, format="json")
    assert r.status_code == 200, r.content
    assert r.json() == {"table": match.table_id, "number": 7, "feature": True}
    assert ActionLog.objects.filter(verb="table_feature_on", target_id=str(match.table_id)).count()

    page = referee.get(url)
    assert b'id="move-app"' in page.content
    assert b'id="feature-toggle"' not in page.content  # directors only
    assert f"/matches/{match.pk}/moves/".encode() in referee.get(f"/matches/{match.pk}/").content


def test_the_entry_page_is_for_the_match_referee_and_directors_only(setup: Setup) -> None:
    url = f"/matches/{setup.match.pk}/moves/"
    assert Client().get(url).status_code == 302  # to the sign-in page
    other = Client()
    other.force_login(UserFactory())
    assert other.get(url).status_code == 403
    director = Client()
    director.force_login(setup.director)
    page = director.get(url)
    assert page.status_code == 200
    assert b'id="move-app"' in page.content  # directors may always enter move by move


def test_the_entry_page_speaks_spanish(setup: Setup) -> None:
    director = Client()
    director.force_login(setup.director)
    page = director.get(f"/matches/{setup.match.pk}/moves/", HTTP_ACCEPT_LANGUAGE="es")
    assert page.status_code == 200
    assert b"Empezar a jugar" in page.content
    assert b"jugada a jugada" in page.content


# -- the referee page links to the replays (issue 15) ---------------------------------------------


def _referee_page(setup: Setup, user: Any = None) -> str:
    client = Client()
    client.force_login(user or setup.referee)
    page = client.get(f"/matches/{setup.match.pk}/")
    assert page.status_code == 200
    return page.content.decode()


def test_the_referee_page_links_a_logged_hand_to_its_public_replay(setup: Setup) -> None:
    match = setup.match
    _feature(match)
    log, _ = _hand(match)
    api = _api(setup.referee)
    r = api.post(
        f"/api/matches/{match.pk}/hands/",
        data=json.dumps({"number": 1, "poser": log.moves[0].seat, "play_log": log.to_dict()}),
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    replay = f"/live/{setup.tournament.slug}/matches/{match.pk}/hands/1/replay/"
    html = _referee_page(setup)
    assert f'href="{replay}"' in html
    assert "Replay of hand 1" in html
    from live.scope import RECENT

    RECENT.clear()  # slugs repeat between tests: no lookup cached by an earlier one
    assert Client().get(replay).status_code == 200  # the link works for anyone
    # Not while the tournament is a draft (no public pages; only its directors see it).
    Tournament.objects.filter(pk=setup.tournament.pk).update(status=Tournament.Status.DRAFT)
    assert replay not in _referee_page(setup, setup.director)
    Tournament.objects.filter(pk=setup.tournament.pk).update(status=Tournament.Status.RUNNING)
    # An undone hand has no replay: the row stays, the link goes.
    undo = api.post(
        f"/api/matches/{match.pk}/hands/void-last/", {"number": 1, "reason": "typo"}, format="json"
    )
    assert undo.status_code == 200, undo.content
    html = _referee_page(setup)
    assert replay not in html
    assert "typo" in html


def test_a_hand_without_a_log_has_no_replay_link(setup: Setup) -> None:
    match = setup.match
    r = _api(setup.referee).post(
        f"/api/matches/{match.pk}/hands/",
        data=json.dumps(
            {"number": 1, "poser": 0, "pose_tile": "6-6", "end": "domino", "winner": 1}
        ),
        content_type="application/json",
    )
    assert r.status_code == 201, r.content
    html = _referee_page(setup)
    assert "/replay/" not in html
    assert 'class="replay-link"' not in html
