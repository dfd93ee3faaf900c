"""A withdrawn player's and a withdrawn partnership's row in the standings (T7, T5, T10, T3).

Individual and pairs standings agree: a player or partnership withdrawn (or disqualified) mid-
stage ranks after every one still in, even with more match wins, and its row's outlook says
"Withdrawn" (or "Disqualified"), not "Eliminated", on the live standings (page, API, projector)
as on the director's pairs standings API. A withdrawn partnership is placed at the stage's end
by the standings (who went further, then T10), never by seed (T3).

Built through the services; every result is a director's (the individual stage: seat A wins;
the pairs stage: AC wins unless told otherwise). Runs on PostgreSQL and in the embedded run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import Round, Stage, StageEntry
from brackets.selectors.pairs import pairs_standings_table
from live import selectors as live
from scoring.models import Seat
from tests.brackets.conftest import make_tournament
from tests.brackets.pairs_helpers import (
    decide_round,
    finished_pairs_event,
    make_pairs_tournament,
    pairs_stages,
)
from tests.brackets.test_brackets_services import finish_round, qualifying
from tournament.models import Partnership, PartnershipMember, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


@dataclass
class Withdrawal:
    tournament: Tournament
    director: Any
    stage: Stage
    gone: int
    """The withdrawn row's id: an entry id (individual) or a partnership id (pairs)."""
    key: str
    """The rows' id field: ``entry_id`` or ``pair_id``."""


def _winner_at_table_1(rnd: Round) -> int:
    return Seat.objects.get(
        match__round_link__round=rnd, match__round_link__table_number=1, seat=0
    ).entry_id


def individual_withdrawal(*, disqualify: bool = False) -> Withdrawal:
    """Eight players, two Swiss rounds cut to 4; round 1 played (seat A wins), then table 1's
    winner is withdrawn (T7): one match win, more than four players still in."""
    t, d = make_tournament(8)
    q = qualifying(t, d, swiss_rounds=2, cut_size=4, auto_advance=False)
    services.stage_seed(stage=q, actor=d)
    r1 = services.round_publish(stage=q, actor=d)
    finish_round(r1, d)
    services.round_close(round=r1, actor=d)
    gone = _winner_at_table_1(r1)
    services.stage_entry_withdraw(
        stage=q, actor=d, entry=t.entries.get(pk=gone), reason="ill", disqualify=disqualify
    )
    return Withdrawal(t, d, q, gone, "entry_id")


def pairs_withdrawal(*, disqualify: bool = False) -> Withdrawal:
    """Four partnerships, two Swiss rounds cut to 2; round 1 played (AC wins both tables), then
    one player of table 1's winners is withdrawn without a substitute: the partnership is out
    (T7, T11), with one match win, more than two partnerships still in."""
    t, d, _ = make_pairs_tournament(4)
    q, _k = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    leaving = _winner_at_table_1(r1)
    gone = PartnershipMember.objects.get(entry_id=leaving).partnership_id
    services.stage_entry_withdraw(
        stage=q, actor=d, entry=t.entries.get(pk=leaving), reason="ill", disqualify=disqualify
    )
    return Withdrawal(t, d, q, gone, "pair_id")


BOTH = [individual_withdrawal, pairs_withdrawal]


def stage_rows(w: Withdrawal) -> list[dict[str, Any]]:
    stages = live.standings(tournament=w.tournament)["stages"]
    return next(st["rows"] for st in stages if st["stage"]["id"] == w.stage.pk)


@pytest.mark.parametrize("withdraw", BOTH, ids=["individual", "pairs"])
def test_a_withdrawn_row_ranks_after_everyone_still_in_despite_its_win_t7(withdraw: Any) -> None:
    w = withdraw()
    rows = stage_rows(w)
    last = rows[-1]
    assert last[w.key] == w.gone
    assert last["match_wins"] == 1  # more than the losers still in ...
    assert last["rank"] == len(rows)  # ... and still after every one of them (T7)
    assert all(r["rank"] < last["rank"] for r in rows[:-1])
    assert last["tie_group"] is None
    assert last["above_cut"] is False
    assert not any(r["cut_after"] for r in rows[-2:])  # no line above the withdrawn row alone
    assert (last["status"], last["outlook"]) == ("withdrawn", "withdrawn")
    # The rows still in: only the results decide, the withdrawn row never shares their rank.
    assert all(r["outlook"] not in ("withdrawn", "disqualified") for r in rows[:-1])


@pytest.mark.parametrize("withdraw", BOTH, ids=["individual", "pairs"])
def test_a_disqualified_row_reads_disqualified_t7(withdraw: Any) -> None:
    w = withdraw(disqualify=True)
    last = stage_rows(w)[-1]
    assert (last[w.key], last["outlook"]) == (w.gone, "disqualified")


@pytest.mark.parametrize("withdraw", BOTH, ids=["individual", "pairs"])
def test_the_api_and_the_pages_say_withdrawn_not_eliminated(withdraw: Any, client: Client) -> None:
    w = withdraw()
    slug = w.tournament.slug
    body = client.get(f"/api/live/{slug}/standings/").json()
    rows = next(st["rows"] for st in body["stages"] if st["stage"]["id"] == w.stage.pk)
    assert (rows[-1][w.key], rows[-1]["outlook"]) == (w.gone, "withdrawn")
    page = client.get(f"/live/{slug}/standings/").content.decode()
    attr = "data-entry" if w.key == "entry_id" else "data-pair"
    row = page.split(f'{attr}="{w.gone}"', 1)[1].split("</tr>", 1)[0]
    assert "Withdrawn" in row
    assert "Eliminated" not in row
    projector = client.get(f"/live/{slug}/projector/").content.decode()
    assert "Withdrawn" in projector
    assert "Eliminated" not in projector


