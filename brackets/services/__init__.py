"""Writes of the brackets app (HackSoft services: ``<entity>_<action>``, keyword-only, typed).

Flow of a stage (RULES.md §11)::

    stage = stage_create(tournament=t, actor=director, name="Qualifying", kind="qualifying",
                         swiss_rounds=5, cut_size=64)
    stage_create(tournament=t, actor=director, name="Knockout", kind="knockout")
    stage_seed(stage=stage, actor=director, method="rating")        # T8
    step = round_preview(stage=stage, actor=director)               # nothing stored
    rnd = round_publish(stage=stage, actor=director, expected_number=step.round_number)
    # ... referees record hands; when the last match of the round finishes, the
    # ``brackets.round_check`` task runs ``round_advance(round_id=...)``: it closes the round
    # and publishes the next one when the stage was created with ``auto_advance=True``;
    # by default (off) the round closes and waits for the director's preview and publish.

``actor`` is the user acting (a director of the tournament, checked: 403 otherwise);
``actor=None`` is the system itself (tasks, reconciliation) and is only accepted by services
the system runs. Director actions that change results or seating are written to the action
log (``tournament.services.action_log_record``) in the same transaction.
"""

from brackets.services.entrants import (
    WithdrawalForfeit,
    stage_entry_add,
    stage_entry_withdraw,
    stage_entry_withdraw_forfeits,
)
from brackets.services.interventions import (
    round_call_time,
    round_clock_start,
    round_seat_replace,
)
from brackets.services.planning import NextStep
from brackets.services.rounds import (
    AdvanceResult,
    round_advance,
    round_close,
    round_preview,
    round_publish,
    round_reopen_for_match,
    rounds_reconcile,
)
from brackets.services.stages import (
    SeedReorderResult,
    stage_advance,
    stage_create,
    stage_seed,
    stage_seed_reorder,
    stage_update,
)
from brackets.services.store import RoundAlreadyPublishedError

__all__ = [
    "AdvanceResult",
    "NextStep",
    "RoundAlreadyPublishedError",
    "SeedReorderResult",
    "WithdrawalForfeit",
    "round_advance",
    "round_call_time",
    "round_clock_start",
    "round_close",
    "round_preview",
    "round_publish",
    "round_reopen_for_match",
    "round_seat_replace",
    "rounds_reconcile",
    "stage_advance",
    "stage_create",
    "stage_entry_add",
    "stage_entry_withdraw",
    "stage_entry_withdraw_forfeits",
    "stage_seed",
    "stage_seed_reorder",
    "stage_update",
]
