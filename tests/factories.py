"""Shared factory-boy factories for the tournament and scoring models.

Factories build rows directly (no permission checks); tests of behaviour go through the
services. ``match_in_progress`` builds a started match the way ``match_start`` would.
"""

from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission, User

from brackets.models import Round, RoundMatch, Stage, StageEntry
from circuits.models import Circuit, CircuitTournament
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
    # Distinct within any one test (seeding by rating, T8) and within the model's limit
    # (<= 9999) however many players a session creates.
    rating = factory.Sequence(lambda n: 1500 + n % 8000)


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


def with_permissions(user: Any, *permissions: str) -> Any:
    """``user`` given the Django permissions ``permissions`` (``"app.codename"``), fetched
    again so that no permission cache of the old object hides them."""
    for permission in permissions:
        app_label, codename = permission.split(".", 1)
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return get_user_model().objects.get(pk=user.pk)


def staff_with(*permissions: str, **kwargs: Any) -> Any:
    """A staff account holding ``permissions``: what the permission table's staff column asks
    (docs/security.md); ``UserFactory(is_staff=True)`` alone holds none."""
    return with_permissions(UserFactory(is_staff=True, **kwargs), *permissions)


def tournament_creator(**kwargs: Any) -> Any:
    """An account that may create tournaments (``tournament.add_tournament``; no staff flag:
    a director needs none) and becomes the director of those it creates."""
    return with_permissions(UserFactory(**kwargs), "tournament.add_tournament")


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


def at_round_table(match: Match) -> Match:
    """Link ``match`` to table 1 of a round of its tournament's first stage, as publishing a
    round does (brackets' ``RoundMatch``): only matches at a round's tables are rated
    (README, Ratings). The stage is created on first use; each match gets a round of its own,
    so none is linked to a round that already closed."""
    stage, _ = Stage.objects.get_or_create(
        tournament=match.tournament,
        number=1,
        defaults={"name": "Qualifying", "kind": Stage.Kind.QUALIFYING, "swiss_rounds": 9},
    )
    number = Round.objects.filter(stage=stage).count() + 1
    rnd = Round.objects.create(stage=stage, number=number, kind=Round.Kind.SWISS)
    RoundMatch.objects.create(round=rnd, match=match, table_number=1)
    return match


class CircuitFactory(factory.django.DjangoModelFactory[Circuit]):
    class Meta:
        model = Circuit

    name = factory.Sequence(lambda n: f"Series {n}")
    slug = factory.Sequence(lambda n: f"series-{n}")
    season = "2026"
    public = True
    points_table: Any = factory.LazyFunction(lambda: [100, 80, 65, 55, 45, 40, 35, 30])
    stage_bonus: Any = factory.LazyFunction(dict)


def placed_tournament(
    places: list[tuple[Player, int, int]], circuit: Circuit | None = None, **kwargs: Any
) -> Tournament:
    """A finished tournament whose entrants have final places: ``(player, place, deepest
    stage)``; a player placed in stage 2 is entered in stage 1 too (places are set on the
    deepest stage only, as brackets does for those who advanced)."""
    tournament = TournamentFactory(status=Tournament.Status.FINISHED, **kwargs)
    deepest = max((s for _, _, s in places), default=1)
    stages = {
        n: Stage.objects.create(
            tournament=tournament,
            number=n,
            name=f"Stage {n}",
            kind=Stage.Kind.KNOCKOUT,
            status=Stage.Status.FINISHED,
        )
        for n in range(1, deepest + 1)
    }
    for seed, (player, place, reached) in enumerate(places, start=1):
        entry = EntryFactory(tournament=tournament, player=player, seed=seed)
        for n in range(1, reached + 1):
            StageEntry.objects.create(
                stage=stages[n], entry=entry, seed=seed, placing=place if n == reached else None
            )
    if circuit is not None:
        CircuitTournament.objects.create(circuit=circuit, tournament=tournament)
    return tournament