def test_the_directors_pairs_standings_list_the_withdrawn_partnership_last() -> None:
    w = pairs_withdrawal()
    lines = pairs_standings_table(stage_id=w.stage.pk) or []
    assert [line.row.pair_id for line in lines][-1] == w.gone
    assert lines[-1].row.rank == 4
    assert lines[-1].active is False


@pytest.mark.parametrize("disqualify", [False, True], ids=["withdrawn", "disqualified"])
@pytest.mark.parametrize("version", ["", "v1/", "v2/"])
def test_the_directors_pairs_standings_api_reads_the_live_rows_outlook_t7(
    disqualify: bool, version: str, client: Client
) -> None:
    """The director's pair standings (``GET …/stages/{id}/pair-standings/``) had no
    ``outlook``; each row now reads the live pairs standings row's, from the same rule
    (``brackets.selectors.pairs.pair_outcomes``): withdrawn or disqualified for the partnership
    out (T7), null for those still in while rounds remain."""
    w = pairs_withdrawal(disqualify=disqualify)
    url = f"/api/{version}tournaments/{w.tournament.slug}/stages/{w.stage.pk}/pair-standings/"
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    api = {r["partnership_id"]: r["outlook"] for r in response.json()}
    live_rows = {r["pair_id"]: r["outlook"] for r in stage_rows(w)}
    assert api == live_rows
    assert api[w.gone] == ("disqualified" if disqualify else "withdrawn")
    assert [o for p, o in api.items() if p != w.gone] == [None, None, None]


@pytest.mark.django_db(transaction=True)
def test_the_pairs_outlook_of_a_finished_final_reads_champion_in_both() -> None:
    """The finished event's champion partnership and the final's other partnership read
    ``champion`` and ``final_table`` on the live rows and on the director's standings alike
    (T10)."""
    t, _d = finished_pairs_event(8)
    k = Stage.objects.filter(tournament=t).order_by("number").last()
    assert k is not None
    lines = pairs_standings_table(stage_id=k.pk) or []
    rows = live.standings(tournament=Tournament.objects.get(pk=t.pk))["stages"]
    live_rows = next(st["rows"] for st in rows if st["stage"]["id"] == k.pk)
    assert {line.row.pair_id: line.outlook for line in lines} == {
        r["pair_id"]: r["outlook"] for r in live_rows
    }
    # The knockout's four partnerships: the semi-finals' losers are out, the final's two placed.
    outlooks = sorted(line.outlook or "" for line in lines)
    assert outlooks == ["champion", "eliminated", "eliminated", "final_table"]


def test_withdrawn_partnerships_are_placed_by_the_standings_not_by_seed_t3() -> None:
    """Six partnerships, one Swiss round cut to 2 (snake: table 1 seats seeds 1 and 6). Seed 6
    wins table 1 against seed 1; then one player of each withdraws. At the stage's end seed 6
    (a win) is placed 5th and seed 1 (a loss) 6th: who went further, then T10, never seed."""
    t, d, pairs = make_pairs_tournament(6)
    q, _k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    top, bottom = pairs[0], pairs[5]  # seeds 1 and 6 (rating order)
    at_table_1 = set(
        Seat.objects.filter(
            match__round_link__round=r1, match__round_link__table_number=1
        ).values_list("entry_id", flat=True)
    )
    members = {p.pk: list(PartnershipMember.objects.filter(partnership=p)) for p in (top, bottom)}
    assert at_table_1 == {m.entry_id for ms in members.values() for m in ms}
    ac = Seat.objects.get(match__round_link__round=r1, match__round_link__table_number=1, seat=0)
    bottom_is_ac = ac.entry_id in {m.entry_id for m in members[bottom.pk]}
    decide_round(r1, d, winners={1: 0 if bottom_is_ac else 1})
    services.round_close(round=r1, actor=d)
    for p in (top, bottom):
        services.stage_entry_withdraw(stage=q, actor=d, entry=members[p.pk][0].entry, reason="left")
    rows = stage_rows(Withdrawal(t, d, q, bottom.pk, "pair_id"))
    assert [r["pair_id"] for r in rows[-2:]] == [bottom.pk, top.pk]
    services.stage_advance(stage=q, actor=d)
    place = {
        PartnershipMember.objects.get(entry_id=e).partnership_id: p
        for e, p in StageEntry.objects.filter(stage=q, placing__isnull=False).values_list(
            "entry_id", "placing"
        )
    }
    assert (place[bottom.pk], place[top.pk]) == (5, 6)
    # Both partners share the place, the one who stayed too (T10: a place is the partnership's).
    placed = StageEntry.objects.filter(stage=q, entry__partnership_member__partnership=top)
    assert list(placed.values_list("placing", flat=True)) == [6, 6]


def test_a_partnership_still_in_is_never_placed_by_seed_t3() -> None:
    """Two partnerships level on every key share the rank (T3, T10) on the live standings."""
    w = pairs_withdrawal()
    rows = stage_rows(w)
    still_in = rows[:-1]
    losers = [r for r in still_in if r["match_wins"] == 0]
    assert len(losers) == 2
    assert losers[0]["rank"] == losers[1]["rank"]
    assert losers[0]["tie_group"] is not None
    assert Partnership.objects.filter(tournament=w.tournament).count() == 4
