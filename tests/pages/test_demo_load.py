"""``make demo``'s loader: a whole tournament recorded through the services, idempotently."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client

from scoring.engine import Ruleset
from scoring.engine.match import match_fold
from scoring.models import Hand, Match
from scoring.selectors import match_hand_records
from tournament.models import Entry, Player, RefereeToken, Table, Tournament

pytestmark = pytest.mark.django_db


def _run() -> str:
    out = StringIO()
    call_command("demo_load", stdout=out)
    return out.getvalue()


def test_demo_load_builds_a_consistent_tournament_and_is_idempotent(client: Client) -> None:
    first = _run()
    tournament = Tournament.objects.get(slug="demo-open")
    assert tournament.status == Tournament.Status.RUNNING
    assert Player.objects.count() == 16
    assert Player.objects.exclude(club="").exclude(country="").filter(rating__gt=0).count() == 16
    assert Entry.objects.filter(tournament=tournament).count() == 16
    assert Table.objects.filter(tournament=tournament).count() == 4
    statuses = sorted(Match.objects.filter(tournament=tournament).values_list("status", flat=True))
    assert statuses == ["finished", "in_progress", "in_progress", "in_progress"]
    assert Match.objects.filter(status="in_progress", hands_count=0).count() == 1  # the fresh one

    # Every match's stored scores are the engine's fold of its stored hands.
    for match in Match.objects.filter(tournament=tournament):
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
    assert len(links) == 4
    for url in ("/director/tournaments/demo-open/", "/admin/", "/api/docs/"):
        assert url in first

    hands = Hand.objects.count()
    second = _run()
    assert "already exists" in second
    assert Hand.objects.count() == hands
    assert Tournament.objects.count() == 1
    # Only hashes are stored, so a second run prints freshly issued links (shown once).
    again = re.findall(r"/ref/#([A-Za-z0-9_-]{12}\.[A-Za-z0-9_-]{32})", second)
    assert len(again) == 4
    assert not set(again) & set(links)
    # 4 issued while building, then 4 fresh ones printed by each run (only hashes are kept).
    assert RefereeToken.objects.count() == 12

    # The printed links work: the director's dashboard and a referee's private link.
    assert client.login(username="director", password="director")
    assert client.get("/director/tournaments/demo-open/").status_code == 200
    client.logout()
    assert client.get("/ref/").status_code == 200  # the page whose script POSTs the fragment
    exchanged = client.post("/ref/", {"key": again[0]})
    assert exchanged.status_code == 200
    response = client.get(exchanged.json()["redirect"], follow=True)
    assert response.status_code == 200
    assert response.redirect_chain[-1][0].startswith("/matches/")
