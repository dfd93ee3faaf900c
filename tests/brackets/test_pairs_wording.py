"""Pages name a pairs match's result as the partnership's (R42, R43, T4, T9, T10): the match
is won by a partnership, a block by a partnership, a tie is R43's, partners are no same-club
table, and a player is ranked with their partnership."""

from __future__ import annotations

import html
from typing import Any

import pytest
from django.test import Client

from brackets import services
from brackets.models import Round
from brackets.presenters.director import build_preview, round_matches
from live.selectors.matches import match_live
from scoring.models import Match, Seat
from scoring.presenters.match import match_view
from tests.brackets.pairs_helpers import (
    AC_AFTER_A_TIE,
    make_pairs_tournament,
    pairs_stages,
    play_pairs_match,
)
from tournament.models import Player

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _in_memory_channel_layer(settings: Any) -> None:
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}


def names_of(match: Match) -> dict[int, str]:
    return dict(Seat.objects.filter(match=match).values_list("seat", "entry__player__name"))


def test_the_match_page_names_the_winning_partnership_r42_r43() -> None:
    _, _, _, match = play_pairs_match(AC_AFTER_A_TIE)
    assert match.winner_seat == 2  # C won the last hand
    names = names_of(match)
    seats = list(match.seats.select_related("entry__player").order_by("seat"))
    view = match_view(match, seats, list(match.hands.order_by("number")))
    side = f"AC · {names[0]} & {names[2]}"
    assert view.result_title == f"Match over — {side} win"
    assert [s.is_winner for s in view.seats] == [True, False, True, False]
    tie, shared = view.hands[0], view.hands[1]
    assert "(R43, R26, R27)" in tie.explanation
    assert "R20" not in tie.explanation
    assert shared.result.startswith(f"{side} win the block")


def test_the_spectators_see_both_partners_win_r42_t4() -> None:
    t, _, _, match = play_pairs_match(AC_AFTER_A_TIE)
    live = match_live(match_id=match.pk)
    assert live is not None
    assert live["partners"] is True
    assert live["winner_seats"] == [0, 2]
    assert live["winner_seat"] == 2
    names = names_of(match)
    page = html.unescape(Client().get(f"/live/{t.slug}/matches/{match.pk}/").content.decode())
    assert f"AC · {names[0]} & {names[2]} win the match (R42)" in page
    assert f"{names[2]} wins the match" not in page
    assert page.count('class="win-mark"') == 2


def test_a_player_is_ranked_with_the_partnership_t10() -> None:
    t, _, _, match = play_pairs_match(AC_AFTER_A_TIE)
    entry = Seat.objects.get(match=match, seat=2).entry_id
    page = Client().get(f"/live/{t.slug}/players/{entry}/").content.decode()
    assert "Not ranked yet" not in page
    assert "1 of 2" in page


def test_partners_from_one_club_are_no_same_club_table_t9() -> None:
    """make_pairs_tournament gives both partners one club; opponents are of other clubs."""
    t, d, _ = make_pairs_tournament(4, clubs=4)
    q, _ = pairs_stages(t, d, swiss_rounds=2, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    step = services.round_preview(stage=q, actor=d)
    preview = build_preview(q, step.seating)
    assert [w for w in preview.warnings if w.kind == "club"] == []
    # Opponents of one club still warn.
    first = preview.tables[0]
    a, b = first.seats[0].entry_id, first.seats[1].entry_id
    Player.objects.filter(entries__pk__in=[a, b]).update(club="Same")
    preview = build_preview(q, step.seating)
    clubs = [w for w in preview.warnings if w.kind == "club"]
    assert len(clubs) == 1


def test_the_round_page_marks_both_partners_winners_r42() -> None:
    _, _, q, match = play_pairs_match(AC_AFTER_A_TIE)
    (line,) = round_matches(Round.objects.get(stage=q, number=1))
    assert line.partners is True
    seats = dict(Seat.objects.filter(match=match).values_list("seat", "entry_id"))
    assert set(line.winner_entries) == {seats[0], seats[2]}


def test_the_hand_list_names_the_partnership_for_a_block_and_the_player_for_a_domino() -> None:
    """R43: a block is the partnership's (here A and C share the lowest count), a domino the
    partner's who played it; on a partner's own page every hand the partnership won is marked."""
    t, _, _, match = play_pairs_match(AC_AFTER_A_TIE)
    names = names_of(match)
    page = Client().get(f"/live/{t.slug}/matches/{match.pk}/").content.decode()
    assert f"{names[0]} &amp; {names[2]} by block, +2" in page  # hand 2, a replay worth 2
    assert f"{names[2]} by domino, +1" in page
    entry_a = Seat.objects.get(match=match, seat=0).entry_id
    mine = Client().get(f"/live/{t.slug}/players/{entry_a}/").content.decode()
    # Hands 2-6 are AC's (A never dominoed): all five rows are A's wins too; hand 1 is tied.
    assert mine.count('<tr class="won">') == 5


def test_the_matches_export_names_the_winning_partnership_r42() -> None:
    t, _, _, match = play_pairs_match(AC_AFTER_A_TIE)
    assert match.winner_seat == 2  # C won the last hand; the match is AC's
    rows = Client().get(f"/live/{t.slug}/export/matches.json").json()
    assert [r["winner"] for r in rows if r["match_id"] == match.pk] == ["AC"]
    csv = Client().get(f"/live/{t.slug}/export/matches.csv").content.decode()
    assert f"\n{match.pk}," in csv
    assert ",AC," in csv.split(f"\n{match.pk},")[1].splitlines()[0]
