"""Matches, seats, hands and idempotency records in the database.

The source of truth for a match's state is the engine's fold of its non-void hands (RULES.md
§7); the snapshot columns on :class:`Match` (``scores``, ``hands_count``, ``next_hand``,
``winner_seat``) and the result columns on :class:`Seat` are a cache written in the same
transaction as the hand, for cheap reads. Hands are append-only: a correction voids a hand
(who / when / why) and never deletes it (STYLE.md §6).

There is no foreign key from here to ``brackets``: rounds link to matches from their side.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.models import BaseModel
from tournament.models import Entry, Table, Tournament

MAX_SEATS = 4


class Match(BaseModel):
    """One table's match: seats in play order, played under a ruleset frozen at start."""

    class Status(models.TextChoices):
        SCHEDULED = "scheduled", "Scheduled"
        IN_PROGRESS = "in_progress", "In progress"
        FINISHED = "finished", "Finished"
        VOID = "void", "Void"

    class EndReason(models.TextChoices):
        NORMAL = "normal", "Normal"
        TIME = "time", "Time (T3)"
        FORFEIT = "forfeit", "Forfeit (T7)"
        OVERRIDE = "override", "Director override"

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="matches")
    table = models.ForeignKey(
        Table, null=True, blank=True, on_delete=models.SET_NULL, related_name="matches"
    )
    label = models.CharField(max_length=80, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.SCHEDULED, db_index=True
    )
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="refereed_matches",
    )
    # Engine Ruleset.to_json(), frozen by match_start (RULES.md §1); empty while scheduled.
    ruleset = models.JSONField(default=dict, blank=True)
    n_players = models.PositiveSmallIntegerField()
    lot_winner = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=16, choices=EndReason.choices, blank=True)
    # Bumped by every change of the match (hand recorded or voided, start, override ...).
    version = models.PositiveIntegerField(default=0)
    # The forfeited match this one continues at the same table (T7): the players left play
    # on in a new match, which the round then waits for too. At most one per match.
    continues = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="continuation",
        editable=False,
    )

    # Confirmation at the table (scoring/confirmation.py): the tournament's setting, frozen
    # when the match starts, and what the match waits for. ``hold``: "" nothing; "hand" the
    # last hand awaits every player's confirmation (no further hand until then); "result"
    # the hand that ended the match awaits it (the match is not finished: no standings, no
    # advancement); "disputed" a player disputed it (frozen until a director resolves it).
    confirmation = models.CharField(max_length=12, blank=True, default="", db_default="")
    confirmation_hold = models.CharField(max_length=12, blank=True, default="", db_default="")
    # T3: time was called on the round and the director kept this table playing for a
    # sudden-death hand; the first hand won ends the match (scoring.services.hands), marked
    # "time". Set by brackets.services.round_call_time; read on the locked row (no query).
    sudden_death = models.BooleanField(default=False, db_default=False)

    # Snapshot of the folded state, rewritten in the recording transaction.
    scores = models.JSONField(default=list, blank=True)
    hands_count = models.PositiveIntegerField(default=0)
    next_hand = models.JSONField(null=True, blank=True)
    winner_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    # The engine's whole state after the last hand (scoring.engine.state_to_json) and the match
    # version it belongs to: {"match_version": v, "state": {...}}. Written only by hand_record,
    # in the same statement as the hand; any other change bumps ``version`` and so retires it.
    # A cache of the fold that spares re-folding every hand: never a source of truth.
    engine_state = models.JSONField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["tournament_id", "id"]
        verbose_name_plural = "matches"
        indexes = [models.Index(fields=["tournament", "status"])]
        constraints = [
            models.CheckConstraint(
                condition=Q(n_players__gte=2) & Q(n_players__lte=MAX_SEATS),
                name="match_n_players_2_to_4",
            ),
            models.CheckConstraint(
                condition=Q(lot_winner__lt=models.F("n_players")), name="match_lot_winner_seat"
            ),
            models.CheckConstraint(
                condition=Q(winner_seat__isnull=True) | Q(winner_seat__lt=models.F("n_players")),
                name="match_winner_seat",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["scheduled", "in_progress", "finished", "void"]),
                name="match_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(confirmation_hold__in=["", "hand", "result", "disputed"]),
                name="match_confirmation_hold_valid",
            ),
            models.CheckConstraint(
                condition=Q(status="scheduled") | Q(started_at__isnull=False) | Q(status="void"),
                name="match_started_at_when_started",
            ),
        ]

    def __str__(self) -> str:
        return self.label or f"Match {self.pk}"


