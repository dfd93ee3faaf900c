"""Helpers for pairs-event tests (T9-T11): a pairs tournament with N registered, checked-in
partnerships through the real services, and its stages."""

from __future__ import annotations

from typing import Any

from brackets import services
from brackets.models import Stage
from tests.factories import TournamentFactory, director_of
from tournament.models import Partnership, Player, Tournament
from tournament.partnerships import partnership_register, tournament_entry_format_set


def make_pairs_tournament(
    n: int, *, clubs: int = 5, preset: str = "wsod_partners", **kwargs: Any
) -> tuple[Tournament, Any, list[Partnership]]:
    """A running pairs tournament (``preset``) with ``n`` checked-in partnerships."""
    tournament = TournamentFactory(ruleset_preset=preset, **kwargs)
    director = director_of(tournament)
    tournament_entry_format_set(tournament=tournament, actor=director, entry_format="pairs")
    tournament.refresh_from_db()
    players = Player.objects.bulk_create(
        [
            Player(
                name=f"Q{i:04d}",
                club=f"Club {(i // 2) % clubs}" if clubs else "",
                rating=3000 - i,
            )
            for i in range(2 * n)
        ]
    )
    pairs = [
        partnership_register(
            tournament=tournament,
            actor=director,
            players=[players[2 * k], players[2 * k + 1]],
            check_in=True,
        )
        for k in range(n)
    ]
    return tournament, director, pairs


def pairs_stages(
    tournament: Tournament,
    director: Any,
    *,
    swiss_rounds: int = 3,
    cut_size: int = 4,
    auto_advance: bool = True,
    bye_policy: str = "win",
) -> tuple[Stage, Stage]:
    """A Swiss qualifying stage cut to ``cut_size`` partnerships, then the knockout to the
    final between two partnerships (T10)."""
    q = services.stage_create(
        tournament=tournament,
        actor=director,
        name="Qualifying",
        kind="qualifying",
        swiss_rounds=swiss_rounds,
        cut_size=cut_size,
        rng_seed=7,
        auto_advance=auto_advance,
        bye_policy=bye_policy,
    )
    k = services.stage_create(
        tournament=tournament,
        actor=director,
        name="Knockout",
        kind="knockout",
        rng_seed=11,
        auto_advance=auto_advance,
    )
    return q, k
