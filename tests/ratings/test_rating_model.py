"""The rating model (ratings.model): openskill Plackett-Luce over table placings (T4, T3)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ratings.model import MU0, SIGMA0, TAU, Skill, display_rating, rate_table, starting_skill

NEW = Skill()


@pytest.mark.parametrize(
    ("placings", "order"),
    [
        # (placings at the table, expected order of the new mu values, best first)
        ([1, 2], [0, 1]),
        ([2, 1], [1, 0]),
        ([1, 2, 3], [0, 1, 2]),
        ([3, 1, 2], [1, 2, 0]),
        ([1, 2, 3, 4], [0, 1, 2, 3]),
        ([4, 3, 2, 1], [3, 2, 1, 0]),
    ],
)
def test_better_placing_gains_more(placings: list[int], order: list[int]) -> None:
    after = rate_table([NEW] * len(placings), placings)
    mus = [after[i].mu for i in order]
    assert mus == sorted(mus, reverse=True)
    assert after[order[0]].mu > MU0 > after[order[-1]].mu


def test_shared_placing_is_a_draw_between_those_players() -> None:
    # T3: players still level share the placing; they are rated alike.
    after = rate_table([NEW] * 4, [1, 2, 2, 4])
    assert after[1] == after[2]
    assert after[0].mu > after[1].mu > after[3].mu


def test_everyone_level_changes_no_mean() -> None:
    after = rate_table([NEW] * 3, [1, 1, 1])
    assert all(s.mu == pytest.approx(MU0) for s in after)
    assert all(s.sigma < SIGMA0 for s in after)


def test_display_starts_at_1000() -> None:
    assert display_rating(MU0, SIGMA0) == 1000
    assert NEW.display == 1000


@pytest.mark.parametrize("bad", [([NEW], [1]), ([NEW, NEW], [1])])
def test_refuses_malformed_tables(bad: tuple[list[Skill], list[int]]) -> None:
    with pytest.raises(ValueError, match=r"placing|two players"):
        rate_table(*bad)


skills = st.builds(Skill, st.floats(10, 40), st.floats(1, 9))


@settings(deadline=None)  # openskill's first call is slow on a loaded machine
@given(st.lists(skills, min_size=2, max_size=4), st.data())
def test_deterministic_and_sigma_grows_by_tau_at_most(
    players: list[Skill], data: st.DataObject
) -> None:
    placings = data.draw(
        st.lists(st.integers(1, len(players)), min_size=len(players), max_size=len(players))
    )
    first = rate_table(players, placings)
    assert first == rate_table(players, placings)
    # A match adds drift (tau) before it narrows: sigma never grows past sqrt(s^2 + tau^2).
    assert all(
        a.sigma <= (b.sigma**2 + TAU**2) ** 0.5 + 1e-9 for a, b in zip(first, players, strict=True)
    )


@settings(deadline=None)
@given(st.lists(skills, min_size=2, max_size=4))
def test_the_winner_never_loses_and_the_last_never_gains(players: list[Skill]) -> None:
    n = len(players)
    after = rate_table(players, list(range(1, n + 1)))
    assert after[0].mu >= players[0].mu
    assert after[-1].mu <= players[-1].mu


def test_partnership_table_is_rated_team_against_team_r42() -> None:
    """R42/T4: partners are one side. A strong A and a new C win together: as a team they
    gain alike (their sigmas are equal); a free-for-all would treat their shared first place
    as a draw between them and move C more than A."""
    strong = Skill(35.0, SIGMA0)
    before = [strong, NEW, NEW, NEW]
    after = rate_table(before, [1, 3, 1, 3], partners=True)
    gains = [a.mu - b.mu for a, b in zip(after, before, strict=True)]
    assert gains[0] == pytest.approx(gains[2])
    assert gains[1] == pytest.approx(gains[3])
    assert gains[0] > 0 > gains[1]
    free_for_all = rate_table(before, [1, 3, 1, 3])
    assert free_for_all[2].mu - NEW.mu != pytest.approx(free_for_all[0].mu - strong.mu)
    # The teams are ranked by their better partner's placing (T4 over partnerships).
    assert rate_table(before, [1, 3, 2, 4], partners=True) == after
    with pytest.raises(ValueError, match="R42"):
        rate_table([NEW] * 3, [1, 2, 3], partners=True)


@given(st.integers(min_value=0, max_value=9999))
def test_a_player_starts_at_the_rating_the_director_typed_t8(typed: int) -> None:
    start = starting_skill(typed)
    assert start.display == typed
    assert start.sigma == SIGMA0  # as uncertain as any newcomer: results move it as much


def test_a_player_without_a_typed_rating_starts_as_a_newcomer() -> None:
    assert starting_skill(None) == Skill(MU0, SIGMA0)
    assert starting_skill(None).display == 1000


@given(st.integers(min_value=0, max_value=9000), st.integers(min_value=1, max_value=999))
def test_a_higher_typed_rating_starts_higher_and_ranks_after_equal_results(
    low: int, gap: int
) -> None:
    a, b = starting_skill(low), starting_skill(low + gap)
    assert a.mu < b.mu
    # The same draw at one table keeps their order (T8: the typed rating is not thrown away).
    after = rate_table([a, b], [1, 1])
    assert after[0].display <= after[1].display
