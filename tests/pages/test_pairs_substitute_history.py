"""T11 on every page that names partnerships per match: after a substitution the rounds
already played keep the players who sat there (and a closed round's bye the partnership's
players at that round), the current round names the new member, and the live bracket (page
and API), the director's bracket and the director's round pages agree. Runs on PostgreSQL
and in the embedded SQLite run."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.services.pairs import partnership_substitute
from tests.brackets.pairs_helpers import decide_round, make_pairs_tournament, pairs_stages
from tournament.models import Partnership, PartnershipMember, Player

pytestmark = pytest.mark.django_db


def _substituted_after_round_two() -> dict[str, Any]:
    """Three partnerships, "Los Primos" among them: round 1 played and closed, round 2
    published, and the partnership with the round-2 bye (which played round 1) replaces its
    second player with Zoe Park (T11)."""
    t, d, _pairs = make_pairs_tournament(3, status="registration")
    q, _k = pairs_stages(t, d, swiss_rounds=3, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    r2 = services.round_publish(stage=q, actor=d)
    bye = PartnershipMember.objects.get(entry_id=r2.byes[0]).partnership
    assert not set(bye.members.values_list("entry_id", flat=True)) & set(r1.byes)
    Partnership.objects.filter(pk=bye.pk).update(name="Los Primos")
    bye.refresh_from_db()
    stays = bye.members.get(slot=0).entry
    leaving = bye.members.get(slot=1).entry
    Player.objects.filter(pk=stays.player_id).update(name="Bob Stone")
    Player.objects.filter(pk=leaving.player_id).update(name="Carl Mendez")
    partnership_substitute(
        partnership=bye,
        actor=d,
        leaving=leaving,
        player=Player.objects.create(name="Zoe Park"),
        reason="ill",
    )
    return {"t": t, "d": d, "r1": r1, "r2": r2, "q": q}


PLAYED = "Los Primos (Bob Stone &amp; Carl Mendez)"
NOW = "Los Primos (Bob Stone &amp; Zoe Park)"


def test_live_bracket_api_names_who_played_and_the_current_members(client: Client) -> None:
    s = _substituted_after_round_two()
    doc = client.get(f"/api/live/{s['t'].slug}/bracket/").json()
    rounds = {r["id"]: r for r in doc["stages"][0]["rounds"]}
    r1 = rounds[s["r1"].pk]
    played = [
        side["name"]
        for table in r1["tables"]
        for side in table["sides"]
        if "Los Primos" in side["name"]
    ]
    assert played == ["Los Primos (Bob Stone & Carl Mendez)"]
    names = [seat["name"] for table in r1["tables"] for seat in table["seats"]]
    assert "Carl Mendez" in names
    assert "" not in names
    r2 = rounds[s["r2"].pk]
    assert [p["name"] for p in r2["bye_pairs"]] == ["Los Primos (Bob Stone & Zoe Park)"]
    assert sorted(b["name"] for b in r2["byes"]) == ["Bob Stone", "Zoe Park"]


def test_bracket_pages_and_round_pages_agree(client: Client) -> None:
    s = _substituted_after_round_two()
    t, r1, r2 = s["t"], s["r1"], s["r2"]
    client.force_login(s["d"])
    base = f"/director/tournaments/{t.slug}"
    live = client.get(f"/live/{t.slug}/bracket/").content.decode()
    director = client.get(f"{base}/bracket/").content.decode()
    round1 = client.get(f"{base}/rounds/{r1.pk}/").content.decode()
    round2 = client.get(f"{base}/rounds/{r2.pk}/").content.decode()
    for page in (live, director, round1):
        assert PLAYED in page
    for page in (live, director):
        assert "Zoe Park" in page
    assert NOW in round2
    assert "Carl Mendez" not in round2


def test_round_results_sheet_names_the_bye_as_the_bracket_does(client: Client) -> None:
    """The printable results sheet of round 2 names its bye by partnership, with the
    partnership's current players, as the bracket and the round page do (T9, T11)."""
    s = _substituted_after_round_two()
    sheet = client.get(f"/live/{s['t'].slug}/rounds/{s['r2'].pk}/results/")
    assert sheet.status_code == 200
    html = sheet.content.decode()
    assert NOW in html
    assert "Carl Mendez" not in html


def test_a_closed_rounds_bye_keeps_the_players_of_that_round(client: Client) -> None:
    """The round-1 bye partnership replaces a player once round 2 is over: round 1's bye
    still names the players it had then, on the live bracket and the director's pages."""
    s = _substituted_after_round_two()
    t, d, r1, r2 = s["t"], s["d"], s["r1"], s["r2"]
    decide_round(r2, d)
    services.round_close(round=r2, actor=d)
    resting = PartnershipMember.objects.get(entry_id=r1.byes[0]).partnership
    before = [m.entry.player.name for m in resting.members.order_by("slot")]
    partnership_substitute(
        partnership=resting,
        actor=d,
        leaving=resting.members.get(slot=0).entry,
        player=Player.objects.create(name="Yara Quinn"),
        reason="no-show",
    )
    was = " &amp; ".join(before)
    doc = client.get(f"/api/live/{t.slug}/bracket/").json()
    rounds = {r["id"]: r for r in doc["stages"][0]["rounds"]}
    assert [p["players"] for p in rounds[r1.pk]["bye_pairs"]] == [
        [{"entry_id": e, "name": n} for e, n in zip(r1.byes, before, strict=True)]
    ]
    assert [p["name"] for p in rounds[r2.pk]["bye_pairs"]] == ["Los Primos (Bob Stone & Zoe Park)"]
    client.force_login(d)
    base = f"/director/tournaments/{t.slug}"
    for path in (f"/live/{t.slug}/bracket/", f"{base}/bracket/", f"{base}/rounds/{r1.pk}/"):
        page = client.get(path).content.decode()
        assert was in page, path
    assert "Yara Quinn" not in client.get(f"{base}/rounds/{r1.pk}/").content.decode()


def test_director_round_pages_name_who_sat_and_who_plays_now(client: Client) -> None:
    """The director's round pages alone: round 1's table keeps Carl, round 2's bye (in play)
    names Zoe, who now plays for the partnership."""
    s = _substituted_after_round_two()
    client.force_login(s["d"])
    base = f"/director/tournaments/{s['t'].slug}"
    round1 = client.get(f"{base}/rounds/{s['r1'].pk}/").content.decode()
    round2 = client.get(f"{base}/rounds/{s['r2'].pk}/").content.decode()
    assert PLAYED in round1
    assert "Zoe Park" not in round1
    assert NOW in round2
    assert "Carl Mendez" not in round2
