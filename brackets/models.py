"""Stages, their entrants, rounds and the link from a round to its matches.

Models hold data and database constraints (STYLE.md §6); the workflows (seed, preview, publish,
close, advance, call time) live in :mod:`brackets.services` and the computations in the pure
:mod:`brackets.engine`.

Player ids in the engine are ``tournament.Entry`` primary keys.

Idempotency of advancement rests on the database, not on Python (PITFALLS.md):

* ``(stage, number)`` is unique on :class:`Round`, so a second publish of the same round raises
  ``IntegrityError`` and is treated as "already done";
* :attr:`Round.advanced_at` is the done-marker of "what follows this round was done" (the next
  round published, a play-off created or the stage finished), set in the same transaction as
  that work, under a row lock on the stage and the round;
* a match belongs to at most one round (``RoundMatch.match`` is one-to-one).

``brackets`` links to ``scoring`` from its side; scoring never imports brackets (layering).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.models import BaseModel
from tournament.models import Entry, Tournament

# The ranges of a stage's numbers, one rule for the page, the API and the services (a value
# past its column was a 500; RULES.md §11). A cut at or above the field lets everyone through
# (empty says so): 10,000 is past any field a stage seats (a seed order holds at most 10,000).
CUT_SIZE_MAX = 10_000
SWISS_ROUNDS_MAX = 50
TIME_LIMIT_MAX = 600  # minutes: a round clock of at most ten hours (T2, T3)
RNG_SEED_MAX = 2**31 - 1  # a recorded seed (T8)


class Stage(BaseModel):
    """One stage of a tournament's format: Swiss-style qualifying or a table knockout (T6)."""

    class Kind(models.TextChoices):
        QUALIFYING = "qualifying", "Qualifying (Swiss-style)"
        KNOCKOUT = "knockout", "Table knockout to a final table"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending (no entrants yet)"
        SEEDED = "seeded", "Seeded"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"

    class Seeding(models.TextChoices):
        RATING = "rating", "By rating"
        MANUAL = "manual", "Manual order"
        RANDOM = "random", "Random (recorded seed)"
        STANDINGS = "standings", "Standings of the previous stage"

    class ByePolicy(models.TextChoices):
        WIN = "win", "A bye counts as a match win"
        NOTHING = "nothing", "A bye counts for nothing"

    class SeatOrder(models.TextChoices):
        BALANCED = "balanced", "Balanced (T8)"
        RANDOM = "random", "Random"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stages")
    number = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=80)
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)

    # Qualifying: R rounds, then the top ``cut_size`` go on (T6 cut); null = everyone goes on.
    swiss_rounds = models.PositiveSmallIntegerField(null=True, blank=True)
    cut_size = models.PositiveIntegerField(null=True, blank=True)
    # Knockout: top k of every table advance (T6), down to a final table of 3 or 4.
    advance_per_table = models.PositiveSmallIntegerField(default=1)
    final_table_size = models.PositiveSmallIntegerField(default=4)

    allow_three = models.BooleanField(default=True)
    bye_policy = models.CharField(max_length=8, choices=ByePolicy.choices, default=ByePolicy.WIN)
    seat_order = models.CharField(
        max_length=8, choices=SeatOrder.choices, default=SeatOrder.BALANCED
    )
    seeding = models.CharField(max_length=16, choices=Seeding.choices, default=Seeding.RATING)
    # Recorded seed of every random choice of the stage (random seeding, seat order, equal
    # records in Swiss order): every seating replays from it (STYLE.md §1).
    rng_seed = models.BigIntegerField(default=0)
    # Off by default: the director previews each round before publishing it (T6).
    auto_advance = models.BooleanField(default=False)
    round_time_limit = models.PositiveIntegerField(
        null=True, blank=True, help_text="Minutes per round (T2, T3); empty = no clock."
    )
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # T9: the stage seats partnerships (copied from the tournament's entry format when the
    # stage is created or seeded), so loading a stage needs no extra query to know it.
    pairs = models.BooleanField(default=False)

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="stage_unique_number"),
            models.CheckConstraint(
                condition=Q(kind__in=["qualifying", "knockout"]), name="stage_kind_valid"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "seeded", "running", "finished"]),
                name="stage_status_valid",
            ),
            models.CheckConstraint(
                condition=~Q(kind="qualifying") | Q(swiss_rounds__gte=1),
                name="stage_qualifying_rounds",
            ),
            # A cut lets a table through: 3 players, or 2 partnerships in a pairs stage (T10).
            models.CheckConstraint(
                condition=Q(cut_size__isnull=True)
                | Q(cut_size__gte=3)
                | Q(pairs=True, cut_size__gte=2),
                name="stage_cut_size",
            ),
            models.CheckConstraint(
                condition=Q(advance_per_table__in=[1, 2]), name="stage_advance_per_table"
            ),
            models.CheckConstraint(
                condition=Q(final_table_size__in=[3, 4]), name="stage_final_table_size"
            ),
            models.CheckConstraint(
                condition=Q(final_table_size=4) | Q(allow_three=True),
                name="stage_final_of_three_needs_three_tables",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (stage {self.number})"


class StageEntry(BaseModel):
    """A tournament entry taking part in a stage, with its stage seed and its outcome."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        ADVANCED = "advanced", "Advanced to the next stage"
        ELIMINATED = "eliminated", "Eliminated"
        WITHDRAWN = "withdrawn", "Withdrawn or disqualified (T7)"

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="entrants")
    entry = models.ForeignKey(Entry, on_delete=models.CASCADE, related_name="stage_entries")
    seed = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    # First round this entrant can be seated in (> 1 for a late check-in).
    joined_round = models.PositiveSmallIntegerField(default=1)
    # Round number in which the entrant went out (knockout, cut after the last round, T7).
    out_round = models.PositiveSmallIntegerField(null=True, blank=True)
    # Final place within the stage: absolute, so the deepest stage's place is the tournament's.
    placing = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["stage_id", "seed"]
        verbose_name_plural = "stage entries"
        constraints = [
            models.UniqueConstraint(fields=["stage", "entry"], name="stageentry_unique_entry"),
            # Deferred: a reorder rewrites every seed in one transaction (T8 manual order).
            models.UniqueConstraint(
                fields=["stage", "seed"],
                name="stageentry_unique_seed",
                deferrable=models.Deferrable.DEFERRED,
            ),
            models.CheckConstraint(condition=Q(seed__gte=1), name="stageentry_seed_positive"),
            models.CheckConstraint(
                condition=Q(status__in=["active", "advanced", "eliminated", "withdrawn"]),
                name="stageentry_status_valid",
            ),
        ]
        indexes = [models.Index(fields=["stage", "status"])]

    def __str__(self) -> str:
        return f"entry {self.entry_id} seed {self.seed} in stage {self.stage_id}"


class Round(BaseModel):
    """One round of a stage: every table plays one match (T2). Created only by publishing."""

    class Kind(models.TextChoices):
        SWISS = "swiss", "Qualifying round"
        KNOCKOUT = "knockout", "Knockout round"
        FINAL = "final", "Final table"
        PLAYOFF = "playoff", "Play-off table (T6)"

    class Status(models.TextChoices):
        PUBLISHED = "published", "Published (in play)"
        CLOSED = "closed", "Closed (all results in)"

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="rounds")
    number = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PUBLISHED)
    rng_seed = models.BigIntegerField(default=0)
    # Entry ids given a bye this round (T1), in the order they were chosen.
    byes = models.JSONField(default=list, blank=True)
    # Knockout: how many go on from this round (table qualifiers + fill, T6).
    # Play-off: how many spots the play-off decides (T6).
    advancing = models.PositiveIntegerField(null=True, blank=True)
    # Play-off: the entry ids level on the line, in standings order.
    playoff_players = models.JSONField(default=list, blank=True)

    published_at = models.DateTimeField(null=True, blank=True)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    time_limit = models.PositiveIntegerField(null=True, blank=True, help_text="Minutes (T3).")
    clock_started_at = models.DateTimeField(null=True, blank=True)
    time_called_at = models.DateTimeField(null=True, blank=True)
    closed_at = models.DateTimeField(null=True, blank=True)
    # Done-marker: what follows this round was done (next round, play-off or stage end).
    advanced_at = models.DateTimeField(null=True, blank=True)
    # Why the automatic advance failed (a bracket error); the director resolves it, and the
    # reconciliation task leaves the round alone meanwhile.
    advance_error = models.TextField(blank=True)

    class Meta:
        ordering = ["stage_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["stage", "number"], name="round_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="round_number_positive"),
            models.CheckConstraint(
                condition=Q(kind__in=["swiss", "knockout", "final", "playoff"]),
                name="round_kind_valid",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["published", "closed"]), name="round_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(advanced_at__isnull=True) | Q(status="closed"),
                name="round_advanced_only_when_closed",
            ),
        ]
        indexes = [
            models.Index(
                fields=["status", "advanced_at"],
                name="round_pending_advance",
                condition=Q(advanced_at__isnull=True),
            )
        ]

    def __str__(self) -> str:
        return f"round {self.number} of stage {self.stage_id}"

    @property
    def clock_ends_at(self) -> datetime | None:
        if self.clock_started_at is None or not self.time_limit:
            return None
        return self.clock_started_at + timedelta(minutes=self.time_limit)


class RoundMatch(models.Model):
    """The link from a round to one of its matches (one table), owned by brackets."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="round_matches")
    match = models.OneToOneField(
        "scoring.Match", on_delete=models.CASCADE, related_name="round_link"
    )
    # Not unique: when a player forfeits (T7) the others play on in a continuation match at
    # the same table, linked to the same round with the same number.
    table_number = models.PositiveIntegerField()

    class Meta:
        ordering = ["round_id", "table_number", "match_id"]
        indexes = [models.Index(fields=["round", "table_number"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(table_number__gte=1), name="roundmatch_table_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"table {self.table_number} of round {self.round_id}"
