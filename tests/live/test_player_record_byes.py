"""The live player page's record (walkthrough): a bye is no match played (T1), so a player whose
only "win" was a bye and whose only match was a forfeit loss (T7) read "1 match win in 1
played". The record counts the matches won at a table and names the byes apart, with whether
the stage's bye policy counts them as match wins (T1; T9 for a partnership's bye)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import Round
from scoring.models import Seat
from scoring.services import match_forfeit
from tests.brackets.conftest import five_with_a_bye, play_round
from tests.brackets.pairs_helpers import decide_round, seeded_pairs

pytestmark = pytest.mark.django_db


def _forfeit_in(rnd: Round, entry_id: int, director: Any) -> None:
    seat = Seat.objects.get(match__round_link__round=rnd, entry_id=entry_id)
    match_forfeit(match_id=seat.match_id, actor=director, seat=seat.seat, reason="no-show")


def _summary(slug: str, entry_id: int) -> str:
    html = Client().get(f"/live/{slug}/players/{entry_id}/").content.decode()
    return html.split('class="player-summary"', 1)[1].split("</section>", 1)[0]


def test_a_pairs_players_bye_is_not_a_match_played_or_won_t1_t9() -> None:
    t, d, q = seeded_pairs(3)
    r1 = services.round_publish(stage=q, actor=d)
    bye_entry = r1.byes[0]
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    r2 = services.round_publish(stage=q, actor=d)
    _forfeit_in(r2, bye_entry, d)
    summary = _summary(t.slug, bye_entry)
    assert "0 of 1 match won" in summary
    assert "1 bye, counted as a match win (T1)" in summary
    assert "1 of 1 match won" not in summary


def test_an_individual_players_bye_is_not_a_match_played_or_won_t1() -> None:
    t, d, q = five_with_a_bye(auto_advance=False)
    r1 = services.round_publish(stage=q, actor=d)
    (bye_entry,) = r1.byes
    play_round(r1, d)
    services.round_close(round=r1, actor=d)
    r2 = services.round_publish(stage=q, actor=d)
    _forfeit_in(r2, bye_entry, d)
    summary = _summary(t.slug, bye_entry)
    assert "0 of 1 match won" in summary
    assert "1 bye, counted as a match win (T1)" in summary


def test_a_bye_worth_nothing_is_named_without_a_win_t1() -> None:
    t, d, q = seeded_pairs(3, bye_policy="nothing")
    r1 = services.round_publish(stage=q, actor=d)
    bye_entry = r1.byes[0]
    decide_round(r1, d)
    services.round_close(round=r1, actor=d)
    summary = _summary(t.slug, bye_entry)
    assert "0 of 0 matches won" in summary
    assert ">1 bye<" in summary
