"""The brackets engine: pure-Python seeding, seating, standings and advancement (RULES.md §11).

Imports nothing from Django or the rules engine. Values are frozen dataclasses; randomness is a
:class:`random.Random` passed in (or a recorded integer seed), so every seating replays.

Typical round flow for the service layer::

    standings = compute_standings(records, players=ids, byes=byes, bye_policy=policy)  # T5
    history = History.from_seatings(previous_rounds)                                    # T8
    seating = reseat_swiss(entrants, records=standings.records(), history=history,
                           config=config, rng=random.Random(recorded_seed))             # T8, T1
"""

from brackets.engine.advancement import (
    Advancement,
    Placement,
    Playoff,
    advance_cut,
    advance_per_table,
    final_table_places,
    resolve_playoff,
    resolve_playoff_groups,
    standings_places,
)
from brackets.engine.composition import TablePlan, choose_byes, plan_tables
from brackets.engine.errors import BracketError
from brackets.engine.history import History
from brackets.engine.knockout import KnockoutPlan, KnockoutRound, plan_knockout
from brackets.engine.model import (
    ByePolicy,
    Entrant,
    PlayerId,
    Record,
    Seating,
    SeatOrder,
    StageConfig,
    Table,
)
from brackets.engine.seats import follow_cost, order_seats
from brackets.engine.seeding import (
    seat_seeded,
    seed_by_rating,
    seed_manual,
    seed_random,
    snake_tables,
)
from brackets.engine.standings import (
    MatchId,
    MatchRecord,
    StandingRow,
    Standings,
    Tiebreak,
    compute_standings,
)
from brackets.engine.swiss import (
    SeatingCost,
    SwissOptions,
    reseat_swiss,
    seat_greedy,
    seating_cost,
)
from brackets.engine.time_called import (
    TimeCalledLine,
    TimeCalledPlacing,
    sudden_death_placings,
    time_called_placings,
    time_called_winner,
)

__all__ = [
    "Advancement",
    "BracketError",
    "ByePolicy",
    "Entrant",
    "History",
    "KnockoutPlan",
    "KnockoutRound",
    "MatchId",
    "MatchRecord",
    "Placement",
    "PlayerId",
    "Playoff",
    "Record",
    "SeatOrder",
    "Seating",
    "SeatingCost",
    "StageConfig",
    "StandingRow",
    "Standings",
    "SwissOptions",
    "Table",
    "TablePlan",
    "Tiebreak",
    "TimeCalledLine",
    "TimeCalledPlacing",
    "advance_cut",
    "advance_per_table",
    "choose_byes",
    "compute_standings",
    "final_table_places",
    "follow_cost",
    "order_seats",
    "plan_knockout",
    "plan_tables",
    "reseat_swiss",
    "resolve_playoff",
    "resolve_playoff_groups",
    "seat_greedy",
    "seat_seeded",
    "seating_cost",
    "seed_by_rating",
    "seed_manual",
    "seed_random",
    "snake_tables",
    "standings_places",
    "sudden_death_placings",
    "time_called_placings",
    "time_called_winner",
]
