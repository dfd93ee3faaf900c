"""A circuit: a season's series of tournaments with a points race (README "Circuits")."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models

from circuits.ranking import PointsConfigError, validate_points_table, validate_stage_bonus
from core.models import BaseModel
from tournament.models import Tournament

DEFAULT_POINTS = [100, 80, 65, 55, 45, 40, 35, 30, 25, 20, 16, 12, 8, 5, 3, 1]


def default_points() -> list[int]:
    return list(DEFAULT_POINTS)


def _points_table(value: object) -> None:
    try:
        validate_points_table(value)
    except PointsConfigError as exc:
        raise ValidationError(exc.message) from exc


def _stage_bonus(value: object) -> None:
    try:
        validate_stage_bonus(value)
    except PointsConfigError as exc:
        raise ValidationError(exc.message) from exc


class Circuit(BaseModel):
    name = models.CharField(max_length=160)
    slug = models.SlugField(max_length=80, unique=True)
    season = models.CharField(max_length=20, blank=True, help_text="e.g. 2026 or 2026-27")
    public = models.BooleanField(default=False, help_text="Shown on /circuits/ and the API.")
    # Points per final place, 1st first: [100, 80, 65, ...]; a place beyond the list earns 0.
    points_table = models.JSONField(default=default_points, validators=[_points_table])
    # Bonus per stage reached, cumulative: {"2": 20} = 20 points for reaching stage 2.
    stage_bonus = models.JSONField(default=dict, blank=True, validators=[_stage_bonus])
    tournaments = models.ManyToManyField(
        Tournament, through="CircuitTournament", related_name="circuits", blank=True
    )

    class Meta:
        ordering = ["-season", "name", "id"]

    def __str__(self) -> str:
        return f"{self.name} {self.season}".strip()


class CircuitTournament(BaseModel):
    """Membership of a tournament in a circuit."""

    circuit = models.ForeignKey(Circuit, on_delete=models.CASCADE, related_name="members")
    tournament = models.ForeignKey(
        Tournament, on_delete=models.CASCADE, related_name="circuit_memberships"
    )

    class Meta:
        ordering = ["circuit_id", "tournament__starts_on", "tournament_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["circuit", "tournament"], name="circuittournament_unique"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tournament} in {self.circuit}"
