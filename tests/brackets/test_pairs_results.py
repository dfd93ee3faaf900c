"""A pairs match's result is the partnership's (R42, R43, R46, T4, T10): its standings line
counts the partnership's own hands won, both partners hold its placing, and every reader
(standings, profile, ratings) sees the same result."""

from __future__ import annotations

import pytest

from brackets.selectors.pairs import pairs_standings_table
from core.exceptions import ApplicationError
from scoring.models import Match, Seat
from scoring.services import match_result_override
from tests.brackets.pairs_helpers import AC_SIX_LOVE, play_pairs_match
from tournament.models import PartnershipMember

pytestmark = pytest.mark.django_db


def pair_hands_won(stage_id: int) -> dict[int, int]:
    table = pairs_standings_table(stage_id=stage_id)
    assert table is not None
    return {line.pair.pair_id: line.row.hands_won for line in table}


def side_pairs(match: Match) -> tuple[int, int]:
    owner = dict(
        PartnershipMember.objects.filter(
            partnership__tournament_id=match.tournament_id
        ).values_list("entry_id", "partnership_id")
    )
    seats = dict(Seat.objects.filter(match=match).values_list("seat", "entry_id"))
    return owner[seats[0]], owner[seats[1]]


def test_pairs_standings_count_the_partnerships_hands_won_once_t10_r46() -> None:
    _, _, q, match = play_pairs_match(AC_SIX_LOVE)
    seats = dict(Seat.objects.filter(match=match).values_list("seat", "hands_won"))
    assert (seats[0], seats[2]) == (5, 2)  # R35 per player: the shared block credits both
    ac, bd = side_pairs(match)
    assert pair_hands_won(q.pk) == {ac: 6, bd: 0}


def test_pairs_standings_do_not_trust_a_retired_snapshot_t10() -> None:
    """The engine snapshot is a cache: a finished match whose snapshot is gone (an override
    clears it) or stale (another version) still gives the partnership's count."""
    _, _, q, match = play_pairs_match(AC_SIX_LOVE)
    ac, bd = side_pairs(match)
    stale = dict(match.engine_state)
    stale["match_version"] = match.version - 1
    stale["state"] = {**stale["state"], "team_stats": [[0] * 10, [9] * 10]}
    Match.objects.filter(pk=match.pk).update(engine_state=stale, version=match.version + 1)
    assert pair_hands_won(q.pk) == {ac: 6, bd: 0}
    Match.objects.filter(pk=match.pk).update(engine_state=None)
    assert pair_hands_won(q.pk) == {ac: 6, bd: 0}


def test_both_partners_hold_the_partnerships_placing_r42_t4() -> None:
    """The seats' stored placings are the root of every match win (profile, ratings, the
    director's round page): A won the last hand, but C's record is the same win."""
    _, _, _, match = play_pairs_match(AC_SIX_LOVE)
    placings = dict(Seat.objects.filter(match=match).values_list("seat", "placing"))
    assert placings == {0: 1, 1: 3, 2: 1, 3: 3}
    assert match.winner_seat == 0


def test_an_override_of_a_pairs_match_places_partnerships_r42_t4() -> None:
    _, director, _, match = play_pairs_match(AC_SIX_LOVE)
    # Seat by seat the director typed C second: the partnership's placing is its better one.
    match_result_override(
        match_id=match.pk, actor=director, scores=[0, 6, 0, 6], placings=[3, 1, 4, 2], reason="x"
    )
    match.refresh_from_db()
    placings = dict(Seat.objects.filter(match=match).values_list("seat", "placing"))
    assert placings == {0: 3, 1: 1, 2: 3, 3: 1}
    assert match.winner_seat == 1
    # Without placings the partnerships' scores decide (partners level is no "top tie").
    match_result_override(match_id=match.pk, actor=director, scores=[6, 0, 6, 0], reason="y")
    match.refresh_from_db()
    placings = dict(Seat.objects.filter(match=match).values_list("seat", "placing"))
    assert placings == {0: 1, 1: 3, 2: 1, 3: 3}
    assert match.winner_seat == 0


def test_an_override_refuses_partners_with_different_scores_r42() -> None:
    """R42: each partnership has one score, so an override that gives A 6 and C 3 (or B and D
    different scores) is refused on the scores, naming the rule, and nothing changes."""
    _, director, _, match = play_pairs_match(AC_SIX_LOVE)
    before = list(match.scores)
    with pytest.raises(ApplicationError) as exc:
        match_result_override(
            match_id=match.pk, actor=director, scores=[6, 0, 3, 2], reason="sheet"
        )
    assert exc.value.rule == "R42"
    assert "scores" in exc.value.fields
    match.refresh_from_db()
    assert list(match.scores) == before
    assert match.end_reason != Match.EndReason.OVERRIDE


def test_the_finals_winner_ranks_first_in_the_knockout_standings_t10() -> None:
    """The final is a match (T10): after it the champion ranks 1 alone, not 1= with the
    runner-up, on the pages' standings table."""
    from brackets import services
    from brackets.models import Round, RoundMatch
    from tests.brackets.pairs_helpers import make_pairs_tournament, pairs_stages

    t, d, _ = make_pairs_tournament(2)
    q, k = pairs_stages(t, d, swiss_rounds=1, cut_size=2, auto_advance=False)
    services.stage_seed(stage=q, actor=d, method="rating")
    r1 = services.round_publish(stage=q, actor=d)
    match_result_override(
        match_id=RoundMatch.objects.get(round=r1).match_id,
        actor=d,
        scores=[6, 0, 6, 0],
        reason="sheet",
    )
    services.round_close(round=r1, actor=d)
    services.stage_advance(stage=q, actor=d)
    final = services.round_publish(stage=k, actor=d)
    assert final.kind == Round.Kind.FINAL
    link = RoundMatch.objects.get(round=final)
    match_result_override(match_id=link.match_id, actor=d, scores=[0, 6, 0, 6], reason="sheet")
    champion_entry = Seat.objects.get(match_id=link.match_id, seat=1).entry_id
    champion = PartnershipMember.objects.get(entry_id=champion_entry).partnership_id
    table = pairs_standings_table(stage_id=k.pk)
    assert table is not None
    first, second = table
    assert first.pair.pair_id == champion
    assert (first.row.match_wins, second.row.match_wins) == (1, 0)
    assert not first.row.tied_with
