"""Clinched / eliminated against a cut (T5, T6): pure, no database."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from live.outlook import Outlook, WinBounds, cut_outlook


def test_no_games_left_and_no_tie_on_the_line_decides_everyone() -> None:
    field = [WinBounds(i, w, w) for i, w in enumerate([3, 3, 2, 1, 1, 0])]
    out = cut_outlook(field, 3)
    assert [out.get(i) for i in range(6)] == [
        Outlook.CLINCHED,
        Outlook.CLINCHED,
        Outlook.CLINCHED,
        Outlook.ELIMINATED,
        Outlook.ELIMINATED,
        Outlook.ELIMINATED,
    ]


def test_a_tie_on_the_line_is_not_certain_either_way() -> None:
    # Level on match wins at the line: hands won, six-loves, head-to-head or a play-off decide
    # (T5, T6), none of which is certain from match wins.
    field = [WinBounds(i, w, w) for i, w in enumerate([3, 2, 2, 0])]
    out = cut_outlook(field, 2)
    assert out[0] is Outlook.CLINCHED
    assert 1 not in out
    assert 2 not in out
    assert out[3] is Outlook.ELIMINATED


def test_mid_stage_bounds() -> None:
    # Cut 2 of 5, one round left for everyone.
    field = [
        WinBounds(1, 2, 3),
        WinBounds(2, 2, 3),
        WinBounds(3, 1, 2),
        WinBounds(4, 0, 1),
        WinBounds(5, 0, 1),
    ]
    out = cut_outlook(field, 2)
    assert out == {4: Outlook.ELIMINATED, 5: Outlook.ELIMINATED}  # two already have 2 > 1
    # Players 1 and 2 are not clinched: player 3 can still reach 2 and tie them.


def test_withdrawn_players_are_eliminated_and_do_not_threaten() -> None:
    field = [WinBounds(1, 1, 1), WinBounds(2, 0, 5, active=False), WinBounds(3, 0, 0)]
    out = cut_outlook(field, 1)
    assert out == {1: Outlook.CLINCHED, 2: Outlook.ELIMINATED, 3: Outlook.ELIMINATED}


def test_a_cut_as_large_as_the_field_clinches_everyone() -> None:
    field = [WinBounds(i, 0, 4) for i in range(4)]
    assert set(cut_outlook(field, 4).values()) == {Outlook.CLINCHED}


fields = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 2)),  # (wins now, games left)
    min_size=1,
    max_size=5,
)


@settings(max_examples=300, deadline=None)
@given(fields, st.integers(1, 5))
def test_outlook_is_never_wrong(raw: list[tuple[int, int]], cut: int) -> None:
    """Against every way the remaining games can go, a clinched player is always in the top
    ``cut`` (ties counted against them) and an eliminated one never is."""
    field = [WinBounds(i, w, w + left) for i, (w, left) in enumerate(raw)]
    out = cut_outlook(field, cut)
    outcomes = itertools.product(*[range(w, w + left + 1) for w, left in raw])
    for final in outcomes:
        for p, verdict in out.items():
            at_least_as_good = sum(1 for q, x in enumerate(final) if q != p and x >= final[p])
            strictly_better = sum(1 for x in final if x > final[p])
            if verdict is Outlook.CLINCHED:
                assert at_least_as_good < cut
            else:
                assert strictly_better >= cut
