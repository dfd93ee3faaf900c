"""A tournament one hand from its end: 4 players, two Swiss rounds played through the services,
then the final table (a knockout stage) assigned to a referee who holds a credential; every hand
of the final but the last is recorded. Recording that last hand ends the match, the stage and
the tournament (the round check runs when the hand's transaction commits: the tests using this
need a transactional database).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from brackets import services as brackets_services
from brackets.models import Round
from scoring.engine import Ruleset
from scoring.engine.record import HandRecord
from scoring.engine.simulate import simulate_match
from scoring.models import Match
from scoring.services import hand_record, match_assign_referee, match_start
from tests.brackets.conftest import make_tournament, play_round
from tournament.context import RefereeActor
from tournament.models import RefereeToken, Tournament
from tournament.services import referee_create, referee_token_issue

SEED = 4  # the final of this seed is decided by its last hand (no play-off table follows)


@dataclass
class FinalTable:
    tournament: Tournament
    director: Any
    referee: Any  # the referee identity (a user row acting only through the credential)
    token: RefereeToken  # carries ``key`` (the private link is /ref/#<key>)
    match: Match
    last: HandRecord  # the hand that ends the tournament
    number: int  # its number


def _published(tournament: Tournament) -> Round | None:
    return (
        Round.objects.filter(stage__tournament=tournament, status=Round.Status.PUBLISHED)
        .order_by("stage__number", "number")
        .first()
    )


def final_table_one_hand_from_the_end(*, display_name: str = "Rosa Méndez") -> FinalTable:
    tournament, director = make_tournament(
        4, name="Demo Open", slug="demo-open", ruleset=Ruleset.from_preset("wsod").to_json()
    )
    qualifying = brackets_services.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        rng_seed=1004,
        swiss_rounds=2,
        cut_size=4,
        auto_advance=True,
    )
    brackets_services.stage_create(
        tournament=tournament,
        actor=director,
        name="Knockout",
        kind="knockout",
        rng_seed=2004,
        auto_advance=True,
    )
    brackets_services.stage_seed(stage=qualifying, actor=director, method="rating")
    brackets_services.round_publish(stage=qualifying, actor=director, expected_number=1)
    for _ in range(5):
        rnd = _published(tournament)
        assert rnd is not None, "the qualifying rounds did not lead to a final table"
        if rnd.kind == Round.Kind.FINAL:
            break
        play_round(rnd, director, seed=SEED)
    else:  # pragma: no cover - the seeded run reaches the final
        raise AssertionError("no final table")
    match = Match.objects.get(round_link__round=rnd)
    role = referee_create(
        tournament=tournament, actor=director, username="final-ref", display_name=display_name
    )
    referee = role.user
    match_assign_referee(match_id=match.pk, actor=director, referee=referee)
    token = referee_token_issue(tournament=tournament, actor=director, user=referee)
    actor = RefereeActor.of(token)
    sim = simulate_match(Ruleset.from_json(tournament.ruleset), match.n_players, SEED)
    if match.status == Match.Status.SCHEDULED:
        match_start(match_id=match.pk, actor=actor, lot_winner=sim.lot_winner)
    for number, record in enumerate(sim.records[:-1], start=1):
        hand_record(
            match_id=match.pk, actor=actor, expected_number=number, payload=record.to_dict()
        )
    match.refresh_from_db()
    assert match.status == Match.Status.IN_PROGRESS
    return FinalTable(
        tournament=tournament,
        director=director,
        referee=referee,
        token=token,
        match=match,
        last=sim.records[-1],
        number=len(sim.records),
    )
