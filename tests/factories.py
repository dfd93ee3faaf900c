"""Shared factory-boy factories for the tournament and scoring models.

Factories build rows directly (no permission checks); tests of behaviour go through the
services. ``match_in_progress`` builds a started match the way ``match_start`` would.
"""

from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import User

from scoring.engine import Ruleset
from scoring.models import Match, Seat
from tournament.models import Entry, Player, Table, Tournament, TournamentRole


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda o: f"{o.username}@example.com")
    password = factory.django.Password("pw")


class PlayerFactory(factory.django.DjangoModelFactory[Player]):
    class Meta:
        model = Player

    name = factory.Sequence(lambda n: f"Player {n}")
    nickname = ""
    country = "PR"
    club = factory.Sequence(lambda n: f"Club {n % 5}")
    rating = factory.Sequence(lambda n: 1500 + n)


class TournamentFactory(factory.django.DjangoModelFactory[Tournament]):
    class Meta:
        model = Tournament

    name = factory.Sequence(lambda n: f"Open {n}")
    slug = factory.Sequence(lambda n: f"open-{n}")
    venue = "Hall A"
    status = Tournament.Status.RUNNING
    ruleset_preset = "wsod"
    ruleset_overrides: Any = factory.LazyFunction(dict)
    ruleset = factory.LazyAttribute(
        lambda o: Ruleset.from_preset(o.ruleset_preset, o.ruleset_overrides).to_json()
    )


class EntryFactory(factory.django.DjangoModelFactory[Entry]):
    class Meta:
        model = Entry

    tournament = factory.SubFactory(TournamentFactory)
    player = factory.SubFactory(PlayerFactory)


class TableFactory(factory.django.DjangoModelFactory[Table]):
    class Meta:
        model = Table

    tournament = factory.SubFactory(TournamentFactory)
    number = factory.Sequence(lambda n: n + 1)


class RoleFactory(factory.django.DjangoModelFactory[TournamentRole]):
    class Meta:
        model = TournamentRole

    tournament = factory.SubFactory(TournamentFactory)
    user = factory.SubFactory(UserFactory)
    role = TournamentRole.Role.REFEREE


def director_of(tournament: Tournament, **kwargs: Any) -> Any:
    user = UserFactory(**kwargs)
    RoleFactory(tournament=tournament, user=user, role=TournamentRole.Role.DIRECTOR)
    return user


def referee_of(tournament: Tournament, **kwargs: Any) -> Any:
    user = UserFactory(**kwargs)
    RoleFactory(tournament=tournament, user=user, role=TournamentRole.Role.REFEREE)
    return user


def scheduled_match(
    tournament: Tournament,
    *,
    n_players: int = 4,
    referee: Any = None,
    table: Table | None = None,
    lot_winner: int = 0,
) -> Match:
    """A scheduled match with ``n_players`` fresh entries seated 0..n-1."""
    match = Match.objects.create(
        tournament=tournament,
        table=table,
        referee=referee,
        n_players=n_players,
        lot_winner=lot_winner,
        scores=[0] * n_players,
    )
    for i in range(n_players):
        Seat.objects.create(match=match, seat=i, entry=EntryFactory(tournament=tournament))
    return match


def match_in_progress(
    tournament: Tournament, *, n_players: int = 4, referee: Any = None, lot_winner: int = 0
) -> Match:
    """A started match (ruleset frozen, engine opening state stored), via the service."""
    from scoring.services import match_start

    match = scheduled_match(tournament, n_players=n_players, referee=referee, lot_winner=lot_winner)
    actor = referee or director_of(tournament)
    return match_start(match_id=match.pk, actor=actor)
