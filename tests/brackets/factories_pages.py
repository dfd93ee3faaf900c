"""Helpers for the director page tests: a tournament with players, referees and stages."""

from __future__ import annotations

from typing import Any

from django.test import Client

from brackets.models import Stage
from brackets.services import stage_create
from tests.brackets.conftest import make_tournament
from tests.factories import UserFactory
from tournament.models import Tournament


def director_client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def tournament_with_stage(
    n: int = 10,
    *,
    referees: int = 2,
    clubs: int = 8,
    swiss_rounds: int = 2,
    cut_size: int | None = 4,
    time_limit: int | None = None,
    auto_advance: bool = True,
    **kwargs: Any,
) -> tuple[Tournament, Any, Stage]:
    """``n`` checked-in players, ``referees`` referees, and a qualifying stage 1."""
    tournament, director = make_tournament(n, clubs=clubs, referees=referees, **kwargs)
    stage = stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind=Stage.Kind.QUALIFYING,
        swiss_rounds=swiss_rounds,
        cut_size=cut_size,
        rng_seed=7,
        round_time_limit=time_limit,
        auto_advance=auto_advance,
    )
    return tournament, director, stage


def other_director() -> Any:
    """A director of another tournament (no right on the first one)."""
    _other, director = make_tournament(0)
    return director


def superuser() -> Any:
    return UserFactory(is_superuser=True, is_staff=True)