class Seat(BaseModel):
    """A player's seat at a match (0..n-1 in play order) and, once finished, their result."""

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="seats")
    seat = models.PositiveSmallIntegerField()
    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="seats")

    # Result (T4, R35): kept current while the match is played, final when it ends.
    placing = models.PositiveSmallIntegerField(null=True, blank=True)
    points = models.IntegerField(default=0)
    hands_won = models.PositiveIntegerField(default=0)
    domino_wins = models.PositiveIntegerField(default=0)
    block_wins = models.PositiveIntegerField(default=0)
    llaves = models.PositiveIntegerField(default=0)
    ties = models.PositiveIntegerField(default=0)
    replays_won = models.PositiveIntegerField(default=0)
    resets_caused = models.PositiveIntegerField(default=0)
    playoffs_won = models.PositiveIntegerField(default=0)
    six_love_given = models.PositiveIntegerField(default=0)
    six_love_received = models.PositiveIntegerField(default=0)
    forfeited = models.BooleanField(default=False)

    class Meta:
        ordering = ["match_id", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="seat_unique_number"),
            models.UniqueConstraint(fields=["match", "entry"], name="seat_unique_entry"),
            models.CheckConstraint(condition=Q(seat__lt=MAX_SEATS), name="seat_number_range"),
            models.CheckConstraint(
                condition=Q(placing__isnull=True) | (Q(placing__gte=1) & Q(placing__lte=4)),
                name="seat_placing_range",
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.seat} of match {self.match_id}"


class Hand(models.Model):
    """One recorded hand. Append-only: corrections set ``void`` and never delete (STYLE.md §6).

    ``poser`` .. ``sporting`` are the engine's ``HandRecord`` (for a play log, the record the
    engine derived from it); ``value`` .. ``notes`` are its ``HandScored`` result. ``winner``
    is the hand's winner (derived for a block by R20), null for a tie.
    """

    class End(models.TextChoices):
        DOMINO = "domino", "Domino (R18)"
        BLOCK = "block", "Block (R19)"

    # No index of its own: (match, void, number) below leads with it. Every index costs each
    # recorded hand an insert (bench/bench_hands.py), so the hand table keeps only useful ones.
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="hands", db_index=False)
    number = models.PositiveIntegerField()
    poser = models.PositiveSmallIntegerField()
    pose_tile = models.CharField(max_length=3)
    end = models.CharField(max_length=8, choices=End.choices)
    winner = models.PositiveSmallIntegerField(null=True, blank=True)
    counts = models.JSONField(null=True, blank=True)
    play_log = models.JSONField(null=True, blank=True)
    llave = models.BooleanField(default=False)
    sporting = models.BooleanField(default=False)

    value = models.PositiveIntegerField()
    paid = models.PositiveIntegerField(default=0)
    tied = models.BooleanField(default=False)
    reset = models.BooleanField(default=False)
    scores_after = models.JSONField(default=list)
    notes = models.JSONField(default=list, blank=True)

    # No index of its own: hands are looked up by (recorded_by, idempotency_key) through the
    # unique constraint below; only deleting a user (SET NULL) would scan the table.
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,
    )
    recorded_at = models.DateTimeField(default=timezone.now)
    client_ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=256, blank=True)
    # The tournament's version once this hand was stored: the version its answer carried.
    tournament_version = models.PositiveIntegerField(null=True, blank=True)

    # Idempotent retries (README "Rule decisions"): a hand recorded with an Idempotency-Key
    # keeps the SHA-256 fingerprint of its request and the 201 body that was sent, so a retry
    # with the same key gets that very answer back, however late. The stored body leaves
    # ``hand.id`` and ``tournament_version`` empty: they are this row's ``id`` and
    # ``tournament_version``, filled in when it is replayed.
    idempotency_key = models.CharField(max_length=128, blank=True)
    # db_default: rows written without it (raw SQL, code of the previous release) stay valid.
    idempotency_fingerprint = models.CharField(max_length=64, blank=True, default="", db_default="")
    idempotent_response = models.JSONField(null=True, blank=True)

    void = models.BooleanField(default=False)
    # Indexed only where set (``hand_voided_by``): almost every hand has none.
    voided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,
    )
    voided_at = models.DateTimeField(null=True, blank=True)
    void_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["match_id", "number", "id"]
        indexes = [
            models.Index(fields=["match", "void", "number"]),
            models.Index(
                fields=["voided_by"], condition=Q(voided_by__isnull=False), name="hand_voided_by"
            ),
        ]
        constraints = [
            # One live hand per number: the invariant the recording lock relies on
            # (PITFALLS.md); voided hands keep their number.
            models.UniqueConstraint(
                fields=["match", "number"],
                condition=Q(void=False),
                name="hand_unique_number_live",
            ),
            # Keys are per user: two referees whose clients happen to send the same key
            # never see each other's answers. Also what finds a retried submission.
            models.UniqueConstraint(
                fields=["recorded_by", "idempotency_key"],
                condition=~Q(idempotency_key=""),
                name="hand_unique_user_idempotency_key",
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="hand_number_positive"),
            models.CheckConstraint(condition=Q(poser__lt=MAX_SEATS), name="hand_poser_range"),
            models.CheckConstraint(
                condition=Q(winner__isnull=True) | Q(winner__lt=MAX_SEATS),
                name="hand_winner_range",
            ),
            models.CheckConstraint(condition=Q(end__in=["domino", "block"]), name="hand_end_valid"),
            models.CheckConstraint(
                condition=~Q(end="domino") | Q(winner__isnull=False),
                name="hand_domino_has_winner",
            ),
            models.CheckConstraint(
                condition=~Q(end="block") | Q(counts__isnull=False),
                name="hand_block_has_counts",
            ),
            models.CheckConstraint(
                condition=Q(void=False) | (Q(voided_at__isnull=False) & ~Q(void_reason="")),
                name="hand_void_has_when_and_why",
            ),
        ]

    def __str__(self) -> str:
        return f"hand {self.number} of match {self.match_id}{' (void)' if self.void else ''}"


