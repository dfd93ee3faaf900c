"""The rating model: pure functions over (mu, sigma) pairs, no Django.

A match is a free-for-all of 2-4 players ranked by their placing at the table (T4), which is
what the Plackett-Luce model describes: the probability of an order is the product, place by
place, of each remaining player's share of the remaining strength. openskill's
``PlackettLuce`` implements it (Weng & Lin 2011) and takes shared ranks for players level on
placing (T3: players still level share a placing).

What is rated, and how (README, "Ratings"; ``ratings.selectors.rated_matches`` selects):
- only games played at an event's tables: a match at a table of a round (T2), with at least
  one hand completed, in a tournament that is not a draft, that ended normally (R33), by time
  (T3) or by a director's override (T4): by its placings, shared placings as a draw between
  those players;
- a forfeit (T7) is not rated: it records an absence, not a game; the players who carry on at
  the table play a continuation match, which is rated on its own; nor is an override of a
  match with no hand completed (a decision, not a game), nor a stand-alone match (no round);
- play-off matches (T6) are rated like any other match;
- a partnership match (R42) is one team against the other: both partners share their
  partnership's result (T4), each rated by the team update.

The displayed rating is ``1000 + 40 * (mu - 3 sigma)``: a conservative estimate (the skill the
player is 99.7 % likely to exceed) that rises as the system grows confident. Seeding by rating
uses it (T8). A player starts (:func:`starting_skill`) at the rating the director typed for them
(``Player.rating``: their rating from elsewhere, e.g. a federation's list), else at 1000 (mu 25,
sigma 25/3): the first rated match moves the typed rating, it does not throw it away. (Before,
every player started at 1000, so a champion entered at 1690 was seeded below a newcomer typed
at 1500 after winning every match.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MU0 = 25.0
SIGMA0 = MU0 / 3
DISPLAY_BASE = 1000
DISPLAY_SCALE = 40

# Each match first widens sigma by tau (skills drift between matches), then narrows it.
TAU = MU0 / 300

_MODEL = PlackettLuce(mu=MU0, sigma=SIGMA0, tau=TAU)


@dataclass(frozen=True, slots=True)
class Skill:
    mu: float = MU0
    sigma: float = SIGMA0

    @property
    def display(self) -> int:
        return display_rating(self.mu, self.sigma)


def display_rating(mu: float, sigma: float) -> int:
    """The rating shown to people and used for seeding (conservative: mu - 3 sigma)."""
    return round(DISPLAY_BASE + DISPLAY_SCALE * (mu - 3 * sigma))


def starting_skill(typed: int | None) -> Skill:
    """The skill a player has before their first rated match: the typed rating as the display
    rating at the starting uncertainty (``display_rating(*starting_skill(r)) == r``), else the
    default newcomer's (1000)."""
    if typed is None:
        return Skill()
    return Skill(mu=(typed - DISPLAY_BASE) / DISPLAY_SCALE + 3 * SIGMA0, sigma=SIGMA0)


def rate_table(
    skills: Sequence[Skill], placings: Sequence[int], *, partners: bool = False
) -> list[Skill]:
    """New skills of the players at one table, given their placings (1 = first; equal = level).

    ``partners``: a partnership table (R42: seats 0, 2 against seats 1, 3), rated as one team
    against the other, the teams ranked by their better partner's placing (T4 over
    partnerships); partners win or lose together and share the update of their team.

    Deterministic: the same inputs always give the same outputs (no randomness in the model).
    """
    if len(skills) != len(placings):
        raise ValueError("one placing per player")
    if len(skills) < 2:
        raise ValueError("a rated match has at least two players")
    if partners:
        if len(skills) != 4:
            raise ValueError("a partnership table has four players (R42)")
        sides = [
            [_MODEL.create_rating([skills[i].mu, skills[i].sigma]) for i in (k, k + 2)]
            for k in (0, 1)
        ]
        ranks = [float(min(placings[k], placings[k + 2])) for k in (0, 1)]
        (a, c), (b, d) = _MODEL.rate(sides, ranks=ranks)
        return [Skill(r.mu, r.sigma) for r in (a, b, c, d)]
    teams = [[_MODEL.create_rating([s.mu, s.sigma])] for s in skills]
    rated = _MODEL.rate(teams, ranks=[float(p) for p in placings])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]
