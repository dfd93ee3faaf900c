"""Bots playing a tournament through the real services (``make demo``, ``simulate_event``).

Every hand is dealt and played by the rules engine's seeded simulator
(``scoring.engine.simulate.simulate_hand``) from the match's current state and recorded with
``scoring.services.hand_record``, exactly as a referee's phone would: the rules engine checks
it, the standings follow, live pushes go out after commit and a finished round advances through
the same task as in production. Nothing here writes a model directly.

Seeds: a match's hands come from ``random.Random(seed)`` where the caller derives ``seed`` from
stage, round and table numbers (never database ids), so a run replays.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from brackets.models import Round, RoundMatch, Stage
from scoring import services as scoring_services
from scoring.engine import Ruleset
from scoring.engine.match import match_apply
from scoring.engine.match_state import MatchState
from scoring.engine.simulate import BOTS, simulate_hand
from scoring.models import Match
from scoring.selectors import match_ruleset, match_state
from tournament.models import Table

CLIENT = scoring_services.ClientInfo(ip="127.0.0.1", user_agent="simulator")
OPEN = (Match.Status.SCHEDULED, Match.Status.IN_PROGRESS)


def table_seed(base: int, rnd: Round, table_number: int, continuation: int = 0) -> int:
    """The simulator seed of a table of a round: from numbers only, so a run replays."""
    return (
        base * 1_000_003 + rnd.stage.number * 10_007 + rnd.number * 101 + table_number
    ) * 7 + continuation


@dataclass
class MatchBot:
    """Plays one match hand by hand through the services, keeping the engine state in step."""

    match: Match
    actor: Any
    rng: random.Random
    bot: str = "heuristic"
    state: MatchState | None = None
    feature: bool | None = None  # a feature table: hands are sent as play logs (issue 15)

    def start(self) -> None:
        """Start the match if it is scheduled (the lot for the lead from the seed, R6)."""
        if self.match.status == Match.Status.SCHEDULED:
            lot = self.rng.randrange(self.match.n_players)
            self.match = scoring_services.match_start(
                match_id=self.match.pk, actor=self.actor, lot_winner=lot
            )
        if self.state is None:
            self.match.refresh_from_db()
            self.state = match_state(match=self.match)
        if self.feature is None:
            self.feature = bool(
                self.match.table_id
                and Table.objects.filter(pk=self.match.table_id, feature=True).exists()
            )

    @property
    def over(self) -> bool:
        return self.match.status not in OPEN or (self.state is not None and self.state.over)

    def play_hand(self) -> bool:
        """Record one simulated hand; False when the match is over (or no longer open)."""
        self.start()
        assert self.state is not None
        if self.over:
            return False
        ruleset: Ruleset = match_ruleset(self.match)
        n = self.match.n_players
        log, record = simulate_hand(ruleset, n, self.state.next, self.rng, (BOTS[self.bot],) * n)
        payload = record.to_dict()
        payload.pop("sporting", None)
        if self.feature:  # as the move-by-move page sends it: the log and its poser (R6)
            payload = {"poser": record.poser, "play_log": log.to_dict()}
        number = self.state.hands + 1
        result = scoring_services.hand_record(
            match_id=self.match.pk,
            actor=self.actor,
            expected_number=number,
            payload=payload,
            idempotency_key=f"sim-{self.match.pk}-{number}",
            client=CLIENT,
        )
        if result.match is not None:
            self.match = result.match
        self.state, _ = match_apply(self.state, record)
        return True

    def play(self, hands: int | None = None) -> int:
        """Play ``hands`` hands (all, to the end of the match, when None); returns how many."""
        played = 0
        while (hands is None or played < hands) and self.play_hand():
            played += 1
        return played


def round_tables(rnd: Round) -> dict[int, Match]:
    """The open match of every table of ``rnd`` (a forfeit's continuation replaces its match)."""
    out: dict[int, Match] = {}
    links = (
        RoundMatch.objects.filter(round=rnd, match__status__in=OPEN)
        .select_related("match")
        .order_by("table_number", "match_id")
    )
    for link in links:
        out[link.table_number] = link.match
    return out


def play_round(rnd: Round, *, base_seed: int, actor_of: Any = None) -> int:
    """Play every open match of ``rnd`` to its end (continuations too); returns matches played.

    ``actor_of(match)`` gives who records (default: the match's referee)."""
    played = 0
    rounds = 0
    while tables := round_tables(rnd):
        rounds += 1
        for table_number, match in tables.items():
            actor = actor_of(match) if actor_of else match.referee
            rng = random.Random(table_seed(base_seed, rnd, table_number, rounds))
            MatchBot(match, actor, rng).play()
            played += 1
        if rounds > 20:  # a continuation chain longer than a table has seats: a bug
            raise RuntimeError(f"round {rnd} does not finish")
    return played


def current_round(tournament_id: int) -> Round | None:
    """The round in play: the published round of the earliest unfinished stage."""
    return (
        Round.objects.filter(
            stage__tournament_id=tournament_id,
            status=Round.Status.PUBLISHED,
        )
        .exclude(stage__status=Stage.Status.FINISHED)
        .select_related("stage")
        .order_by("stage__number", "number")
        .first()
    )