class HandConfirmation(models.Model):
    """One seated player's confirmation of a recorded hand (issue 15): tapped on the referee's
    phone, with the player's PIN when they have one. One per hand and seat."""

    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="confirmations")
    seat = models.PositiveSmallIntegerField()
    # The referee credential's identity (or director) on whose phone it was tapped.
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    with_pin = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["hand_id", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat"], name="handconfirmation_unique_seat"),
            models.CheckConstraint(condition=Q(seat__lt=MAX_SEATS), name="handconfirmation_seat"),
        ]

    def __str__(self) -> str:
        return f"seat {self.seat} confirmed hand {self.hand_id}"


class ResultDispute(models.Model):
    """A player's dispute of a recorded hand: the referee's version is the hand, the player's
    is ``claimed`` (an outcome record, RULES.md section 9). The match is frozen until a
    director resolves it: ``upheld`` (the record stands) or ``corrected`` (the claimed version
    replaces it), with a reason in the action log."""

    class Status(models.TextChoices):
        OPEN = "open", "Open: the match is frozen"
        UPHELD = "upheld", "Upheld: the recorded version stands"
        CORRECTED = "corrected", "Corrected: the player's version replaces it"

    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="disputes")
    hand = models.ForeignKey(Hand, on_delete=models.CASCADE, related_name="disputes")
    seat = models.PositiveSmallIntegerField()
    claimed = models.JSONField()
    note = models.TextField(blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.OPEN)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    resolved_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            # One open dispute per match: the match is frozen while it is open.
            models.UniqueConstraint(
                fields=["match"], condition=Q(status="open"), name="resultdispute_one_open"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["open", "upheld", "corrected"]),
                name="resultdispute_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(status="open") | (Q(resolved_at__isnull=False) & ~Q(reason="")),
                name="resultdispute_resolved_has_when_and_why",
            ),
        ]

    def __str__(self) -> str:
        return f"dispute of hand {self.hand_id} by seat {self.seat} ({self.status})"
