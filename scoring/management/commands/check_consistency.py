"""``manage.py check_consistency``: stored scores equal the engine's fold of the stored hands.

For every match whose result comes from its hands (started, not void, not ended by a director's
override, a forfeit or time: those set results by rule, T3/T7), it folds the live hands with
the match's frozen ruleset (RULES.md §1) and compares: the snapshot ``Match.scores`` and
``hands_count``, each hand's ``scores_after``, and each seat's points. Exit status 1 and one line
per difference when anything disagrees. Run after restoring a backup (deploy/scripts/restore.sh,
docs/operations.md) and whenever a database is in doubt.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from scoring.engine import Ruleset
from scoring.engine.match import match_fold
from scoring.models import Hand, Match, Seat
from scoring.selectors import match_hand_records

_BY_RULE = (Match.EndReason.OVERRIDE, Match.EndReason.FORFEIT, Match.EndReason.TIME)


def inconsistencies() -> tuple[int, list[str]]:
    """(matches checked, one message per difference)."""
    problems: list[str] = []
    checked = 0
    matches = (
        Match.objects.exclude(status__in=[Match.Status.SCHEDULED, Match.Status.VOID])
        .exclude(end_reason__in=_BY_RULE)
        .order_by("pk")
    )
    for match in matches.iterator(chunk_size=500):
        if not match.ruleset:
            continue
        checked += 1
        where = f"match {match.pk}"
        ruleset = Ruleset.from_json(match.ruleset)
        records = match_hand_records(match_id=match.pk)
        state = match_fold(ruleset, match.n_players, records, lot_winner=match.lot_winner)
        if list(match.scores or []) != list(state.scores):
            problems.append(f"{where}: stored scores {match.scores} != fold {list(state.scores)}")
        if match.hands_count != state.hands:
            problems.append(f"{where}: hands_count {match.hands_count} != fold {state.hands}")
        # Every hand's scores_after is the fold up to it (a match has tens of hands).
        live = Hand.objects.filter(match=match, void=False).order_by("number")
        for i, (number, after) in enumerate(live.values_list("number", "scores_after")):
            upto = match_fold(
                ruleset, match.n_players, records[: i + 1], lot_winner=match.lot_winner
            )
            if list(after) != list(upto.scores):
                problems.append(f"{where} hand {number}: scores_after {after} != fold")
                break
        points = list(
            Seat.objects.filter(match=match).order_by("seat").values_list("points", flat=True)
        )
        if points and points != list(state.scores):
            problems.append(f"{where}: seat points {points} != fold {list(state.scores)}")
    return checked, problems


class Command(BaseCommand):
    help = "Check that every match's stored scores equal the engine's fold of its hands."

    def handle(self, *args: Any, **options: Any) -> None:
        checked, problems = inconsistencies()
        for problem in problems:
            self.stderr.write(problem)
        if problems:
            raise CommandError(f"{len(problems)} inconsistencies in {checked} matches")
        self.stdout.write(f"consistent: {checked} matches, stored scores = engine fold")
