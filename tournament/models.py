"""Players, tournaments, entries, tables, roles, referee tokens, director invitations and the
director's action log.

Models hold data and database constraints only (STYLE.md §6); workflows live in
``tournament.services``. The effective ruleset of a tournament is the engine's
``Ruleset.from_preset(ruleset_preset, ruleset_overrides).to_json()``, stored in ``ruleset`` by
the services so reads never re-validate it; each match freezes its own copy when it starts
(RULES.md §1).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from core.models import BaseModel
from tournament.player_names import player_display_name


class Player(BaseModel):
    """A person who plays; may exist across many tournaments, with or without a login."""

    name = models.CharField(max_length=120)
    nickname = models.CharField(max_length=60, blank=True)
    country = models.CharField(max_length=2, blank=True, help_text="ISO 3166-1 alpha-2 code")
    club = models.CharField(max_length=120, blank=True)
    rating = models.IntegerField(null=True, blank=True)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="player",
    )

    class Meta:
        ordering = ["name", "id"]
        indexes = [models.Index(fields=["name"])]

    def __str__(self) -> str:
        return player_display_name(self.name, self.nickname)


class Tournament(BaseModel):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        REGISTRATION = "registration", "Registration"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"

    name = models.CharField(max_length=160)
    slug = models.SlugField(max_length=80, unique=True)
    venue = models.CharField(max_length=160, blank=True)
    starts_on = models.DateField(null=True, blank=True)
    ends_on = models.DateField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    # T9: "pairs" enters partnerships of two players (tournament.partnership_models); only
    # under a partnership ruleset (teams = partners), checked by tournament.partnerships.
    entry_format = models.CharField(
        max_length=12,
        choices=[("individual", "Individual players"), ("pairs", "Partnerships (T9)")],
        default="individual",
    )
    ruleset_preset = models.CharField(max_length=32, default="wsod")
    ruleset_overrides = models.JSONField(default=dict, blank=True)
    # Effective ruleset (engine Ruleset.to_json()), written by the services after validation.
    ruleset = models.JSONField(default=dict, blank=True)

    class Confirmation(models.TextChoices):
        # Who confirms a result at the table (issue 15; scoring/confirmation.py).
        OFF = "off", "Off: the referee's record is final"
        MATCH_END = "match_end", "At match end: every player confirms the result"
        EVERY_HAND = "every_hand", "Every hand: every player confirms each hand"

    # Confirmation at the table; each match freezes it when it starts, like its ruleset.
    confirmation = models.CharField(
        max_length=12, choices=Confirmation.choices, default="off", db_default="off"
    )
    # Bumped with UPDATE ... SET version = version + 1 at the end of every recording
    # transaction: the live pages use it as ETag and cache key (PITFALLS.md).
    version = models.BigIntegerField(default=0)
    # Who created it (tournament_create): its owner among its directors. A co-director cannot
    # remove the owner, the owner may remove any co-director (docs/security.md, "Removing a
    # director"). Empty for a tournament whose creator is not known (an old archive).
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["-starts_on", "name", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["draft", "registration", "running", "finished"]),
                name="tournament_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(confirmation__in=["off", "match_end", "every_hand"]),
                name="tournament_confirmation_valid",
            ),
            models.CheckConstraint(
                condition=Q(starts_on__isnull=True)
                | Q(ends_on__isnull=True)
                | Q(ends_on__gte=models.F("starts_on")),
                name="tournament_dates_ordered",
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Entry(BaseModel):
    """A player registered in a tournament."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        WITHDRAWN = "withdrawn", "Withdrawn"
        DISQUALIFIED = "disqualified", "Disqualified"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="entries")
    seed = models.PositiveIntegerField(null=True, blank=True)
    checked_in = models.BooleanField(default=False)
    checked_in_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    status_reason = models.TextField(blank=True)
    # The player's optional 4-digit PIN for confirming results at the table (issued at
    # check-in, shown once; Django's password hasher). Empty: tapping the name is enough.
    pin_hash = models.CharField(max_length=128, blank=True, default="", db_default="")

    class Meta:
        ordering = ["tournament_id", "seed", "id"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(fields=["tournament", "player"], name="entry_unique_player"),
            models.UniqueConstraint(
                fields=["tournament", "seed"],
                condition=Q(seed__isnull=False),
                name="entry_unique_seed",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["active", "withdrawn", "disqualified"]),
                name="entry_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.tournament_id}"


class Table(BaseModel):
    """A physical table in the venue."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="tables")
    number = models.PositiveIntegerField()
    label = models.CharField(max_length=60, blank=True)
    # A feature table (streamed, projected): its referee may enter hands move by move and
    # spectators get a replay of each (issue 15); the director turns it on.
    feature = models.BooleanField(default=False)

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="table_unique_number"),
        ]

    def __str__(self) -> str:
        return self.label or f"Table {self.number}"


class TournamentRole(BaseModel):
    """A per-tournament role: directors manage the tournament, referees record hands."""

    class Role(models.TextChoices):
        DIRECTOR = "director", "Director"
        REFEREE = "referee", "Referee"

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="roles")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="tournament_roles"
    )
    role = models.CharField(max_length=16, choices=Role.choices)

    class Meta:
        ordering = ["tournament_id", "role", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "user", "role"], name="tournamentrole_unique"
            ),
            models.CheckConstraint(
                condition=Q(role__in=["director", "referee"]), name="tournamentrole_role_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} {self.role} of {self.tournament_id}"


class HashedKey(BaseModel):
    """A capability whose key is shown once and stored as a hash (docs/security.md): the
    12-character non-secret ``prefix`` (the lookup), ``key_hash`` (SHA-256 of the whole key,
    hex), who issued it and when it was revoked. Referee credentials and co-director
    invitations are made, stored and compared alike (``tournament.services.credentials``)."""

    prefix = models.CharField(max_length=16, unique=True)
    key_hash = models.CharField(max_length=64)
    label = models.CharField(max_length=60, blank=True)
    issued_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        abstract = True
        constraints = [
            models.CheckConstraint(
                condition=Q(key_hash__regex=r"^[0-9a-f]{64}$"), name="%(class)s_key_hashed"
            ),
        ]


class RefereeToken(HashedKey):
    """A referee CREDENTIAL: the key of ``Authorization: Token <key>`` and of the private link
    ``/ref/#<key>`` (docs/security.md). A capability, never a login.

    The key is ``<prefix>.<secret>``: a 12-character non-secret ``prefix`` (the lookup) and a
    ``secrets.token_urlsafe(24)`` secret (192 random bits). Only ``key_hash`` (SHA-256 of the
    whole key, hex) is stored; the key is shown once, when issued (a director re-issues to
    print it again). Revoking sets ``revoked_at``: the key, and every session opened through
    its link, stop working on the very next request.
    """

    role = models.ForeignKey(TournamentRole, on_delete=models.CASCADE, related_name="tokens")
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta(HashedKey.Meta):
        ordering = ["-created_at", "id"]

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    def __str__(self) -> str:
        return f"credential {self.prefix} for {self.role}"


class DirectorInvitation(HashedKey):
    """A one-time link that lets someone with no account become a co-director of ONE
    tournament (docs/security.md): ``/invite/#<key>``, a capability, never a login.

    The key is made and stored like a referee credential's (:class:`RefereeToken`): a
    12-character non-secret ``prefix`` (the lookup) and 192 random bits; only ``key_hash``
    (SHA-256 of the whole key, hex) is kept and the key is shown once, when issued. It works
    until ``expires_at`` (``DIRECTOR_INVITATION_DAYS``), once: accepting it sets ``used_at``,
    ``used_by`` (the NEW account it created) and ``role`` (the director role it granted). An
    account whose only director roles came through invitations creates no tournaments
    (``tournament.selectors.user_directs_any``).
    """

    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="director_invitations"
    )
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    role = models.OneToOneField(
        TournamentRole,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="invitation",
    )

    class Meta(HashedKey.Meta):
        ordering = ["-created_at", "-id"]
        constraints = [
            *HashedKey.Meta.constraints,
            # Single use: a used invitation is never revoked afterwards, nor the reverse.
            models.CheckConstraint(
                condition=Q(used_at__isnull=True) | Q(revoked_at__isnull=True),
                name="directorinvitation_used_or_revoked",
            ),
        ]

    def __str__(self) -> str:
        return f"director invitation {self.prefix} to {self.tournament_id}"


class ActionLog(BaseModel):
    """An append-only record of director actions that change results or seating."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="action_logs")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    verb = models.CharField(max_length=64)
    target_type = models.CharField(max_length=64, blank=True)
    target_id = models.CharField(max_length=64, blank=True)
    reason = models.TextField(blank=True)
    data = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["tournament", "target_type", "target_id"])]

    def __str__(self) -> str:
        return f"{self.verb} {self.target_type}#{self.target_id}"


# Partnerships live in their own module (T9, T11); imported here so Django registers them.
from tournament.partnership_models import Partnership, PartnershipMember  # noqa: E402

__all__ = [
    "ActionLog",
    "DirectorInvitation",
    "Entry",
    "Partnership",
    "PartnershipMember",
    "Player",
    "RefereeToken",
    "Table",
    "Tournament",
    "TournamentRole",
]
