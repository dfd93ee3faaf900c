"""The demo's pairs event (issue 17): "Demo Pairs", beside the individual "Demo Open".

Eight partnerships of the demo's players under ``wsod_partners`` (R42: partners opposite),
registered through :func:`tournament.partnerships.partnership_register`: a qualifying stage of
three Swiss rounds of partnerships (T9) cut to the best four, then the knockout of two tables
to the final between the top two partnerships (T10). Round 1 is played, round 2 is in play
(two tables finished, one mid-match, one not started). Every hand comes from the rules
engine's simulator through the real services (``brackets.simulation``), from fixed seeds.
"""

from __future__ import annotations

import random
from typing import Any

from brackets import services as bs
from brackets.models import Round, Stage
from brackets.simulation import MatchBot, play_round, round_tables, table_seed
from tournament import services as ts
from tournament.models import Player, Tournament
from tournament.partnerships import partnership_register, tournament_entry_format_set

PAIRS_SLUG = "demo-pairs"
PAIRS_NAME = "Demo Pairs"
PAIRS_SEED = 2027
# (partnership name, first player, second player): names from the demo's players.
PARTNERSHIPS: list[tuple[str, str, str]] = [
    ("Los Capicúa", "Ana Rivera", "Luis Ortega"),
    ("Lagos Doubles", "Ben Okafor", "Samuel Adeyemi"),
    ("Quisqueya", "Carmen Díaz", "María Santos"),
    ("Kingston Kings", "Desmond Clarke", "Keisha Morgan"),
    ("Brooklyn Bridge", "Elena Petrova", "Nathan Green"),
    ("La Habana", "Félix Ramos", "Rosa Jiménez"),
    ("Thames", "Grace Thompson", "Zoe Campbell"),
    ("Madrid-Caracas", "Hugo Martín", "Jorge Vega"),
]
# Round 2, table -> hands to play now (None: to the end).
ROUND_2_PLAN: dict[int, int | None] = {1: None, 2: None, 3: 4, 4: 0}


def build_pairs_demo(director: Any) -> Tournament:
    """Create the pairs event (the caller holds the transaction and checks it is new)."""
    tournament = ts.tournament_create(
        actor=director,
        name=PAIRS_NAME,
        slug=PAIRS_SLUG,
        venue="Main Hall",
        ruleset_preset="wsod_partners",
    )
    tournament = ts.tournament_update(
        tournament=tournament, actor=director, data={"status": Tournament.Status.REGISTRATION}
    )
    tournament_entry_format_set(tournament=tournament, actor=director, entry_format="pairs")
    tournament.refresh_from_db()
    by_name = {
        p.name: p
        for p in Player.objects.filter(name__in=[n for _, *ns in PARTNERSHIPS for n in ns])
    }
    for name, a, b in PARTNERSHIPS:
        partnership_register(
            tournament=tournament,
            actor=director,
            players=[by_name[a], by_name[b]],
            name=name,
            check_in=True,
        )
    for number in range(1, 5):
        ts.table_create(tournament=tournament, actor=director, number=number)
        ts.referee_create(
            tournament=tournament,
            actor=director,
            username=f"ref-pairs-{number}",
            display_name=f"Pairs referee {number}",
        )
    tournament = ts.tournament_update(
        tournament=tournament, actor=director, data={"status": Tournament.Status.RUNNING}
    )
    qualifying = bs.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying (pairs)",
        kind=Stage.Kind.QUALIFYING,
        swiss_rounds=3,
        cut_size=4,
        rng_seed=PAIRS_SEED,
        round_time_limit=60,
        auto_advance=True,  # a live event that runs itself, as the individual demo's
    )
    bs.stage_create(
        tournament=tournament,
        actor=director,
        name="Knockout (pairs)",
        kind=Stage.Kind.KNOCKOUT,
        rng_seed=PAIRS_SEED + 1,
        auto_advance=True,
    )
    bs.stage_seed(stage=qualifying, actor=director, method="rating")
    first = bs.round_publish(stage=qualifying, actor=director, expected_number=1)
    play_round(first, base_seed=PAIRS_SEED)
    bs.round_advance(round_id=first.pk)  # idempotent: the queued task finds it done
    second = Round.objects.get(stage=qualifying, number=2)
    for table_number, match in round_tables(second).items():
        rng = random.Random(table_seed(PAIRS_SEED, second, table_number, 1))
        bot = MatchBot(match, match.referee, rng)
        hands = ROUND_2_PLAN.get(table_number)
        if hands == 0:
            continue  # table 4 has not started
        bot.start()
        bot.play(hands)
    return tournament
