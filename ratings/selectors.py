"""Reads of ratings: a player's profile across events, and the ratings used for seeding."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from ratings.model import display_rating
from ratings.models import PlayerRating, RatingChange
from tournament.models import Entry, Player, Tournament


def seeding_ratings(*, player_ids: Iterable[int], unrated: float | None = 0.0) -> dict[int, float]:
    """The rating each player is seeded by (T8): the system's rating once the player has a rated
    match, else the rating the director entered, else ``unrated`` (0; ``None`` leaves the
    player out, for a caller that treats an unknown rating otherwise)."""
    ids = list(player_ids)
    typed = dict(Player.objects.filter(pk__in=ids).values_list("pk", "rating"))
    out: dict[int, float] = {}
    for pk, r in typed.items():
        if r is not None:
            out[pk] = float(r)
        elif unrated is not None:
            out[pk] = unrated
    for rating in PlayerRating.objects.filter(player_id__in=ids, matches__gt=0):
        out[rating.player_id] = float(rating.display)
    return out


@dataclass(frozen=True, slots=True)
class TournamentLine:
    tournament_id: int
    name: str
    slug: str
    status: str
    entry_status: str


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One rated match in a player's history (plain values: a profile reads hundreds)."""

    match_id: int
    tournament_id: int
    tournament_name: str
    rated_at: dt.datetime
    placing: int
    table_size: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float

    @property
    def display_before(self) -> int:
        return display_rating(self.mu_before, self.sigma_before)

    @property
    def display_after(self) -> int:
        return display_rating(self.mu_after, self.sigma_after)

    @property
    def display_change(self) -> int:
        return self.display_after - self.display_before


@dataclass(frozen=True, slots=True)
class PlayerProfile:
    player: Player
    rating: int | None
    rated_matches: int
    history: list[HistoryLine]
    tournaments: list[TournamentLine]


PROFILE_HISTORY = 500


def player_profile(*, player_id: int) -> PlayerProfile | None:
    """A player's rating, rating history (latest ``PROFILE_HISTORY`` matches, oldest first) and
    the public tournaments they entered. Three queries whatever the history's length."""
    player = Player.objects.filter(pk=player_id).select_related("skill").first()
    if player is None:
        return None
    skill = getattr(player, "skill", None)
    history = [
        HistoryLine(*row)
        for row in RatingChange.objects.filter(player_id=player_id)
        .exclude(tournament__status="draft")
        .order_by("-rated_at", "-match_id")
        .values_list(
            "match_id",
            "tournament_id",
            "tournament__name",
            "rated_at",
            "placing",
            "table_size",
            "mu_before",
            "sigma_before",
            "mu_after",
            "sigma_after",
        )[:PROFILE_HISTORY]
    ]
    history.reverse()
    tournaments = [
        TournamentLine(
            e.tournament_id, e.tournament.name, e.tournament.slug, e.tournament.status, e.status
        )
        for e in Entry.objects.filter(player_id=player_id)
        .exclude(tournament__status="draft")
        .select_related("tournament")
        .order_by("-tournament__starts_on", "-tournament_id")
    ]
    return PlayerProfile(
        player=player,
        rating=skill.display if skill is not None and skill.matches else None,
        rated_matches=skill.matches if skill is not None else 0,
        history=history,
        tournaments=tournaments,
    )


def public_tournament(*, slug: str) -> Tournament | None:
    """The tournament with ``slug`` unless it is a draft (drafts are invisible to the public)."""
    return Tournament.objects.filter(slug=slug).exclude(status="draft").first()
