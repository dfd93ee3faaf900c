"""``make demo``'s loader: a live championship recorded through the services, idempotently."""

from __future__ import annotations

import re
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from brackets.models import Round, Stage
from scoring.engine import Ruleset
from scoring.engine.match import match_fold
from scoring.models import Hand, Match
from scoring.selectors import match_hand_records
from tournament.models import Entry, Partnership, Player, RefereeToken, Table, Tournament

pytestmark = pytest.mark.django_db


def _run() -> str:
    out = StringIO()
    call_command("demo_load", stdout=out)
    return out.getvalue()


def test_demo_load_builds_a_live_championship_and_is_idempotent(client: Client) -> None:
    first = _run()
    tournament = Tournament.objects.get(slug="demo-open")
    assert tournament.status == Tournament.Status.RUNNING
    assert Player.objects.count() == 32
    assert Player.objects.exclude(club="").exclude(country="").filter(rating__gt=0).count() == 32
    assert Entry.objects.filter(tournament=tournament, checked_in=True).count() == 32
    assert Table.objects.filter(tournament=tournament).count() == 8

    # The pairs event beside it (issue 17): the same players, eight partnerships (T9).
    pairs = Tournament.objects.get(slug="demo-pairs")
    assert pairs.entry_format == "pairs"
    assert Partnership.objects.filter(tournament=pairs).count() == 8
    assert Player.objects.count() == 32  # no new people: the demo's players pair up
    pq = Stage.objects.get(tournament=pairs, number=1)
    assert pq.pairs
    assert Round.objects.get(stage=pq, number=1).status == Round.Status.CLOSED
    assert Round.objects.get(stage=pq, number=2).status == Round.Status.PUBLISHED
    assert client.get("/live/demo-pairs/standings/").status_code == 200

    # A qualifying stage with a cut line and a knockout stage to a final table (T6).
    qualifying, knockout = Stage.objects.filter(tournament=tournament).order_by("number")
    assert (qualifying.kind, qualifying.cut_size, qualifying.swiss_rounds) == ("qualifying", 8, 3)
    assert (knockout.kind, knockout.final_table_size) == ("knockout", 4)
    r1, r2 = Round.objects.filter(stage=qualifying).order_by("number")
    assert r1.status == Round.Status.CLOSED
    assert r2.status == Round.Status.PUBLISHED
    assert set(Match.objects.filter(round_link__round=r1).values_list("status", flat=True)) == {
        "finished"
    }
    # Round 2: some tables finished, some mid-match, exactly one ended by time (T3).
    r2_matches = list(Match.objects.filter(round_link__round=r2))
    statuses = Counter(m.status for m in r2_matches)
    assert statuses["finished"] >= 4
    assert statuses["in_progress"] >= 2
    assert sum(m.end_reason == "time" for m in r2_matches) == 1
    assert any(m.status == "in_progress" and m.hands_count > 0 for m in r2_matches)
    assert any(m.status == "in_progress" and m.hands_count == 0 for m in r2_matches)
    # Time was called on the round: the printed links say which tables a sudden-death hand
    # ends (T3), not merely "in progress".
    kept = [m for m in r2_matches if m.sudden_death and m.status != "finished"]
    assert len(kept) >= 2
    assert first.count("sudden death: the next hand won ends it (T3)") == len(kept)
    assert first.count("ended by time, T3") == 1

    # Every match's stored scores are the engine's fold of its stored hands.
    for match in Match.objects.filter(tournament=tournament).exclude(end_reason="time"):
        state = match_fold(
            Ruleset.from_json(match.ruleset),
            match.n_players,
            match_hand_records(match_id=match.pk),
            lot_winner=match.lot_winner,
        )
        assert list(match.scores) == list(state.scores)
        assert match.hands_count == state.hands
        assert (match.status == "finished") == state.over

    # Links carry the key in the fragment (never a path that reaches a log): /ref/#<prefix>.<secret>
    links = re.findall(r"/ref/#([A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{32})", first)
    assert len(links) == 8
    for url in ("/director/tournaments/demo-open/", "/admin/", "/api/docs/", "/live/demo-open/"):
        assert url in first

    hands = Hand.objects.count()
    second = _run()
    assert "already exists" in second
    assert Hand.objects.count() == hands
    assert Tournament.objects.count() == 2  # the individual and the pairs event
    # Only hashes are stored, so a second run prints freshly issued links (shown once).
    again = re.findall(r"/ref/#([A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{32})", second)
    assert len(again) == len(links)
    assert not set(again) & set(links)
    assert RefereeToken.objects.count() == 2 * len(links)

    # The printed links work: the director's dashboard and a referee's private link.
    assert client.login(username="director", password="director")
    assert client.get("/director/tournaments/demo-open/").status_code == 200
    client.logout()
    assert client.get("/ref/").status_code == 200  # the page whose script POSTs the fragment
    exchanged = client.post("/ref/", {"key": again[0]})
    assert exchanged.status_code == 200
    response = client.get(exchanged.json()["redirect"], follow=True)
    assert response.status_code == 200
