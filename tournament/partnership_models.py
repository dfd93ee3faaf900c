"""Partnerships: the entries of a pairs event (RULES.md §12, T9, T11).

A pairs tournament (``Tournament.entry_format = pairs``, valid only under ``teams = partners``)
enters players as usual (``Entry``), and a :class:`Partnership` groups two of those entries.
Seats, hands and results stay per player (R35 statistics are still kept per player); the
brackets app reads a partnership's record through its members.

Membership is history, never rewritten: a substitute (T11) ends the leaving player's
:class:`PartnershipMember` row (``left_at``) and adds one for the newcomer, so every match a
partnership played still maps to it and the partnership keeps its record. An entry belongs to
at most one partnership in its tournament, ever (a unique constraint, not Python).
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from core.models import BaseModel


class Partnership(BaseModel):
    """Two registered players entered together (T9). ``number`` is the registration order."""

    class Status(models.TextChoices):
        ACTIVE = "active", "Active"
        WITHDRAWN = "withdrawn", "Withdrawn"

    tournament = models.ForeignKey(
        "tournament.Tournament", on_delete=models.CASCADE, related_name="partnerships"
    )
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=120, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)

    class Meta:
        app_label = "tournament"
        ordering = ["tournament_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "number"], name="partnership_unique_number"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["active", "withdrawn"]), name="partnership_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name or f"Pair {self.number}"


class PartnershipMember(BaseModel):
    """One player of a partnership: ``slot`` 0 or 1 while current; ``left_at`` once replaced."""

    partnership = models.ForeignKey(Partnership, on_delete=models.CASCADE, related_name="members")
    entry = models.OneToOneField(
        "tournament.Entry", on_delete=models.PROTECT, related_name="partnership_member"
    )
    slot = models.PositiveSmallIntegerField()
    left_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "tournament"
        ordering = ["partnership_id", "slot", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(slot__in=[0, 1]), name="partnermember_slot"),
            # Exactly one current player per slot (T9: two registered players).
            models.UniqueConstraint(
                fields=["partnership", "slot"],
                condition=Q(left_at__isnull=True),
                name="partnermember_one_current_per_slot",
            ),
        ]

    def __str__(self) -> str:
        return f"entry {self.entry_id} in partnership {self.partnership_id}"
