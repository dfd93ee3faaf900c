"""Players' ratings across events (openskill Plackett-Luce, see :mod:`ratings.model`).

``RatingChange`` is the history and the source of truth: one row per player per rated match,
in the global order of matches by (finished_at, match id). ``PlayerRating`` is the current value,
the ``after`` of the player's latest change, kept for cheap reads. Both are derived from the
stored match results and can be rebuilt at any time (``manage.py ratings_recalculate``).
"""

from __future__ import annotations

from django.db import models

from core.models import BaseModel
from ratings.model import MU0, SIGMA0, display_rating
from scoring.models import Match
from tournament.models import Player, Tournament


class PlayerRating(BaseModel):
    player = models.OneToOneField(Player, on_delete=models.CASCADE, related_name="skill")
    mu = models.FloatField(default=MU0)
    sigma = models.FloatField(default=SIGMA0)
    matches = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["player_id"]

    def __str__(self) -> str:
        return f"{self.player} {self.display}"

    @property
    def display(self) -> int:
        return display_rating(self.mu, self.sigma)


class RatingChange(models.Model):
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="rating_changes")
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="rating_changes")
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="+")
    # The match's position in the global order (its finished_at, then its id).
    rated_at = models.DateTimeField()
    placing = models.PositiveSmallIntegerField()
    table_size = models.PositiveSmallIntegerField()
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()

    class Meta:
        ordering = ["rated_at", "match_id", "player_id"]
        constraints = [
            models.UniqueConstraint(fields=["player", "match"], name="ratingchange_unique"),
        ]
        indexes = [
            models.Index(fields=["rated_at", "match"], name="ratingchange_order"),
            models.Index(fields=["player", "rated_at", "match"], name="ratingchange_player"),
        ]

    def __str__(self) -> str:
        return f"{self.player_id} in match {self.match_id}: {self.display_after}"

    @property
    def display_before(self) -> int:
        return display_rating(self.mu_before, self.sigma_before)

    @property
    def display_after(self) -> int:
        return display_rating(self.mu_after, self.sigma_after)

    @property
    def display_change(self) -> int:
        return self.display_after - self.display_before
